import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { AppRoutes } from './app/AppRoutes';
import { AppProviders, createQueryClient } from './app/providers';
import { loadTranslations } from './i18n';
import { loadLanguage } from './session/storage';
import './styles/app.css';

const queryClient = createQueryClient();

const render = () =>
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <BrowserRouter>
        <AppProviders queryClient={queryClient}>
          <AppRoutes />
        </AppProviders>
      </BrowserRouter>
    </StrictMode>,
  );

// A chosen language other than Spanish or English is a file of its own: show it from the first paint.
void loadTranslations(loadLanguage()).finally(render);

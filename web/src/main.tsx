import './zodConfig';
import { StrictMode, startTransition, useEffect, type ReactNode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { AppRoutes } from './app/AppRoutes';
import { AppProviders, createQueryClient } from './app/providers';
import { loadTranslations } from './i18n';
import { loadIdentity, loadLanguage, syncShellHints } from './session/storage';
import './styles/app.css';

const queryClient = createQueryClient();
const container = document.getElementById('root')!;

/** The page drawn by the gateway (a shell) stays inert until the app's first render is on screen. */
function TakeOver({ children }: { children: ReactNode }) {
  useEffect(() => container.removeAttribute('inert'), []);
  return children;
}

const app = (
  <TakeOver>
    <StrictMode>
      <BrowserRouter>
        <AppProviders queryClient={queryClient}>
          <AppRoutes />
        </AppProviders>
      </BrowserRouter>
    </StrictMode>
  </TakeOver>
);

/**
 * The welcome screen the gateway sent is exactly what the app renders for a visitor in that language:
 * React adopts it (hydration) instead of drawing it again. Any other shell (the game's skeleton, the
 * winners page) is replaced by the app's first render, which is drawn in the same boxes.
 */
function start() {
  const language = loadLanguage();
  syncShellHints();
  const adoptable =
    container.dataset.shell === 'welcome' &&
    container.dataset.lang === language &&
    window.location.pathname === '/' &&
    !loadIdentity().token;
  if (adoptable) {
    hydrateRoot(container, app);
    return;
  }
  const root = createRoot(container);
  // A transition: rendering yields to the browser between components, so no single long task blocks it.
  startTransition(() => root.render(app));
}

// A chosen language other than Spanish or English is a file of its own: show it from the first paint.
void loadTranslations(loadLanguage()).finally(start);

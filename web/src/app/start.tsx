// The app's start, after main.tsx's stages: the chosen language's strings, the root in a task of its
// own (React listens to every event on it), then the first render as a transition.
import { StrictMode, startTransition, useEffect, type ReactNode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { loadTranslations } from '../i18n';
import { prepareFormatters } from '../i18n/format';
import { loadIdentity, loadLanguage, syncShellHints } from '../session/storage';
import { AppRoutes } from './AppRoutes';
import { AppProviders, createQueryClient } from './providers';

/** The page drawn by the gateway (a shell) stays inert until the app's first render is on screen. */
function TakeOver({ container, children }: { container: HTMLElement; children: ReactNode }) {
  useEffect(() => container.removeAttribute('inert'), [container]);
  return children;
}

/**
 * The welcome screen the gateway sent is exactly what the app renders for a visitor in that language:
 * React adopts it (hydration) instead of drawing it again. Any other shell (the game's skeleton, the
 * winners page) is replaced by the app's first render, which is drawn in the same boxes.
 */
export async function start(
  nextTask: () => Promise<void>,
  container = document.getElementById('root')!,
): Promise<void> {
  const language = loadLanguage();
  // A chosen language other than Spanish or English is a file of its own: show it from the first paint.
  await loadTranslations(language).catch(() => undefined);
  syncShellHints();
  const queryClient = createQueryClient();
  const app = (
    <TakeOver container={container}>
      <StrictMode>
        <BrowserRouter>
          <AppProviders queryClient={queryClient}>
            <AppRoutes />
          </AppProviders>
        </BrowserRouter>
      </StrictMode>
    </TakeOver>
  );
  const adoptable =
    container.dataset.shell === 'welcome' &&
    container.dataset.lang === language &&
    window.location.pathname === '/' &&
    !loadIdentity().token;
  if (adoptable) {
    hydrateRoot(container, app);
    return;
  }
  await prepareFormatters(language, nextTask);
  const root = createRoot(container);
  await nextTask();
  // A transition: rendering yields to the browser between components, so no single long task blocks it.
  startTransition(() => root.render(app));
}

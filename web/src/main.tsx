import './styles/app.css';
import { afterFirstPaint, nextTask, preloadModules } from './boot';

/**
 * The page is already drawn (the gateway sends each first screen as HTML): the app is fetched once it
 * is on screen, then evaluated a library at a time, each in a task of its own, so no single task holds
 * the page for the whole of it; then the app itself and its first render (app/start.tsx).
 */
// Each names one export the app uses: a stage that took the whole module would keep every export in
// the build, where naming one leaves the bundler free to drop what nothing uses.
const STAGES = [
  ['react', async () => (await import('react-dom/client')).createRoot],
  ['schemas', () => import('./schemas')],
  ['router', async () => (await import('react-router-dom')).BrowserRouter],
  ['query', async () => (await import('@tanstack/react-query')).QueryClient],
  ['i18n', async () => (await import('react-i18next')).initReactI18next],
] as const;

async function boot() {
  await afterFirstPaint();
  preloadModules();
  // Each stage is marked (performance.mark), so a profile of a page load names them.
  for (const [name, load] of STAGES) {
    await load();
    performance.mark(`omc:${name}`);
    await nextTask();
  }
  const { start } = await import('./app/start');
  performance.mark('omc:app');
  await nextTask();
  await start(nextTask);
  performance.mark('omc:rendering');
}

void boot();

import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';
import { compression } from 'vite-plugin-compression2';

// In development the API, the sockets and the app share one origin through the proxy, as behind the gateway.
const gateway = process.env.OMC_GATEWAY_URL ?? 'http://localhost:8080';

export default defineConfig({
  plugins: [
    react(),
    // Every asset also as .br and .gz beside it, compressed once at build; the gateway serves the one the
    // browser accepts (@fastify/static preCompressed) instead of compressing on every request.
    compression({
      algorithms: ['brotliCompress', 'gzip'],
      exclude: [/\.map$/, /manifest\.json$/],
      threshold: 0,
    }),
  ],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    // .vite/manifest.json: which files each entry and lazy chunk loads (the bundle budget test reads it).
    manifest: true,
    // The payment drop-in is loaded only when a real provider form is needed; it is ~520 kB on its own.
    chunkSizeWarningLimit: 600,
    // One stylesheet for the whole app, on every page already (linked, or inline in a drawn first screen,
    // web/scripts/prerender.mjs): no lazy page fetches and applies it a second time.
    cssCodeSplit: false,
    rollupOptions: {
      output: {
        // Libraries change less often than the app: separate files keep them cached across releases.
        manualChunks(id) {
          if (!id.includes('node_modules')) return undefined;
          // One file per library the app's start evaluates as a stage of its own (src/main.tsx).
          if (/[\\/](react|react-dom|scheduler)[\\/]/.test(id)) return 'react';
          if (/[\\/](react-router|react-router-dom|cookie|set-cookie-parser)[\\/]/.test(id)) return 'router';
          if (/[\\/]@tanstack[\\/]/.test(id)) return 'query';
          if (/[\\/](i18next|react-i18next)[\\/]/.test(id)) return 'i18n';
          if (/[\\/](socket\.io-client|engine\.io-client|socket\.io-parser|engine\.io-parser)[\\/]/.test(id))
            return 'socket';
          if (/[\\/]zod[\\/]/.test(id)) return 'zod';
          return undefined;
        },
      },
    },
  },
  server: {
    proxy: {
      '/api': { target: gateway, changeOrigin: true },
      '/socket.io': { target: gateway, ws: true, changeOrigin: true },
    },
  },
});

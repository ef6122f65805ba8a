import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// In development the API, the sockets and the app share one origin through the proxy, as behind the gateway.
const gateway = process.env.OMC_GATEWAY_URL ?? 'http://localhost:8080';

export default defineConfig({
  plugins: [react()],
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: true },
  server: {
    proxy: {
      '/api': { target: gateway, changeOrigin: true },
      '/socket.io': { target: gateway, ws: true, changeOrigin: true },
    },
  },
});

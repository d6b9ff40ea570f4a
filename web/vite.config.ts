// Builds the dashboard to static files (web/dist). The local stack serves them on the API's origin;
// the cloud serves them from S3 + CloudFront (stacks/web.ts). The creator and review consoles are
// separate chunks, loaded only when opened.
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

export default defineConfig({
  root: import.meta.dirname,
  base: "/",
  plugins: [react()],
  // The SDK and the shared core are workspace packages: their sources, bundled with the app.
  resolve: { conditions: ["@agent-rental/source", "module", "browser", "development|production"] },
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // The manifest lets the budget check find what the first page loads.
    manifest: true,
    sourcemap: false,
    target: "es2022",
    chunkSizeWarningLimit: 700,
  },
});

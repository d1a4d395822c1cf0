import { defineConfig } from "vite";
import preact from "@preact/preset-vite";

// The gateway serves dist/ at `/`, so the app and the API share one origin and one port.
export default defineConfig({
  plugins: [preact()],
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
  server: {
    proxy: {
      "/v1": { target: process.env.SCRIBE_API ?? "http://127.0.0.1:1250", ws: true },
      "/app-config.json": process.env.SCRIBE_API ?? "http://127.0.0.1:1250",
    },
  },
});

// The package build: the whole CLI in one ES module (dist/agentrent.js) with its dependencies bundled
// in, so an installed `agentrent` loads one file and nothing from this repository. Modules that only
// some commands need (viem and the chain, the keystore's crypto, the manifest validator) are reached
// through dynamic import(), which the bundle keeps lazy: `--help` and `--version` never evaluate them.
import { readFileSync } from "node:fs";
import { defineConfig } from "tsup";

const { version } = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8")) as { version: string };

export default defineConfig({
  entry: { agentrent: "src/bin.ts" },
  format: ["esm"],
  platform: "node",
  target: "node20",
  noExternal: [/.*/],
  splitting: false,
  minify: true,
  sourcemap: false,
  clean: true,
  outDir: "dist",
  define: { __CLI_VERSION__: JSON.stringify(version) },
  // The SDK and the shared core are workspace packages: their sources, bundled like everything else.
  esbuildOptions(options) {
    options.conditions = ["@agent-rental/source"];
  },
  // Bundled CommonJS dependencies (ajv) call require(); an ES module has none of its own.
  banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
});

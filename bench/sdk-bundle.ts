// The SDK's core client as a browser bundle: the package entry bundled by esbuild for the browser,
// minified, then gzipped. Target: under 15 KB. Bundling for platform "browser" also proves the core
// client needs no Node built-in (esbuild fails on one).
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

export async function runSdkBundleBench(): Promise<string[]> {
  const result = await build({
    stdin: { contents: 'export { AgentRentalClient, parseJson } from "./sdk/src/index.ts";', resolveDir: fileURLToPath(new URL("..", import.meta.url)), loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
  });
  const code = result.outputFiles[0]!.contents;
  const gzipped = gzipSync(code, { level: 9 }).byteLength;
  return [`core client (AgentRentalClient, parseJson): ${(code.byteLength / 1024).toFixed(1)} KB minified, ${(gzipped / 1024).toFixed(1)} KB minified + gzipped; target < 15 KB: ${gzipped < 15 * 1024 ? "met" : "MISSED"}`];
}

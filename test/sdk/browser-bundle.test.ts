// The SDK's core client in a browser: its package entry bundled by esbuild for the browser platform
// (minified, as an app's build would), with no Node built-in anywhere in it, and under 15 KB minified
// and gzipped. The figure itself is recorded by bench/sdk-bundle.ts. The shared core
// (@agent-rental/core), which the dashboard loads, bundles for the browser too.
import { describe, expect, it } from "vitest";
import { gzipSync } from "node:zlib";
import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import { build, type BuildFailure } from "esbuild";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function bundleForBrowser(contents: string) {
  return build({ stdin: { contents, resolveDir: ROOT, loader: "ts" }, bundle: true, minify: true, format: "esm", platform: "browser", target: "es2022", write: false, metafile: true, logLevel: "silent" });
}

describe("the SDK's core client bundles for the browser", () => {
  it("with every export of the package entry, no Node built-in and no Node global, under 15 KB gzipped", async () => {
    const result = await bundleForBrowser('export * from "./sdk/src/index.ts";');
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((path) => path.startsWith("sdk/src/client.ts"))).toBe(true);
    const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
    expect(inputs.filter((path) => builtins.has(path) || path.startsWith("node:"))).toEqual([]);
    const code = result.outputFiles[0]!.text;
    // What a Node-only client would reach for, which a browser or an edge runtime does not have.
    expect(code).not.toMatch(/\b(?:require\(|process\.|Buffer\.|__dirname)/);
    const gzipped = gzipSync(result.outputFiles[0]!.contents, { level: 9 }).byteLength;
    expect(gzipped).toBeLessThan(15 * 1024);
  });

  it("the shared core's every entry bundles for the browser with no Node built-in module; the SDK's light ones with no Node global either", async () => {
    const builtins = new Set([...builtinModules, ...builtinModules.map((name) => `node:${name}`)]);
    const entries = ["", "/vocabulary", "/manifest", "/addresses", "/agent-tools", "/mcp", "/marketplace"];
    for (const entry of entries) {
      const result = await bundleForBrowser(`export * from "@agent-rental/core${entry}";`);
      const inputs = Object.keys(result.metafile.inputs);
      expect(inputs.some((path) => path.startsWith("packages/core/src/")), entry).toBe(true);
      expect(inputs.filter((path) => builtins.has(path) || path.startsWith("node:")), entry).toEqual([]);
      // The words and the tool definitions are the core's own code alone (the manifest rules and the MCP
      // server bring their libraries, whose browser builds test for Node themselves).
      if (entry === "" || entry === "/agent-tools") expect(result.outputFiles[0]!.text, entry).not.toMatch(/\b(?:require\(|process\.|Buffer\.|__dirname)/);
    }
  });

  it("the bundling refuses a Node built-in, so the check above can fail", async () => {
    const failure = (await bundleForBrowser('import { createHash } from "node:crypto"; export const h = createHash;').then(
      () => undefined,
      (error: unknown) => error,
    )) as BuildFailure | undefined;
    expect(failure?.errors.map((e) => e.text).join("\n")).toMatch(/node:crypto/);
  });
});

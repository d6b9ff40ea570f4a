// The package build: ESM and CommonJS with type declarations for the core client ("."), the AI SDK
// adapter ("./ai") and the MCP server ("./mcp"), plus the stdio server's program (ESM, for bin/). Peer
// dependencies stay external; the core client uses only web-standard APIs (fetch, streams,
// TextEncoder, crypto.randomUUID), so the same build runs in Node 20+, browsers and edge runtimes.
import { defineConfig, type Options } from "tsup";

const shared: Options = {
  tsconfig: "tsconfig.json",
  target: "es2022",
  platform: "neutral",
  external: ["ai", "zod", /^@modelcontextprotocol\/sdk/],
  splitting: false,
  sourcemap: true,
  outDir: "dist",
};

export default defineConfig([
  { ...shared, entry: { index: "src/index.ts", ai: "src/tools/ai-sdk.ts", mcp: "src/mcp/server.ts" }, format: ["esm", "cjs"], dts: true, clean: true },
  { ...shared, entry: { "mcp-bin": "src/mcp/bin.ts" }, format: ["esm"], dts: false, clean: false },
]);

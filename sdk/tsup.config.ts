// The package build: ESM and CommonJS with type declarations for the core client ("."), the AI SDK
// adapter ("./ai") and the MCP server ("./mcp"), plus the stdio server's program (ESM, for bin/). Peer
// dependencies stay external; the core client uses only web-standard APIs (fetch, streams,
// TextEncoder, crypto.randomUUID), so the same build runs in Node 20+, browsers and edge runtimes.
// The shared core (@agent-rental/core: the agent tool definitions, the MCP tool server) is bundled in,
// code and declarations, so the packed SDK depends on no package of this repository.
import { defineConfig, type Options } from "tsup";

const CORE = /^@agent-rental\/core(\/|$)/;

const shared: Options = {
  tsconfig: "tsconfig.json",
  target: "es2022",
  platform: "neutral",
  external: ["ai", "zod", /^@modelcontextprotocol\/sdk/],
  noExternal: [CORE],
  splitting: false,
  sourcemap: true,
  outDir: "dist",
};

export default defineConfig([
  { ...shared, entry: { index: "src/index.ts", ai: "src/tools/ai-sdk.ts", mcp: "src/mcp/server.ts" }, format: ["esm", "cjs"], dts: { resolve: [CORE] }, clean: true },
  { ...shared, entry: { "mcp-bin": "src/mcp/bin.ts" }, format: ["esm"], dts: false, clean: false },
]);

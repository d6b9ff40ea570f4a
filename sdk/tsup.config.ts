// The package build: ESM and CommonJS with type declarations for the core client ("."), the AI SDK
// adapter ("./ai"), the MCP server ("./mcp") and ERC-8004 reputation checks ("./erc8004", on viem), plus the stdio server's program (ESM, for bin/). Peer
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
  external: ["ai", "zod", "viem", /^@modelcontextprotocol\/sdk/],
  noExternal: [CORE],
  splitting: false,
  sourcemap: true,
  outDir: "dist",
};

export default defineConfig([
  { ...shared, entry: { index: "src/index.ts", ai: "src/tools/ai-sdk.ts", mcp: "src/mcp/server.ts", erc8004: "src/erc8004.ts" }, format: ["esm", "cjs"], dts: { resolve: [CORE] }, clean: true },
  { ...shared, entry: { "mcp-bin": "src/mcp/bin.ts" }, format: ["esm"], dts: false, clean: false },
]);

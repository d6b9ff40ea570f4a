// The package build: ESM and CommonJS with type declarations for the core client ("."), the AI SDK
// adapter ("./ai"), the MCP server ("./mcp") and ERC-8004 reputation checks ("./erc8004", on viem), plus the stdio server's program (ESM, for bin/). Peer
// dependencies stay external; the core client uses only web-standard APIs (fetch, streams,
// TextEncoder, crypto.randomUUID), so the same build runs in Node 20+, browsers and edge runtimes.
import { defineConfig, type Options } from "tsup";

const shared: Options = {
  tsconfig: "tsconfig.json",
  target: "es2022",
  platform: "neutral",
  external: ["ai", "zod", "viem", /^@modelcontextprotocol\/sdk/],
  splitting: false,
  sourcemap: true,
  outDir: "dist",
};

export default defineConfig([
  { ...shared, entry: { index: "src/index.ts", ai: "src/tools/ai-sdk.ts", mcp: "src/mcp/server.ts", erc8004: "src/erc8004.ts" }, format: ["esm", "cjs"], dts: true, clean: true },
  { ...shared, entry: { "mcp-bin": "src/mcp/bin.ts" }, format: ["esm"], dts: false, clean: false },
]);

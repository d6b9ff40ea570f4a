#!/usr/bin/env node
// Launches the stdio MCP server: the compiled build when present (dist/), else the TypeScript sources
// through tsx. Configuration: AGENT_RENTAL_API_URL and AGENT_RENTAL_API_KEY in the environment.
import { existsSync } from "node:fs";

const built = new URL("../dist/mcp/main.js", import.meta.url);
let main;
if (existsSync(built)) {
  ({ main } = await import(built.href));
} else {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import(new URL("../src/mcp/main.ts", import.meta.url).href));
}
try {
  const code = await main();
  if (code !== undefined) process.exitCode = code;
} catch (error) {
  process.stderr.write(`agent-rental-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}

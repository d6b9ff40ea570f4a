#!/usr/bin/env node
// The stdio MCP server. Configuration: AGENT_RENTAL_API_URL and AGENT_RENTAL_API_KEY in the environment.
// The server is built on the MCP SDK, an optional peer dependency of this package (the client needs
// none): installed without it, the program says what to install instead of failing with a stack trace.
import { readFileSync } from "node:fs";

const MCP_SDK = "@modelcontextprotocol/sdk";

try {
  await import("../dist/mcp-bin.js");
} catch (error) {
  const missing = error?.code === "ERR_MODULE_NOT_FOUND" && String(error.message).includes(`'${MCP_SDK}'`);
  if (!missing) throw error;
  const { name, peerDependencies } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  const range = peerDependencies?.[MCP_SDK];
  process.stderr.write(
    `agent-rental-mcp: the MCP server needs ${MCP_SDK}, an optional peer dependency of ${name} that is not installed.\n` +
      `Install it beside ${name}:\n\n  npm install ${MCP_SDK}${range ? `@"${range}"` : ""}\n\n`,
  );
  process.exitCode = 1;
}

// The `agent-rental-mcp` program: runs the stdio MCP server and turns its outcome into an exit code.
import { main } from "./main.ts";

declare const process: { exitCode?: number | undefined; stderr: { write(text: string): unknown } };

try {
  const code = await main();
  if (code !== undefined) process.exitCode = code;
} catch (error) {
  process.stderr.write(`agent-rental-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}

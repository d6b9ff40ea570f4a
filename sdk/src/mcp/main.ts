// The stdio MCP server as a program. Configuration comes from the environment only (an API key never
// goes on a command line, where other users of the machine can read it):
//   AGENT_RENTAL_API_URL  the API base URL, for example https://api.example.com (required)
//   AGENT_RENTAL_API_KEY  an API key of the renting wallet (required)
//   AGENT_RENTAL_REFRESH_SECONDS  how often the rented agents are listed again (default 60; 0: never)
// stdout is the MCP channel: diagnostics go to stderr, and never carry the key.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { AgentRentalClient } from "../client.ts";
import { loadAgentMcpServer } from "./server.ts";

// The few Node.js globals this program uses (the SDK compiles without Node's type definitions).
declare const process: {
  argv: string[];
  env: Record<string, string | undefined>;
  stderr: { write(text: string): unknown };
  stdin: { once(event: "end", listener: () => void): unknown };
  once(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
  exit(code?: number): never;
};

const USAGE = `agent-rental-mcp: an MCP server (stdio) exposing your rented agents as tools.

Environment:
  AGENT_RENTAL_API_URL  the API base URL, for example https://api.example.com (required)
  AGENT_RENTAL_API_KEY  an API key of the renting wallet (required)
  AGENT_RENTAL_REFRESH_SECONDS  how often the rented agents are listed again, so a new rental gains its
                        tool and an ended one loses it (default 60; 0: only at start)
`;

function log(message: string): void {
  process.stderr.write(`agent-rental-mcp: ${message}\n`);
}

export async function main(argv: string[] = process.argv.slice(2), env: Record<string, string | undefined> = process.env): Promise<number | undefined> {
  // Anything a dependency prints must not corrupt the protocol on stdout.
  console.log = console.info = console.debug = console.warn = (...args: unknown[]) => console.error(...args);
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stderr.write(USAGE);
    return 0;
  }
  if (argv.length > 0) {
    log(`unexpected arguments (${argv.length}); configuration is read from the environment only.\n\n${USAGE}`);
    return 2;
  }
  const baseUrl = env.AGENT_RENTAL_API_URL?.trim();
  const apiKey = env.AGENT_RENTAL_API_KEY?.trim();
  if (!baseUrl || !apiKey) {
    log(`${!baseUrl ? "AGENT_RENTAL_API_URL" : "AGENT_RENTAL_API_KEY"} is not set.\n\n${USAGE}`);
    return 2;
  }
  let client: AgentRentalClient;
  try {
    new URL(baseUrl);
    client = new AgentRentalClient({ baseUrl, apiKey });
  } catch {
    log("AGENT_RENTAL_API_URL is not a valid URL.");
    return 2;
  }
  const refreshText = env.AGENT_RENTAL_REFRESH_SECONDS?.trim();
  const refreshSeconds = refreshText === undefined || refreshText === "" ? 60 : Number(refreshText);
  if (!Number.isInteger(refreshSeconds) || refreshSeconds < 0 || refreshSeconds > 86_400) {
    log(`AGENT_RENTAL_REFRESH_SECONDS must be a whole number of seconds from 0 to 86400.\n\n${USAGE}`);
    return 2;
  }
  const { server, refresh } = await loadAgentMcpServer(client, { secrets: [apiKey], log });
  // The next refresh starts only after the previous one ended.
  let refreshTimer: ReturnType<typeof setTimeout> | undefined;
  const scheduleRefresh = () => {
    if (refreshSeconds === 0) return;
    refreshTimer = setTimeout(() => void refresh().finally(scheduleRefresh), refreshSeconds * 1000);
  };
  scheduleRefresh();
  const transport = new StdioServerTransport();
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    if (refreshTimer !== undefined) clearTimeout(refreshTimer);
    void server.close().finally(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
  process.stdin.once("end", shutdown);
  await server.connect(transport);
  log(`ready (${baseUrl})`);
  return undefined;
}

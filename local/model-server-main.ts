// Runs the deterministic model server on its own, for pointing an agent runtime or a curl at it by hand:
// `PORT=4010 node --import tsx local/model-server-main.ts` (PORT omitted: a free port; MODEL_API_KEY set:
// requests must carry that key). It prints the base URLs and stops cleanly on SIGINT/SIGTERM.
import { startModelServer } from "./model-server.ts";

const port = process.env.PORT ? Number(process.env.PORT) : 0;
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, got ${JSON.stringify(process.env.PORT)}`);
  process.exit(2);
}

const server = await startModelServer({
  port,
  ...(process.env.HOST ? { host: process.env.HOST } : {}),
  ...(process.env.MODEL_API_KEY ? { apiKey: process.env.MODEL_API_KEY } : {}),
});
console.log(`model server listening on ${server.url}`);
console.log(`  OpenAI chat completions: ${server.openaiBaseUrl}/chat/completions`);
console.log(`  Anthropic messages:      ${server.anthropicBaseUrl}/messages`);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    server.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
}

// The agentrent process: runs `main` on the process's arguments, turns Ctrl-C into an abort the running
// command reports (a run prints its id and how to resume or read it, then exits 130), and exits.
import { main } from "./main.ts";

const interrupt = new AbortController();
// The first Ctrl-C asks the command to stop and report; a second one stops at once.
process.once("SIGINT", () => {
  interrupt.abort();
  process.once("SIGINT", () => process.exit(130));
});
const code = await main(process.argv.slice(2), { signal: interrupt.signal });
// Let stdout drain (a pipe may be slow), then exit: open HTTP keep-alive sockets must not hold the process.
await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
process.exit(code);

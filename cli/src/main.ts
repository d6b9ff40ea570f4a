// agentrent: the command line of the agent rental service. Exit codes are in errors.ts (EXIT).
import { runCli } from "./cli.ts";
import { COMMANDS } from "./commands.ts";

const code = await runCli(process.argv.slice(2), COMMANDS, process.env);
// Let stdout drain (a pipe may be slow), then exit: open HTTP keep-alive sockets must not hold the process.
await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
process.exit(code);

// agentrent: the command line of the agent rental service. `main` runs one command line with the given
// streams, environment, working directory and abort signal, and returns the exit code (errors.ts: EXIT);
// bin.ts is the process around it. Tests call `main` in-process.
import { runCli, type RunOptions } from "./cli.ts";
import { COMMANDS } from "./commands.ts";
import type { Streams } from "./output.ts";
import type { Env } from "./settings.ts";

export interface MainOptions extends RunOptions {
  env?: Env;
  stdout?: Streams["stdout"];
  stderr?: Streams["stderr"];
}

/** Runs `agentrent <argv>`; resolves to the exit code. Never throws. */
export function main(argv: string[], options: MainOptions = {}): Promise<number> {
  const streams: Streams = { stdout: options.stdout ?? process.stdout, stderr: options.stderr ?? process.stderr };
  return runCli(argv, COMMANDS, options.env ?? process.env, streams, options);
}

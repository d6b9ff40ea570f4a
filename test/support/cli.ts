// The `agentrent` binary as its users run it, for the CLI's end-to-end suites: each actor (a wallet)
// gets its own HOME and config directory, settings come from AGENTRENT_* variables, and every process
// is bounded by a kill and stopped at the end.
import { spawn, type ChildProcess } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// The CLI's sources through tsx (the packed, bundled bin is run by test/packages).
const MAIN = join(dirname(fileURLToPath(import.meta.url)), "../../cli/src/main.ts");

export type CliEnv = Record<string, string>;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  done: Promise<CliResult>;
}

export interface CliActor {
  /** Wallet key the CLI signs with (AGENTRENT_PRIVATE_KEY). */
  privateKey: string;
}

export interface CliService {
  apiUrl: string;
  rpcUrl: string;
  chainId: number;
  marketplace: string;
}

/** Runs the binary in `work`, with actors' environments built against `service()` (read when called). */
export function createCliHarness(work: string, service: () => CliService) {
  const children = new Set<ChildProcess>();

  /** The environment of one actor: the test process's own variables without any AGENTRENT_ one. */
  function actorEnv(actor: CliActor, name: string): CliEnv {
    const home = join(work, name);
    const env: CliEnv = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith("AGENTRENT_")) env[key] = value;
    const { apiUrl, rpcUrl, chainId, marketplace } = service();
    return {
      ...env,
      HOME: home,
      AGENTRENT_CONFIG_DIR: join(home, "config"),
      AGENTRENT_API_URL: apiUrl,
      AGENTRENT_RPC_URL: rpcUrl,
      AGENTRENT_CHAIN_ID: String(chainId),
      AGENTRENT_MARKETPLACE: marketplace,
      AGENTRENT_PRIVATE_KEY: actor.privateKey,
    };
  }

  /** Spawns the binary; bounded by a kill after `timeoutMs`. */
  function start(env: CliEnv, args: string[], timeoutMs = 90_000): RunningCli {
    const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    const done = new Promise<CliResult>((resolve) =>
      child.once("close", (code) => {
        clearTimeout(timer);
        children.delete(child);
        resolve({ code, stdout, stderr });
      }),
    );
    return { child, stdout: () => stdout, done };
  }

  /** Runs the binary to its end. */
  const cli = (env: CliEnv, args: string[], timeoutMs?: number): Promise<CliResult> => start(env, args, timeoutMs).done;

  /** Runs with --json and expects exit 0; returns the parsed document. */
  async function cliJson<T = Record<string, unknown>>(env: CliEnv, args: string[]): Promise<T> {
    const result = await cli(env, [...args, "--json"]);
    if (result.code !== 0) throw new Error(`agentrent ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  }

  /** Kills every process still running (afterAll). */
  const killAll = () => {
    for (const child of children) child.kill("SIGKILL");
  };

  return { actorEnv, start, cli, cliJson, killAll };
}

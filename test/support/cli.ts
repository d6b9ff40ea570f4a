// The `agentrent` command line as its users run it, for the CLI's end-to-end suites, run in-process:
// the CLI's own entry (`main` in cli/src/main.ts) with the arguments, an environment, a working
// directory and captured stdout and stderr, resolving to the exit code. Each actor (a wallet) gets its
// own HOME and config directory, and settings come from AGENTRENT_* variables. A run can have terminals
// for stdout and stderr (isTTY), as an interactive shell gives it. Every run is bounded: past its time
// limit it is aborted as Ctrl-C would (the packed, bundled binary is spawned by test/cli/cli.test.ts
// and test/packages).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { Writable } from "node:stream";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { main } from "../../cli/src/main.ts";
import type { World } from "./world-on.ts";

export type CliEnv = Record<string, string>;

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Builds the CLI's bundle (cli/tsup.config.ts) into `dir`/dist with its bin beside it (`dir`/bin, the
 * package's layout), and returns the bin's path. Each suite builds into a directory of its own: the
 * build empties its output directory first, so two suites building cli/dist at once would take the
 * bundle away from under each other's running commands.
 */
export function buildCliBin(dir: string, timeoutMs = 240_000): string {
  const build = spawnSync(process.execPath, [join(root, "node_modules/tsup/dist/cli-default.js"), "--out-dir", join(dir, "dist")], { cwd: join(root, "cli"), encoding: "utf8", timeout: timeoutMs });
  if (build.status !== 0) throw new Error(`the CLI's build failed: ${build.stderr || build.error?.message}`);
  mkdirSync(join(dir, "bin"), { recursive: true });
  copyFileSync(join(root, "cli/bin/agentrent.mjs"), join(dir, "bin/agentrent.mjs"));
  return join(dir, "bin/agentrent.mjs");
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface RunningCli {
  stdout(): string;
  stderr(): string;
  /** Presses Ctrl-C. */
  interrupt(): void;
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

export interface StartOptions {
  /** Aborted (as Ctrl-C) after this long. Default 90 s. */
  timeoutMs?: number;
  /** stdout and stderr are terminals (isTTY), as in an interactive shell: progress is a spinner. */
  tty?: boolean;
}

function sink(append: (text: string) => void, tty: boolean): Writable {
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      append(chunk.toString());
      done();
    },
  });
  return tty ? Object.assign(stream, { isTTY: true, columns: 120 }) : stream;
}

/** What a terminal shows of `text`: each line as left by carriage returns and erase-line sequences. */
export function rendered(text: string): string[] {
  return text.split("\n").map((line) => (line.split("\r").at(-1) ?? "").replaceAll("\u001b[2K", ""));
}

/** Runs the CLI in `cwd` with `env`; aborted (as Ctrl-C) after `timeoutMs`. */
export function startCli(cwd: string, env: CliEnv, args: string[], options: StartOptions = {}): RunningCli {
  let stdout = "";
  let stderr = "";
  const tty = options.tty ?? false;
  const interrupt = new AbortController();
  const timer = setTimeout(() => interrupt.abort(), options.timeoutMs ?? 90_000);
  const done = main(args, { env, cwd, signal: interrupt.signal, stdout: sink((s) => (stdout += s), tty), stderr: sink((s) => (stderr += s), tty) }).then((code) => {
    clearTimeout(timer);
    return { code, stdout, stderr };
  });
  return { stdout: () => stdout, stderr: () => stderr, interrupt: () => interrupt.abort(), done };
}

/** The manifest of a connected researcher as the end-to-end suites register it from a file: it takes a
 * topic and answers findings. */
export function researcherManifest(name: string, description: string) {
  return {
    name,
    category: "research",
    description,
    model: { provider: "provider_a", model: "m" },
    input_schema: { type: "object", properties: { topic: { type: "string" } }, additionalProperties: false },
    output_schema: { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] },
    timeout_seconds: 30,
  };
}

/** Runs the CLI in `work`, with actors' environments built against `service()` (read when called). */
export function createCliHarness(work: string, service: () => CliService) {
  const running = new Set<RunningCli>();

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

  /** Starts a command line; bounded by an abort after its time limit. */
  function start(env: CliEnv, args: string[], options: StartOptions = {}): RunningCli {
    const run = startCli(work, env, args, options);
    running.add(run);
    void run.done.finally(() => running.delete(run));
    return run;
  }

  /** Runs a command line to its end. */
  const cli = (env: CliEnv, args: string[], options?: StartOptions): Promise<CliResult> => start(env, args, options).done;

  /** Runs with --json and expects exit 0; returns the parsed document. */
  async function cliJson<T = Record<string, unknown>>(env: CliEnv, args: string[]): Promise<T> {
    const result = await cli(env, [...args, "--json"]);
    if (result.code !== 0) throw new Error(`agentrent ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout) as T;
  }

  /** Interrupts every command line still running and waits for them (afterAll). */
  const killAll = async () => {
    const left = [...running];
    for (const run of left) run.interrupt();
    await Promise.all(left.map((run) => run.done));
  };

  return { actorEnv, start, cli, cliJson, killAll };
}

/**
 * The harness of a suite against a test world: a fresh working folder named from `prefix`, and actors
 * pointed at `world()`'s API, chain and marketplace (read when called). `close()`, for afterAll,
 * interrupts every command line still running, closes the world, and removes the folder.
 *
 * @example
 * let world: World;
 * const { work, actorEnv, cli, close } = createWorldCliHarness("agentrent-e2e-", () => world);
 * beforeAll(async () => (world = await startWorld({ agent: true })));
 * afterAll(close, 60_000);
 */
export function createWorldCliHarness(prefix: string, world: () => World | undefined) {
  const work = mkdtempSync(join(tmpdir(), prefix));
  const harness = createCliHarness(work, () => {
    const { url, rpcUrl, config } = world()!;
    return { apiUrl: url, rpcUrl, chainId: 31337, marketplace: config.MARKETPLACE_ADDRESS };
  });
  async function close(): Promise<void> {
    await harness.killAll();
    await world()?.close();
    rmSync(work, { recursive: true, force: true });
  }
  return { work, ...harness, close };
}

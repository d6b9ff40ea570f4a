// The command line: a table of commands, each parsed with node:util parseArgs (strict), global flags
// accepted anywhere, and the dispatcher that turns every failure into a message and an exit code.
import { readFileSync } from "node:fs";
import { resolve as resolvePath } from "node:path";
import { parseArgs, type ParseArgsOptionsConfig } from "node:util";
import { CliError, EXIT, toCliError, usageError } from "./errors.ts";
import { Output, type Streams } from "./output.ts";
import { resolveSettings, type Env, type GlobalFlags, type Settings } from "./settings.ts";
import { Prompter, type InputStream } from "./prompt.ts";

// Set by the package build; the sources (run through tsx in development) read cli/package.json.
declare const __CLI_VERSION__: string | undefined;

/** The CLI's version (the package's). */
export function cliVersion(): string {
  if (typeof __CLI_VERSION__ === "string") return __CLI_VERSION__;
  try {
    return (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
  } catch {
    return "0.0.0-dev";
  }
}

export type FlagValues = Record<string, string | boolean | string[] | undefined>;

export interface CommandContext {
  args: string[];
  flags: FlagValues;
  env: Env;
  out: Output;
  /** The working directory relative paths (manifests, --out, @file) are read against. */
  cwd: string;
  /** Questions to the person at the terminal (the command's stdin and stderr). */
  prompt: Prompter;
  /** Aborted when the person presses Ctrl-C (SIGINT): a run in progress stops and says how to resume it. */
  signal: AbortSignal;
  /** `path` resolved against `cwd`. */
  path(path: string): string;
  /** Resolved on first use, so commands that need no settings work without any. */
  settings(): Settings;
}

/** A flag: how the parser reads it, and what `--help` says about it. */
export interface Flag {
  type: "string" | "boolean";
  /** A one-letter alias (`-t`). */
  short?: string;
  /** The value's name in help, for a string flag (default `<value>`). */
  value?: string;
  /** What it means, one line. */
  description: string;
}

export type Flags = Record<string, Flag>;

export interface Command {
  /** The words that name it: "search", "keys create". */
  path: string;
  summary: string;
  /** Argument synopsis after the command words, e.g. "<listing> [--model one_time|subscription|per_query]". */
  usage: string;
  /** The positional arguments, described in help: `<listing>  the agent id, …`. */
  arguments?: string[];
  /** What else a user should know (not the flags: those describe themselves), one line each. */
  notes?: string[];
  /** Command lines that work as written (placeholders in <angle brackets> aside), shown by `help <command>`. */
  examples: string[];
  /** The command reports Ctrl-C itself (a run says how to resume); others are stopped by the dispatcher. */
  handlesInterrupt?: boolean;
  options?: Flags;
  /** Positional arguments accepted: [min, max]. Default [0, 0]. */
  args?: [number, number];
  run(ctx: CommandContext): Promise<number | void>;
}

export const GLOBAL_OPTIONS = {
  json: { type: "boolean", description: "one JSON document on stdout (for scripts)" },
  help: { type: "boolean", short: "h", description: "help (the overview, or one command's)" },
  "api-url": { type: "string", value: "<url>", description: "the API (AGENTRENT_API_URL)" },
  "rpc-url": { type: "string", value: "<url>", description: "the chain's JSON-RPC endpoint (AGENTRENT_RPC_URL)" },
  "chain-id": { type: "string", value: "<id>", description: "the chain id (AGENTRENT_CHAIN_ID)" },
  marketplace: { type: "string", value: "<address>", description: "the marketplace contract (AGENTRENT_MARKETPLACE)" },
  stack: { type: "string", value: "<file>", description: "a local stack's stack.json (default: .local/stack.json found from the working directory)" },
  keystore: { type: "string", value: "<file>", description: "an encrypted v3 keystore (AGENTRENT_KEYSTORE)" },
} as const satisfies Flags;

/** The parser's configuration of `flags` (what node:util parseArgs reads). */
function parserOptions(flags: Flags): ParseArgsOptionsConfig {
  return Object.fromEntries(Object.entries(flags).map(([name, f]) => [name, f.short ? { type: f.type, short: f.short } : { type: f.type }]));
}

/** `--name <value>` with its alias, as help shows a flag. */
function flagLabel(name: string, flag: Flag): string {
  return `${flag.short ? `-${flag.short}, ` : ""}--${name}${flag.type === "string" ? ` ${flag.value ?? "<value>"}` : ""}`;
}

/** Aligned `label  description` lines. */
function flagLines(flags: Flags): string[] {
  const labels = Object.entries(flags).map(([name, flag]) => [flagLabel(name, flag), flag.description] as const);
  const width = Math.max(0, ...labels.map(([label]) => label.length));
  return labels.map(([label, description]) => `  ${label.padEnd(width)}  ${description}`);
}

const GLOBAL_HELP = flagLines(GLOBAL_OPTIONS);

export interface ParsedCommandLine {
  command: Command | undefined;
  /** The command words typed when they name a group or nothing ("keys"). */
  words: string[];
  values: FlagValues;
  positionals: string[];
}

/** Finds the command words (the first one or two arguments that are not flags) and parses the rest strictly. */
export function parseCommandLine(argv: string[], commands: Command[]): ParsedCommandLine {
  const globalsWithValue = new Set(Object.entries(GLOBAL_OPTIONS).filter(([, o]) => o.type === "string").map(([name]) => `--${name}`));
  const wordIndexes: number[] = [];
  for (let i = 0; i < argv.length && wordIndexes.length < 2; i++) {
    const token = argv[i]!;
    if (token === "--") break;
    if (token.startsWith("-")) {
      if (globalsWithValue.has(token)) i++;
      continue;
    }
    wordIndexes.push(i);
  }
  const words = wordIndexes.map((i) => argv[i]!);
  const byPath = new Map(commands.map((c) => [c.path, c]));
  let matched = 0;
  let command: Command | undefined;
  if (words.length >= 2 && byPath.has(`${words[0]} ${words[1]}`)) {
    command = byPath.get(`${words[0]} ${words[1]}`);
    matched = 2;
  } else if (words.length >= 1 && byPath.has(words[0]!)) {
    command = byPath.get(words[0]!);
    matched = 1;
  }
  const rest = argv.filter((_, i) => !wordIndexes.slice(0, matched).includes(i));
  if (!command) {
    const group = words[0];
    const members = group === undefined ? [] : commands.filter((c) => c.path.startsWith(`${group} `));
    if (group !== undefined && group !== "help" && members.length === 0) throw usageError(`Unknown command "${group}". ${suggest(group, commands)}`.trim());
    if (group !== undefined && members.length > 0 && words[1] !== undefined) throw usageError(`Unknown command "${group} ${words[1]}". The ${group} commands: ${members.map((m) => m.path).join(", ")}.`);
    const values = parseFlags(rest.filter((t) => t !== group), parserOptions(GLOBAL_OPTIONS), "agentrent").values;
    return { command: undefined, words: group === undefined ? [] : [group], values, positionals: [] };
  }
  const parsed = parseFlags(rest, parserOptions({ ...GLOBAL_OPTIONS, ...(command.options ?? {}) }), command.path);
  return { command, words: command.path.split(" "), values: parsed.values, positionals: parsed.positionals };
}

function parseFlags(args: string[], options: ParseArgsOptionsConfig, where: string): { values: FlagValues; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args, options, allowPositionals: true, strict: true });
    return { values: values as FlagValues, positionals };
  } catch (error) {
    throw usageError(parserMessage(error, options, where));
  }
}

/** node:util's parser errors in the CLI's own words (its messages name Node's API, not ours). */
export function parserMessage(error: unknown, options: ParseArgsOptionsConfig, where: string): string {
  const code = (error as { code?: string }).code;
  const text = error instanceof Error ? error.message : String(error);
  // Node quotes the flag as typed ('--x', '-x') or as declared ('-t, --task <value>'): prefer the long name.
  const quoted = /'([^']*)'/.exec(text)?.[1] ?? "";
  const flag = /--[\w-]+/.exec(quoted)?.[0] ?? /-\w/.exec(quoted)?.[0] ?? quoted;
  const name = flag.replace(/^-+/, "");
  const known = Object.entries(options).find(([long, o]) => long === name || o.short === name);
  const command = where === "agentrent" ? "agentrent" : `agentrent ${where}`;
  const flags = Object.keys(options).filter((n) => !(n in GLOBAL_OPTIONS)).map((n) => `--${n}`);
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const close = flags.filter((f) => distance(f, flag) <= 2);
      return `${command} has no flag ${flag}.${close.length ? ` Did you mean ${close.join(" or ")}?` : flags.length ? ` Its flags: ${flags.join(", ")}.` : " It takes only the global flags."}`;
    }
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return known?.[1].type === "string" ? `--${known[0]} needs a value (for example --${known[0]} <value>).` : `--${known?.[0] ?? name} takes no value.`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `${command} takes no argument ${/'([^']*)'/.exec(text)?.[1] ?? ""}`.trim() + ".";
    default:
      return `${command}: the arguments could not be read.`;
  }
}

function suggest(word: string, commands: Command[]): string {
  const tops = [...new Set(commands.map((c) => c.path.split(" ")[0]!))];
  const close = tops.filter((t) => t.startsWith(word.slice(0, 2)) || distance(t, word) <= 2);
  return close.length > 0 ? `Did you mean: ${close.join(", ")}?` : "";
}

function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length]![b.length]!;
}

/** One command's help: its synopsis, what it does, its arguments and flags (each described), notes, examples. */
export function commandHelp(command: Command): string {
  const lines = [`agentrent ${command.path}${command.usage ? ` ${command.usage}` : ""}`, "", command.summary];
  if (command.arguments?.length) lines.push("", "Arguments:", ...command.arguments.map((l) => `  ${l}`));
  if (command.options && Object.keys(command.options).length > 0) lines.push("", "Flags:", ...flagLines(command.options));
  if (command.notes?.length) lines.push("", ...command.notes);
  if (command.examples.length) lines.push("", "Examples:", ...command.examples.map((l) => `  $ ${l}`));
  lines.push("", "Global flags:", ...GLOBAL_HELP);
  return lines.join("\n");
}

export function overview(commands: Command[], group?: string): string {
  const shown = group ? commands.filter((c) => c.path.startsWith(`${group} `)) : commands;
  const width = Math.max(...shown.map((c) => c.path.length));
  const lines = [
    group ? `agentrent ${group} <command>` : "agentrent <command> [arguments] [flags]",
    "",
    ...shown.map((c) => `  ${c.path.padEnd(width)}  ${c.summary}`),
    "",
    "Global flags:",
    ...GLOBAL_HELP,
    "",
    "`agentrent help <command>` or `agentrent <command> --help` describes one command; `agentrent completion",
    "bash|zsh|fish` prints shell completion; `agentrent --version` the version. Exit codes: 0 ok, 1 failure, 2 usage, 3 auth,",
    "4 access or payment refused, 5 not found, 6 invalid manifest, 7 rate limited, 8 unavailable, 130 interrupted (Ctrl-C).",
  ];
  return lines.join("\n");
}

export interface RunOptions {
  /** Default: the process's working directory. */
  cwd?: string;
  /** Default: never aborted. */
  signal?: AbortSignal;
  /** Where answers to questions are read. Default: the process's stdin. */
  stdin?: InputStream;
}

/** Runs the command line; returns the exit code. Never throws. */
export async function runCli(argv: string[], commands: Command[], env: Env = process.env, streams?: Streams, options: RunOptions = {}): Promise<number> {
  const cwd = options.cwd ?? process.cwd();
  const signal = options.signal ?? new AbortController().signal;
  const json = argv.includes("--json");
  let out = new Output(json, streams);
  let prompt: Prompter | undefined;
  try {
    if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-v" || argv[0] === "version")) {
      out.streams.stdout.write(`agentrent ${cliVersion()}\n`);
      return EXIT.ok;
    }
    // `agentrent help <command>` is `agentrent <command> --help`.
    if (argv[0] === "help" && argv.length > 1 && !argv[1]!.startsWith("-")) return runCli([...argv.slice(1), "--help"], commands, env, streams, options);
    const parsed = parseCommandLine(argv, commands);
    out = new Output(parsed.values.json === true, streams);
    if (!parsed.command) {
      const group = parsed.words[0];
      const text = overview(commands, group === "help" ? undefined : group);
      if (group === undefined || group === "help" || parsed.values.help === true) {
        out.streams.stdout.write(text + "\n");
        return group === undefined && parsed.values.help !== true ? EXIT.usage : EXIT.ok;
      }
      out.streams.stderr.write(text + "\n");
      return EXIT.usage;
    }
    const command = parsed.command;
    if (parsed.values.help === true) {
      out.streams.stdout.write(commandHelp(command) + "\n");
      return EXIT.ok;
    }
    const [min, max] = command.args ?? [0, 0];
    if (parsed.positionals.length < min) throw usageError(`agentrent ${command.path} ${command.usage}: missing argument${min - parsed.positionals.length > 1 ? "s" : ""}.`);
    if (parsed.positionals.length > max) throw usageError(`agentrent ${command.path}: unexpected argument ${JSON.stringify(parsed.positionals[max])}.`);
    let settings: Settings | undefined;
    prompt = new Prompter(options.stdin ?? process.stdin, out.streams.stderr);
    const ctx: CommandContext = {
      args: parsed.positionals,
      flags: parsed.values,
      env,
      out,
      cwd,
      signal,
      prompt,
      path: (path) => resolvePath(cwd, path),
      settings: () => (settings ??= resolveSettings(parsed.values as GlobalFlags, env, cwd)),
    };
    const running = command.run(ctx);
    if (command.handlesInterrupt) return (await running) ?? EXIT.ok;
    // A command that does not report Ctrl-C itself stops at once (nothing it started is left half-done
    // by us: a sent transaction is mined or not whatever the CLI does).
    let onAbort = () => {};
    const interrupted = new Promise<never>((_, reject) => {
      onAbort = () => reject(new CliError("Interrupted.", EXIT.interrupted, "interrupted"));
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return (await Promise.race([running, interrupted])) ?? EXIT.ok;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  } catch (error) {
    const cliError = toCliError(error);
    out.error(cliError);
    return cliError.exitCode;
  } finally {
    prompt?.close();
  }
}

/** A string flag's value (or undefined). */
export function stringFlag(flags: FlagValues, name: string): string | undefined {
  const value = flags[name];
  return typeof value === "string" ? value : undefined;
}

export function requireFlag(flags: FlagValues, name: string, what: string): string {
  const value = stringFlag(flags, name);
  if (value === undefined || value === "") throw usageError(`--${name} is required: ${what}.`);
  return value;
}

export function intFlag(flags: FlagValues, name: string, min: number, max: number): number | undefined {
  const value = stringFlag(flags, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) throw usageError(`--${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(value)}.`);
  return n;
}

export function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw usageError(`${flag} must be one of ${allowed.join(", ")}, not ${JSON.stringify(value)}.`);
  return value as T;
}

export { CliError, EXIT };

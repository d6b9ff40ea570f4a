// Where things are: the API URL, the RPC URL, the chain id and the marketplace address, resolved from
// flags, then environment variables, then the config file, then the local stack's .local/stack.json;
// and the config file itself (defaults and signed-in sessions), mode 0600.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { keccak_256 } from "@noble/hashes/sha3";
import { CliError, EXIT, usageError } from "./errors.ts";

export type Env = Record<string, string | undefined>;

export const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** EIP-55 mixed-case checksum of an address (what viem's getAddress gives, without loading viem). */
export function checksumAddress(address: string): `0x${string}` {
  const hex = address.slice(2).toLowerCase();
  const hash = Array.from(keccak_256(new TextEncoder().encode(hex)), (b) => b.toString(16).padStart(2, "0")).join("");
  return `0x${[...hex].map((c, i) => (parseInt(hash[i]!, 16) >= 8 ? c.toUpperCase() : c)).join("")}`;
}

export interface Session {
  wallet: string;
  token: string;
  /** Unix seconds. */
  expires_at: number;
}

export interface ConfigFile {
  api_url?: string;
  rpc_url?: string;
  chain_id?: number;
  marketplace?: string;
  /** The TokenMarketplace (listings priced in a token). */
  token_marketplace?: string;
  keystore?: string;
  /** Signed-in sessions by API URL. */
  sessions?: Record<string, Session>;
}

export const CONFIG_KEYS = ["api_url", "rpc_url", "chain_id", "marketplace", "token_marketplace", "keystore"] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** The local stack's description (written by `npm start`), the part the CLI reads. */
export interface StackFile {
  api_url?: string;
  rpc_url?: string;
  chain_id?: number;
  contracts?: { marketplace?: string; token_marketplace?: string };
  accounts?: { address: string; role: string }[];
}

export interface Settings {
  apiUrl: string | undefined;
  rpcUrl: string | undefined;
  chainId: number | undefined;
  /** 0x + 40 hex as given (checksummed when the chain is used). */
  marketplace: `0x${string}` | undefined;
  /** The TokenMarketplace, where listings priced in a token are rented (AGENTRENT_TOKEN_MARKETPLACE). */
  tokenMarketplace: `0x${string}` | undefined;
  /** Where each value came from (flag, env, config, stack), for `config show`. */
  sources: Record<string, string>;
  configDir: string;
  configFile: string;
  stackFile: string | undefined;
  keystore: string | undefined;
  /** With `lenient`, the settings that could not be used (left unset), each with how to fix it. */
  problems: string[];
}

export interface GlobalFlags {
  "api-url"?: string | undefined;
  "rpc-url"?: string | undefined;
  "chain-id"?: string | undefined;
  marketplace?: string | undefined;
  stack?: string | undefined;
  keystore?: string | undefined;
}

/** The config directory: AGENTRENT_CONFIG_DIR, else $XDG_CONFIG_HOME/agentrent, else ~/.config/agentrent. */
export function configDir(env: Env): string {
  if (env.AGENTRENT_CONFIG_DIR) return resolve(env.AGENTRENT_CONFIG_DIR);
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "agentrent");
}

export function readConfig(file: string): ConfigFile {
  if (!existsSync(file)) return {};
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as unknown;
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as ConfigFile) : {};
  } catch {
    throw new CliError(`The config file ${file} is not valid JSON; fix or delete it.`, EXIT.usage, "bad_config");
  }
}

/** Writes the config file atomically, the directory 0700 and the file 0600 (it holds session tokens). */
export function writeConfig(file: string, config: ConfigFile): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, JSON.stringify(config, null, 2) + "\n", { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

/** .local/stack.json: AGENTRENT_STACK_FILE or --stack, else $LOCAL_DATA_DIR/stack.json, else the first .local/stack.json from the working directory up. */
export function findStackFile(env: Env, flag: string | undefined, cwd = process.cwd()): string | undefined {
  const explicit = flag ?? env.AGENTRENT_STACK_FILE;
  if (explicit) {
    if (!existsSync(explicit)) throw usageError(`The stack file ${explicit} does not exist (is the local stack running? \`npm start\`).`);
    return resolve(explicit);
  }
  if (env.LOCAL_DATA_DIR && existsSync(join(env.LOCAL_DATA_DIR, "stack.json"))) return resolve(env.LOCAL_DATA_DIR, "stack.json");
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const candidate = join(dir, ".local", "stack.json");
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

export function readStackFile(file: string | undefined): StackFile {
  if (!file) return {};
  try {
    return JSON.parse(readFileSync(file, "utf8")) as StackFile;
  } catch {
    return {};
  }
}

function pick<T>(sources: Record<string, string>, name: string, candidates: [string, T | undefined][]): T | undefined {
  for (const [source, value] of candidates) {
    if (value !== undefined && value !== "") {
      sources[name] = source;
      return value;
    }
  }
  return undefined;
}

/**
 * The settings in force. A value that cannot be used is a usage error naming where it came from; with
 * `lenient` (for `config show`, which must work whatever is stored) it is left unset and reported in
 * `problems` instead.
 */
export function resolveSettings(flags: GlobalFlags, env: Env, cwd = process.cwd(), options: { lenient?: boolean } = {}): Settings {
  const dir = configDir(env);
  const file = join(dir, "config.json");
  const config = readConfig(file);
  const stackFile = findStackFile(env, flags.stack, cwd);
  const stack = readStackFile(stackFile);
  const sources: Record<string, string> = {};
  const problems: string[] = [];
  const refuse = (message: string) => {
    if (!options.lenient) throw usageError(message);
    problems.push(message);
  };
  const apiUrl = pick(sources, "api_url", [["--api-url", flags["api-url"]], ["AGENTRENT_API_URL", env.AGENTRENT_API_URL], ["config", config.api_url], ["stack", stack.api_url]]);
  const rpcUrl = pick(sources, "rpc_url", [["--rpc-url", flags["rpc-url"]], ["AGENTRENT_RPC_URL", env.AGENTRENT_RPC_URL], ["config", config.rpc_url], ["stack", stack.rpc_url]]);
  const chainIdRaw = pick<string | number>(sources, "chain_id", [["--chain-id", flags["chain-id"]], ["AGENTRENT_CHAIN_ID", env.AGENTRENT_CHAIN_ID], ["config", config.chain_id], ["stack", stack.chain_id]]);
  const marketplaceRaw = pick(sources, "marketplace", [["--marketplace", flags.marketplace], ["AGENTRENT_MARKETPLACE", env.AGENTRENT_MARKETPLACE], ["config", config.marketplace], ["stack", stack.contracts?.marketplace]]);
  const tokenMarketplaceRaw = pick(sources, "token_marketplace", [["AGENTRENT_TOKEN_MARKETPLACE", env.AGENTRENT_TOKEN_MARKETPLACE], ["config", config.token_marketplace], ["stack", stack.contracts?.token_marketplace]]);
  const keystore = pick(sources, "keystore", [["--keystore", flags.keystore], ["AGENTRENT_KEYSTORE", env.AGENTRENT_KEYSTORE], ["config", config.keystore]]);
  const fix = (key: string) => (sources[key] === "config" ? ` Fix it with \`agentrent config set ${key} <value>\`.` : "");
  let chainId: number | undefined;
  if (chainIdRaw !== undefined) {
    chainId = Number(chainIdRaw);
    if (!Number.isSafeInteger(chainId) || chainId <= 0) {
      refuse(`The chain id ${String(chainIdRaw)} (from ${sources.chain_id}) is not a positive integer.${fix("chain_id")}`);
      chainId = undefined;
    }
  }
  let marketplace: `0x${string}` | undefined;
  if (marketplaceRaw !== undefined) {
    if (ADDRESS.test(marketplaceRaw)) marketplace = checksumAddress(marketplaceRaw);
    else refuse(`The marketplace address ${marketplaceRaw} (from ${sources.marketplace}) is not an address.${fix("marketplace")}`);
  }
  let tokenMarketplace: `0x${string}` | undefined;
  if (tokenMarketplaceRaw !== undefined) {
    if (ADDRESS.test(tokenMarketplaceRaw)) tokenMarketplace = checksumAddress(tokenMarketplaceRaw);
    else refuse(`The token marketplace address ${tokenMarketplaceRaw} (from ${sources.token_marketplace}) is not an address.${fix("token_marketplace")}`);
  }
  const api = apiUrl !== undefined && !isHttpUrl(apiUrl) ? (refuse(`The API URL (from ${sources.api_url}) is not an http(s) URL: ${apiUrl}.${fix("api_url")}`), undefined) : apiUrl;
  const rpc = rpcUrl !== undefined && !isHttpUrl(rpcUrl) ? (refuse(`The RPC URL (from ${sources.rpc_url}) is not an http(s) URL: ${rpcUrl}.${fix("rpc_url")}`), undefined) : rpcUrl;
  return {
    apiUrl: api?.replace(/\/+$/, "").replace(/\/v1$/, ""),
    rpcUrl: rpc,
    chainId,
    marketplace,
    tokenMarketplace,
    sources,
    configDir: dir,
    configFile: file,
    stackFile,
    keystore: keystore ?? (existsSync(join(dir, "keystore.json")) ? join(dir, "keystore.json") : undefined),
    problems,
  };
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

export function requireApiUrl(settings: Settings): string {
  if (!settings.apiUrl) throw usageError("No API URL: pass --api-url, set AGENTRENT_API_URL, run `agentrent config set api_url <url>`, or start the local stack (`npm start`), whose .local/stack.json is read.");
  return settings.apiUrl;
}

export function loadSession(settings: Settings): Session | undefined {
  const config = readConfig(settings.configFile);
  return settings.apiUrl ? config.sessions?.[settings.apiUrl] : undefined;
}

export function saveSession(settings: Settings, session: Session | undefined): void {
  const apiUrl = requireApiUrl(settings);
  const config = readConfig(settings.configFile);
  const sessions = { ...(config.sessions ?? {}) };
  if (session) sessions[apiUrl] = session;
  else delete sessions[apiUrl];
  writeConfig(settings.configFile, { ...config, sessions });
}

// Account commands: wallet keystores, sign-in sessions, API keys and the config file.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Hex } from "viem";
import { authenticatedApi, publicClient } from "../api.ts";
import { intFlag, requireFlag, stringFlag, type Command, type CommandContext, type FlagValues, type Flags } from "../cli.ts";
import { CliError, EXIT, usageError } from "../errors.ts";
import { ADDRESS, checksumAddress, CONFIG_KEYS, configDir, readConfig, resolveSettings, saveSession, writeConfig, loadSession, type ConfigKey, type GlobalFlags } from "../settings.ts";
import { keystorePassword, loadAccount, parsePrivateKey } from "../wallet.ts";
import { amountIn, currencyAmount, eth } from "../units.ts";
import type { AgentRentalClient, SpendLimit, SpendLimitInput } from "@agent-rental/sdk";

async function newPassword(ctx: CommandContext): Promise<string> {
  const env = ctx.env;
  if (env.AGENTRENT_KEYSTORE_PASSWORD !== undefined) {
    if (env.AGENTRENT_KEYSTORE_PASSWORD.length < 8) throw usageError("AGENTRENT_KEYSTORE_PASSWORD must be at least 8 characters.");
    return env.AGENTRENT_KEYSTORE_PASSWORD;
  }
  if (!ctx.prompt.interactive) return keystorePassword(env, "encrypt the keystore", ctx.prompt);
  const first = (await ctx.prompt.secret("New keystore password (8+ characters)")) ?? "";
  if (first.length < 8) throw usageError("The password must be at least 8 characters.");
  const again = await ctx.prompt.secret("Repeat the password");
  if (again !== first) throw usageError("The passwords differ.");
  return first;
}

async function writeKeystore(ctx: CommandContext, privateKey: Hex, password: string): Promise<{ file: string; address: string }> {
  const [{ privateKeyToAccount }, { DEFAULT_SCRYPT, encryptKeystore }] = await Promise.all([import("viem/accounts"), import("../keystore.ts")]);
  const settings = ctx.settings();
  const file = ctx.path(stringFlag(ctx.flags, "out") ?? join(settings.configDir, "keystore.json"));
  if (existsSync(file) && ctx.flags.force !== true) throw usageError(`${file} exists; pass --force to replace it (its wallet is lost unless backed up), or --out <file>.`);
  const cost = intFlag(ctx.flags, "scrypt-n-log2", 10, 20);
  const keystore = encryptKeystore(privateKey, password, cost === undefined ? DEFAULT_SCRYPT : { n: 2 ** cost, r: 8, p: 1 });
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, JSON.stringify(keystore, null, 2) + "\n", { mode: 0o600 });
  const config = readConfig(settings.configFile);
  if (!config.keystore || ctx.flags.default === true) writeConfig(settings.configFile, { ...config, keystore: file });
  return { file, address: privateKeyToAccount(privateKey).address };
}

const REACH_TIMEOUT_MS = 3000;

function httpUrl(key: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw usageError(`${key} must be a URL such as https://api.example.com, not ${JSON.stringify(value)}; nothing was written.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw usageError(`${key} must be an http:// or https:// URL, not ${url.protocol}; nothing was written.`);
  return value.replace(/\/+$/, "");
}

async function reachable(ctx: CommandContext, key: string, url: string, init: RequestInit, answers: (res: Response) => Promise<boolean>): Promise<void> {
  if (ctx.flags.force === true) return;
  let ok = false;
  let why = "";
  try {
    const res = await ctx.out.progress(`checking ${url}`, () => fetch(url, { ...init, signal: AbortSignal.any([AbortSignal.timeout(REACH_TIMEOUT_MS), ctx.signal]) }));
    ok = await answers(res);
    if (!ok) why = `it answered HTTP ${res.status}, not as expected`;
  } catch (error) {
    why = error instanceof Error && error.name === "TimeoutError" ? `no answer within ${REACH_TIMEOUT_MS / 1000} s` : "it could not be reached";
  }
  if (!ok) throw new CliError(`${key} ${url}: ${why}; nothing was written. Check the URL, or pass --force to store it anyway.`, EXIT.unavailable, "unreachable");
}

/** The value to store for `key`, refused with what is wrong (nothing is written then). */
async function checkConfigValue(ctx: CommandContext, key: ConfigKey, value: string): Promise<string | number> {
  switch (key) {
    case "api_url": {
      const url = httpUrl(key, value).replace(/\/v1$/, "");
      // Any answer from the API's health route counts (503 too: the API is there, its dependencies are not).
      await reachable(ctx, key, `${url}/v1/health`, { method: "GET" }, async (res) => {
        if (res.status !== 200 && res.status !== 503) return false;
        const body = (await res.json().catch(() => null)) as { status?: unknown } | null;
        return typeof body?.status === "string";
      });
      return url;
    }
    case "rpc_url": {
      const url = httpUrl(key, value);
      await reachable(ctx, key, url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }) }, async (res) => {
        const body = (await res.json().catch(() => null)) as { result?: unknown } | null;
        return typeof body?.result === "string";
      });
      return url;
    }
    case "chain_id": {
      const n = Number(value);
      if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n <= 0) throw usageError(`chain_id must be a positive integer, not ${JSON.stringify(value)}; nothing was written.`);
      return n;
    }
    case "marketplace":
    case "token_marketplace":
      if (!ADDRESS.test(value)) throw usageError(`${key} must be an address (0x + 40 hex), not ${JSON.stringify(value)}; nothing was written.`);
      return checksumAddress(value);
    case "keystore": {
      const file = ctx.path(value);
      if (!existsSync(file) && ctx.flags.force !== true) throw usageError(`No keystore at ${file}; nothing was written (create one with \`agentrent wallet new --out ${file}\`, or pass --force).`);
      return file;
    }
  }
}

const LIMIT_OPTIONS: Flags = {
  "limit-day": { type: "string", value: "<amount>", description: "the most the key may spend per calendar day (UTC), in --limit-currency" },
  "limit-month": { type: "string", value: "<amount>", description: "the most it may spend per calendar month (UTC), in --limit-currency" },
  "limit-total": { type: "string", value: "<amount>", description: "the most it may ever spend, in --limit-currency" },
  "limit-currency": { type: "string", value: "<ETH|token>", description: "the currency of the limits: ETH (default) or a token listings are priced in, by its symbol (USDC) or address" },
};

const SET_LIMIT_OPTIONS: Flags = {
  day: { type: "string", value: "<amount>", description: "the most per calendar day (UTC), in --currency" },
  month: { type: "string", value: "<amount>", description: "the most per calendar month (UTC), in --currency" },
  total: { type: "string", value: "<amount>", description: "the most ever, in --currency" },
  currency: { type: "string", value: "<ETH|token>", description: "the currency of the limits set: ETH (default) or a token listings are priced in, by its symbol (USDC) or address; the limits in other currencies are kept" },
  none: { type: "boolean", description: "remove the limits (every currency's, or only --currency's when given)" },
};

/** A currency a limit may count: ETH, or a token of the service's GET /v1/currencies. */
interface LimitCurrency {
  symbol: string;
  address: string | null;
  decimals: number;
}
const ETH_LIMIT: LimitCurrency = { symbol: "ETH", address: null, decimals: 18 };

/** The currencies limits may count here (ETH alone when the service names none or cannot be asked). */
async function limitCurrencies(client: AgentRentalClient): Promise<LimitCurrency[]> {
  try {
    return (await client.listings.currencies()).currencies.map((c) => ({ symbol: c.symbol, address: c.address, decimals: c.decimals }));
  } catch {
    return [ETH_LIMIT];
  }
}

/** The currency named by `value` (a symbol, any case, or a token's address), or a usage error naming `flag`. */
function limitCurrencyOf(value: string | undefined, currencies: readonly LimitCurrency[], flag: string): LimitCurrency {
  if (value === undefined || value.trim().toUpperCase() === "ETH") return ETH_LIMIT;
  const wanted = value.trim().toLowerCase();
  const found = currencies.find((c) => c.symbol.toLowerCase() === wanted || c.address?.toLowerCase() === wanted);
  if (!found) throw usageError(`${flag} ${JSON.stringify(value)} is not a currency the service takes (${currencies.map((c) => c.symbol).join(", ")}; GET /v1/currencies).`);
  return found;
}

/** Spending limits from the flags (`<prefix>day`, `<prefix>month`, `<prefix>total`) in `currency`, in its smallest unit. */
function spendLimitsFromFlags(flags: FlagValues, currency: LimitCurrency, prefix = "limit-"): SpendLimitInput[] {
  return (["day", "month", "total"] as const).flatMap((period) => {
    const value = stringFlag(flags, `${prefix}${period}`);
    if (value === undefined) return [];
    const units = currencyAmount(value, currency, `--${prefix}${period}`);
    if (units <= 0n) throw usageError(`--${prefix}${period} must be more than 0 ${currency.symbol} (to stop all spending, revoke it).`);
    return [{ currency: currency.symbol, period, amount: units.toString() }];
  });
}

/** The limits `keys limit` and `apps limit` set: those of the flags in `--currency`, with the limits in
 * other currencies kept as they are (`current`); `--none` alone removes every limit. */
async function limitsToSet(flags: FlagValues, client: AgentRentalClient, current: () => Promise<readonly SpendLimit[]>): Promise<SpendLimitInput[]> {
  const named = stringFlag(flags, "currency");
  const currency = named === undefined ? ETH_LIMIT : limitCurrencyOf(named, await limitCurrencies(client), "--currency");
  const limits = spendLimitsFromFlags(flags, currency, "");
  if (flags.none === true && limits.length > 0) throw usageError("--none removes the limits; give it alone (or with --currency), or give --day, --month or --total without it.");
  if (flags.none !== true && limits.length === 0) throw usageError(`Give --day, --month or --total (in ${currency.symbol}), or --none to remove the limits.`);
  if (flags.none === true && named === undefined) return [];
  const kept = (await current()).filter((l) => l.currency !== currency.symbol).map(({ currency: c, period, amount }) => ({ currency: c, period, amount }));
  return [...kept, ...limits];
}

/** `keys limit` and `apps limit`: the limits of the flags set on the key or app named by the argument
 * (the limits in other currencies kept), then printed each in its currency. */
async function setLimitsOf<T extends { spend_limits: SpendLimit[] }>(
  ctx: CommandContext,
  of: { find(client: AgentRentalClient, id: string): Promise<T | undefined>; set(client: AgentRentalClient, id: string, limits: SpendLimitInput[]): Promise<T>; name(item: T): string; missing(id: string): string },
): Promise<void> {
  const { client } = authenticatedApi(ctx.settings(), ctx.env);
  const id = ctx.args[0]!;
  const current = async () => {
    const found = await of.find(client, id);
    if (!found) throw new CliError(of.missing(id), EXIT.notFound, "not_found");
    return found.spend_limits;
  };
  const item = await of.set(client, id, await limitsToSet(ctx.flags, client, current));
  const currencies = await currenciesFor(client, item.spend_limits);
  ctx.out.result(item, () => printLimits(ctx, of.name(item), item.spend_limits, currencies));
}

function describeSpendLimit(limit: SpendLimit, currencies: readonly LimitCurrency[]): string {
  const currency = currencies.find((c) => c.symbol === limit.currency);
  const amount = (units: string) => (currency ? amountIn(units, currency) : `${units} units of ${limit.currency}`);
  const per = limit.period === "total" ? "in total" : `per ${limit.period}`;
  return `limit ${amount(limit.amount)} ${per}: spent ${amount(limit.spent)}${limit.reserved !== "0" ? ` (+${amount(limit.reserved)} in flight)` : ""}, ${amount(limit.remaining)} left${limit.resets_at ? `, resets ${limit.resets_at}` : ""}`;
}

/** The currencies `limits` are in, when one is not ETH (ETH alone otherwise: no request). */
async function currenciesFor(client: AgentRentalClient, limits: readonly SpendLimit[]): Promise<LimitCurrency[]> {
  return limits.some((l) => l.currency !== "ETH") ? limitCurrencies(client) : [ETH_LIMIT];
}

function printLimits(ctx: { out: { line(text: string): void } }, what: string, limits: SpendLimit[], currencies: readonly LimitCurrency[]): void {
  if (limits.length === 0) return ctx.out.line(`${what}: no spending limit.`);
  ctx.out.line(`${what}:`);
  for (const limit of limits) ctx.out.line(`  ${describeSpendLimit(limit, currencies)}`);
}

const keystoreOptions: Flags = {
  out: { type: "string", value: "<file>", description: "where to write the keystore (default: <config dir>/keystore.json)" },
  force: { type: "boolean", description: "replace an existing file (its wallet is lost unless backed up)" },
  default: { type: "boolean", description: "make it the default keystore in the config file (the first one is made so anyway)" },
  "scrypt-n-log2": { type: "string", value: "<10..20>", description: "scrypt cost as a power of two (default 18, the format's standard; lower only for tests)" },
};

export const accountCommands: Command[] = [
  {
    path: "wallet new",
    summary: "Create a wallet, saved as an encrypted v3 keystore (scrypt, aes-128-ctr)",
    usage: "[--out <file>] [--force] [--default]",
    options: keystoreOptions,
    notes: ["The password comes from AGENTRENT_KEYSTORE_PASSWORD or is asked twice (hidden) on a terminal.", "Keep a backup of the file and the password: neither can be recovered."],
    examples: ["agentrent wallet new", "AGENTRENT_KEYSTORE_PASSWORD=… agentrent wallet new --out ./ops-wallet.json --json"],
    async run(ctx) {
      const password = await newPassword(ctx);
      const { generatePrivateKey } = await import("viem/accounts");
      const saved = await writeKeystore(ctx, generatePrivateKey(), password);
      ctx.out.result({ address: saved.address, keystore: saved.file }, () => {
        ctx.out.line(`Created wallet ${saved.address}`);
        ctx.out.line(`Keystore: ${saved.file} (keep a backup and the password; neither can be recovered)`);
      });
    },
  },
  {
    path: "wallet import",
    summary: "Encrypt an existing private key into a v3 keystore",
    usage: "[--out <file>] [--force] [--default]",
    options: keystoreOptions,
    notes: ["The private key is read from AGENTRENT_PRIVATE_KEY, from stdin when piped, or asked (hidden) on a terminal; never from a flag."],
    examples: ["agentrent wallet import", "pass show eth/deployer | agentrent wallet import --out ./deployer.json"],
    async run(ctx) {
      let raw = ctx.env.AGENTRENT_PRIVATE_KEY;
      if (!raw) raw = ctx.prompt.input.isTTY ? ((await ctx.prompt.secret("Private key (hex)")) ?? "") : (await ctx.prompt.readAll()).trim();
      const privateKey = parsePrivateKey(raw, "The private key");
      const password = await newPassword(ctx);
      const saved = await writeKeystore(ctx, privateKey, password);
      ctx.out.result({ address: saved.address, keystore: saved.file }, () => ctx.out.line(`Imported wallet ${saved.address} into ${saved.file}`));
    },
  },
  {
    path: "wallet address",
    summary: "Show the address of the configured wallet (and its balance when a chain is configured)",
    usage: "",
    examples: ["agentrent wallet address", "agentrent wallet address --keystore ./deployer.json --json"],
    async run(ctx) {
      const settings = ctx.settings();
      const account = await loadAccount(settings, ctx.env, ctx.prompt);
      let balance: bigint | undefined;
      if (settings.rpcUrl && settings.chainId && settings.marketplace) {
        const { chainTarget, guard } = await import("../chain.ts");
        const target = chainTarget(settings);
        balance = await guard(() => target.client.getBalance({ address: account.address }));
      }
      ctx.out.result({ address: account.address, balance_wei: balance ?? null }, () => {
        ctx.out.line(account.address);
        if (balance !== undefined) ctx.out.line(`balance ${eth(balance)}`);
      });
    },
  },
  {
    path: "login",
    summary: "Sign in with the wallet (challenge, personal_sign, token); the session is stored in the config file (0600)",
    usage: "",
    notes: ["The session lasts one hour; run `agentrent login` again when it expires. One session is kept per API URL."],
    examples: ["agentrent login", "agentrent login --api-url https://api.example.com"],
    async run(ctx) {
      const settings = ctx.settings();
      const account = await loadAccount(settings, ctx.env, ctx.prompt);
      const client = publicClient(settings);
      const token = await client.signIn(account);
      saveSession(settings, { wallet: token.wallet, token: token.token, expires_at: token.expires_at });
      const expires = new Date(token.expires_at * 1000).toISOString();
      ctx.out.result({ wallet: token.wallet, api_url: settings.apiUrl, expires_at: expires, config_file: settings.configFile }, () =>
        ctx.out.line(`Signed in to ${settings.apiUrl} as ${token.wallet} until ${expires}.`),
      );
    },
  },
  {
    path: "logout",
    summary: "Forget the stored session for the API",
    usage: "",
    examples: ["agentrent logout"],
    async run(ctx) {
      const settings = ctx.settings();
      saveSession(settings, undefined);
      ctx.out.result({ signed_out: true, api_url: settings.apiUrl }, () => ctx.out.line(`Signed out of ${settings.apiUrl}.`));
    },
  },
  {
    path: "whoami",
    summary: "Show the signed-in wallet and when the session expires",
    usage: "",
    examples: ["agentrent whoami", "agentrent whoami --json"],
    async run(ctx) {
      const settings = ctx.settings();
      const api = authenticatedApi(settings, ctx.env);
      const session = loadSession(settings);
      const data = { api_url: api.baseUrl, wallet: api.wallet ?? null, auth: ctx.env.AGENTRENT_API_KEY ? "api_key" : "session", expires_at: session && !ctx.env.AGENTRENT_API_KEY ? new Date(session.expires_at * 1000).toISOString() : null };
      ctx.out.result(data, () => ctx.out.table([["api", data.api_url], ["wallet", data.wallet ?? "(API key)"], ["auth", data.auth], ["expires", data.expires_at]]));
    },
  },
  {
    path: "keys create",
    summary: "Create an API key (signed by the wallet); the key is shown once",
    usage: "--label <label> [--limit-day <amount>] [--limit-month <amount>] [--limit-total <amount>] [--limit-currency <ETH|token>]",
    options: { label: { type: "string", value: "<label>", description: "a name for the key, 1 to 64 characters (required)" }, ...LIMIT_OPTIONS },
    notes: ["Keep keys server side (an environment variable such as AGENTRENT_API_KEY); never in client code or a repository."],
    examples: ['agentrent keys create --label "backend"', 'agentrent keys create --label script --limit-day 0.003', 'agentrent keys create --label agent --limit-day 5 --limit-currency USDC', 'agentrent keys create --label ci --json'],
    async run(ctx) {
      const label = requireFlag(ctx.flags, "label", "a name for the key (1 to 64 characters)");
      const settings = ctx.settings();
      const api = authenticatedApi(settings, ctx.env);
      const account = await loadAccount(settings, ctx.env, ctx.prompt);
      const named = stringFlag(ctx.flags, "limit-currency");
      const currency = named === undefined ? ETH_LIMIT : limitCurrencyOf(named, await limitCurrencies(api.client), "--limit-currency");
      const limits = spendLimitsFromFlags(ctx.flags, currency);
      const created = await api.client.keys.create(label, account, limits.length > 0 ? { spendLimits: limits } : undefined);
      ctx.out.result(created, () => {
        ctx.out.line(created.key);
        ctx.out.notice(`Created key ${created.key_id} (${created.label}). It is shown only now: store it server side (for example AGENTRENT_API_KEY); never commit it.`);
      });
    },
  },
  {
    path: "keys list",
    summary: "List the wallet's API keys (never the keys themselves)",
    usage: "",
    examples: ["agentrent keys list"],
    async run(ctx) {
      const { client } = authenticatedApi(ctx.settings(), ctx.env);
      const keys = await client.keys.list();
      const currencies = await currenciesFor(client, keys.flatMap((k) => k.spend_limits));
      ctx.out.result({ keys }, () => {
        if (keys.length === 0) return ctx.out.line("No API keys.");
        for (const k of keys) {
          ctx.out.line(`${k.key_id}  ${k.prefix.replace(/…$/, "")}…  ${k.label}  created ${k.created_at}${k.revoked ? "  revoked" : ""}${k.last_used_at ? `  last used ${k.last_used_at}` : ""}`);
          for (const limit of k.spend_limits) ctx.out.line(`    ${describeSpendLimit(limit, currencies)}`);
        }
      });
    },
  },
  {
    path: "keys limit",
    summary: "Set an API key's spending limits in one currency (replacing its limits in that currency); with --none, remove them",
    usage: "<key_id> [--day <amount>] [--month <amount>] [--total <amount>] [--currency <ETH|token>] [--none]",
    arguments: ["<key_id>  the key's id, as `agentrent keys list` shows it"],
    options: SET_LIMIT_OPTIONS,
    notes: ["Needs a wallet sign-in (`agentrent login`), not an API key: a key cannot lift its own limit.", "Days and months are calendar periods in UTC; a total limit never resets."],
    examples: ["agentrent keys limit key_<20 hex> --day 0.003", "agentrent keys limit key_<20 hex> --month 0.1 --total 1", "agentrent keys limit key_<20 hex> --day 5 --currency USDC", "agentrent keys limit key_<20 hex> --none"],
    args: [1, 1],
    run: (ctx) =>
      setLimitsOf(ctx, {
        find: async (client, id) => (await client.keys.list()).find((k) => k.key_id === id),
        set: (client, id, limits) => client.keys.setSpendLimits(id, limits),
        name: (key) => `${key.key_id} (${key.label})`,
        missing: (id) => `No API key ${id} of this wallet (agentrent keys list shows them).`,
      }),
  },
  {
    path: "apps list",
    summary: "List the apps the wallet approved (Connected apps), with their spending",
    usage: "",
    examples: ["agentrent apps list"],
    async run(ctx) {
      const { client } = authenticatedApi(ctx.settings(), ctx.env);
      const apps = await client.apps.list();
      const currencies = await currenciesFor(client, apps.flatMap((a) => a.spend_limits));
      ctx.out.result({ apps }, () => {
        if (apps.length === 0) return ctx.out.line("No connected apps.");
        for (const app of apps) {
          ctx.out.line(`${app.app_id}  ${app.name ?? app.client_id}  ${app.scopes.join(" ")}  approved ${app.approved_at}${app.last_used_at ? `  last used ${app.last_used_at}` : ""}`);
          for (const limit of app.spend_limits) ctx.out.line(`    ${describeSpendLimit(limit, currencies)}`);
        }
      });
    },
  },
  {
    path: "apps limit",
    summary: "Set a connected app's spending limits in one currency (replacing its limits in that currency); with --none, remove them",
    usage: "<app_id> [--day <amount>] [--month <amount>] [--total <amount>] [--currency <ETH|token>] [--none]",
    arguments: ["<app_id>  the app's id, as `agentrent apps list` shows it"],
    options: SET_LIMIT_OPTIONS,
    notes: ["Needs a wallet sign-in (`agentrent login`), not an API key."],
    examples: ["agentrent apps limit <app_id> --day 0.01", "agentrent apps limit <app_id> --day 5 --currency USDC"],
    args: [1, 1],
    run: (ctx) =>
      setLimitsOf(ctx, {
        find: async (client, id) => (await client.apps.list()).find((a) => a.app_id === id),
        set: (client, id, limits) => client.apps.setSpendLimits(id, limits),
        name: (app) => `${app.app_id} (${app.name ?? app.client_id})`,
        missing: (id) => `No connected app ${id} of this wallet (agentrent apps list shows them).`,
      }),
  },
  {
    path: "keys revoke",
    summary: "Revoke an API key; its next request gets 401",
    usage: "<key_id>",
    arguments: ["<key_id>  the key's id, as `agentrent keys list` shows it (not the key itself)"],
    examples: ["agentrent keys revoke key_<20 hex>"],
    args: [1, 1],
    async run(ctx) {
      const key = await authenticatedApi(ctx.settings(), ctx.env).client.keys.revoke(ctx.args[0]!);
      ctx.out.result(key, () => ctx.out.line(`Revoked ${key.key_id} (${key.label}).`));
    },
  },
  {
    path: "config show",
    summary: "Show the resolved settings and where each comes from (no secrets)",
    usage: "",
    notes: ["A setting that cannot be used (a malformed value in the config file) is shown with what is wrong and how to fix it."],
    examples: ["agentrent config show", "agentrent config show --json"],
    async run(ctx) {
      const s = resolveSettings(ctx.flags as GlobalFlags, ctx.env, ctx.cwd, { lenient: true });
      const session = loadSession(s);
      const data = {
        api_url: s.apiUrl ?? null,
        rpc_url: s.rpcUrl ?? null,
        chain_id: s.chainId ?? null,
        marketplace: s.marketplace ?? null,
        keystore: s.keystore ?? null,
        sources: s.sources,
        config_file: s.configFile,
        stack_file: s.stackFile ?? null,
        wallet_from_env: Boolean(ctx.env.AGENTRENT_PRIVATE_KEY),
        api_key_from_env: Boolean(ctx.env.AGENTRENT_API_KEY),
        session: session ? { wallet: session.wallet, expires_at: new Date(session.expires_at * 1000).toISOString() } : null,
        problems: s.problems,
      };
      for (const problem of s.problems) ctx.out.notice(problem);
      ctx.out.result(data, () =>
        ctx.out.table([
          ["api_url", `${data.api_url ?? "-"}${s.sources.api_url ? `  (${s.sources.api_url})` : ""}`],
          ["rpc_url", `${data.rpc_url ?? "-"}${s.sources.rpc_url ? `  (${s.sources.rpc_url})` : ""}`],
          ["chain_id", `${data.chain_id ?? "-"}${s.sources.chain_id ? `  (${s.sources.chain_id})` : ""}`],
          ["marketplace", `${data.marketplace ?? "-"}${s.sources.marketplace ? `  (${s.sources.marketplace})` : ""}`],
          ["keystore", data.keystore],
          ["config file", data.config_file],
          ["stack file", data.stack_file],
          ["session", session ? `${session.wallet} until ${data.session!.expires_at}` : "not signed in"],
        ]),
      );
    },
  },
  {
    path: "config set",
    summary: `Store a default in the config file (${CONFIG_KEYS.join(", ")}), checked before it is written`,
    usage: "<key> <value> [--force]",
    args: [2, 2],
    options: { force: { type: "boolean", description: "store a well-formed value without checking that it answers (a server not up yet) or exists" } },
    arguments: [
      "<key>    api_url, rpc_url, chain_id, marketplace or keystore",
      "<value>  api_url: an http(s) URL that answers GET /v1/health within 3 s; rpc_url: an http(s) URL that",
      "         answers eth_chainId within 3 s; chain_id: a positive integer; marketplace: the contract's",
      "         address (0x + 40 hex); keystore: a keystore file that exists",
    ],
    notes: [
      "A bad value is refused (exit 2 malformed, 8 unreachable) and the file is left as it was. Nothing stored",
      "is read to check a value, so a bad setting never keeps this command from fixing it. Flags and AGENTRENT_*",
      "variables override the file.",
    ],
    examples: ["agentrent config set api_url https://api.example.com", "agentrent config set rpc_url http://127.0.0.1:8545 --force", "agentrent config set chain_id 31337"],
    async run(ctx) {
      const [key, value] = ctx.args as [string, string];
      if (!(CONFIG_KEYS as readonly string[]).includes(key)) throw usageError(`Unknown setting ${key}; one of ${CONFIG_KEYS.join(", ")}.`);
      // The file alone, not the resolved settings: a bad value stored earlier must not keep this command
      // (the way to fix it) from running.
      const configFile = join(configDir(ctx.env), "config.json");
      const typed = await checkConfigValue(ctx, key as ConfigKey, value);
      writeConfig(configFile, { ...readConfig(configFile), [key as ConfigKey]: typed });
      ctx.out.result({ [key]: typed, config_file: configFile }, () => ctx.out.line(`${key} = ${String(typed)} (${configFile})`));
    },
  },
];

export { CliError, EXIT };

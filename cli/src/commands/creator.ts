// Creator commands: scaffold and validate a manifest (the service's own validator), register it and
// list it on-chain, manage the listing on-chain, set its secrets, and collect the earnings.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { Address, Hex } from "viem";
import { authenticatedApi, publicClient, type Api } from "../api.ts";
import { intFlag, oneOf, requireFlag, stringFlag, type Command, type CommandContext } from "../cli.ts";
import { amountIn, currencyAmount, eth, ethAmount } from "../units.ts";
import { analyticsByCurrency, type AnalyticsCsvTable, type CreatorAnalytics } from "@agent-rental/sdk";
import { ACCESS_TYPE, CATEGORIES, PROVIDERS, RENTAL_MODELS, type JobStatus } from "@agent-rental/core/vocabulary";
import { ALLOW_PRIVATE_HOSTS, RENTAL_MODEL, YES } from "../flags.ts";
import { CliError, EXIT, usageError } from "../errors.ts";
import { resolveListing, type ListingRef } from "../listing-ref.ts";
import { loadAccount } from "../wallet.ts";
import type { Settings } from "../settings.ts";
import { sendCallWithProgress, sendWithProgress } from "../tx.ts";

// Loaded by the commands that need them, so the others start without viem (or Ajv).
const chain = () => import("../chain.ts");

/** The TokenMarketplace a listing priced in a token lives on: the configured one (or the local stack's),
 * else the one the service names (GET /v1/currencies); asked once, and only for a listing not on the
 * Marketplace. */
function tokenMarketplaceOf(settings: Settings): () => Promise<Address | undefined> {
  let named: Promise<Address | undefined> | undefined;
  return () =>
    (named ??= (async () => {
      if (settings.tokenMarketplace) return settings.tokenMarketplace;
      if (!settings.apiUrl) return undefined;
      try {
        const token = (await publicClient(settings).listings.currencies()).currencies.find((c) => c.address !== null);
        return token ? (token.contract as Address) : undefined;
      } catch {
        return undefined;
      }
    })());
}

const manifestRules = () => import("@agent-rental/core/manifest");

interface Job {
  job_id: string;
  status: JobStatus;
  result?: { agent_id: string; listing_id: string; listing_seed: Hex; metadata_uri: string };
  error?: { code: string; message: string; details?: { pointer: string; code: string; message: string }[] };
}

async function readManifest(ctx: CommandContext, file: string): Promise<{ raw: string; value: unknown }> {
  let raw: string;
  try {
    raw = readFileSync(ctx.path(file), "utf8");
  } catch {
    throw usageError(`Cannot read the manifest ${file}.`);
  }
  const size = (await manifestRules()).checkManifestSize(raw);
  if (!size.ok) throw new CliError(size.message, EXIT.invalid, "invalid_manifest", { problems: [{ pointer: "", code: "too_large", message: size.message }] });
  try {
    return { raw, value: JSON.parse(raw) as unknown };
  } catch (error) {
    const problem = { pointer: "", code: "invalid_json", message: `Not JSON: ${error instanceof Error ? error.message : String(error)}` };
    throw new CliError(`${file} is not a valid manifest:\n  ${problem.pointer || "/"}  ${problem.code}: ${problem.message}`, EXIT.invalid, "invalid_manifest", { problems: [problem] });
  }
}

function problemsError(file: string, problems: { pointer: string; code: string; message: string }[]): CliError {
  const lines = problems.map((p) => `  ${p.pointer === "" ? "(root)" : p.pointer}  ${p.code}: ${p.message}`);
  return new CliError(`${file} has ${problems.length} problem${problems.length === 1 ? "" : "s"}:\n${lines.join("\n")}`, EXIT.invalid, "invalid_manifest", { problems });
}

async function listingFor(ctx: CommandContext, api: Api | undefined): Promise<ListingRef> {
  return resolveListing(ctx.args[0]!, api);
}

function tryApi(ctx: CommandContext): Api | undefined {
  try {
    return authenticatedApi(ctx.settings(), ctx.env);
  } catch {
    return undefined;
  }
}

type OnChainListingOf = Awaited<ReturnType<Awaited<ReturnType<typeof chain>>["readAnyListing"]>>;

/** Sends a creator's listing transaction and reports it. A change of status (`statusChange`) of a listing
 * that is an ERC-8004 agent leaves the agent's registration file saying the old `active`: the creator is
 * told how to refresh it. */
async function listingTransaction(ctx: CommandContext, fn: string, extraArgs: (ref: ListingRef, current: OnChainListingOf) => Promise<unknown[]> | unknown[], describe: (ref: ListingRef) => string, extra: Record<string, unknown> = {}, statusChange = false) {
  const settings = ctx.settings();
  const api = tryApi(ctx);
  const ref = await listingFor(ctx, api);
  const { chainTarget, readAnyListing } = await chain();
  const target = chainTarget(settings);
  // On the listing's own contract: the Marketplace, or the TokenMarketplace for one priced in a token.
  const tokenMarketplace = tokenMarketplaceOf(settings);
  const current = await readAnyListing(target, tokenMarketplace, ref.onChainId);
  const { market } = current;
  const account = await loadAccount(settings, ctx.env, ctx.prompt);
  const tx = await sendCallWithProgress(ctx, target, account, { address: market.address, abi: market.abi, functionName: fn, args: await extraArgs(ref, current), contract: market.contract });
  const listing = await readAnyListing(target, tokenMarketplace, ref.onChainId);
  ctx.out.result({ listing_id: ref.listingId, on_chain_id: ref.onChainId, status: listing.status, price_wei: listing.price, currency: market.currency, metadata_uri: listing.metadataUri, tx_hash: tx.hash, ...extra }, () =>
    ctx.out.line(`${describe(ref)} (transaction ${tx.hash}); on-chain status ${listing.status}.`),
  );
  if (statusChange) await remindRefresh(ctx, api, ref, listing.status);
}

/** A listing that is an ERC-8004 agent keeps saying its old `active` after a change of status until its
 * creator refreshes the registration file: the creator is told how. */
async function remindRefresh(ctx: CommandContext, api: ReturnType<typeof tryApi>, ref: ListingRef, status: string) {
  const agent = api ? ((await api.client.listings.get(ref.listingId).catch(() => undefined))?.erc8004 ?? null) : null;
  if (agent) ctx.out.notice(`${ref.listingId} is ERC-8004 agent ${agent.agent_id}: its registration file follows the new status (${status}) once you run agentrent erc8004 refresh ${ref.listingId}`);
}

const DEFAULT_INPUT_SCHEMA = { type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false };
const DEFAULT_OUTPUT_SCHEMA = { type: "object", properties: { findings: { type: "array", items: { type: "string" } } }, required: ["findings"] };

/** A valid manifest the answers so far replace parts of, so each answer is checked on its own. */
const SCAFFOLD_PLACEHOLDER = {
  name: "placeholder-agent",
  category: CATEGORIES[0],
  description: "A placeholder description.",
  model: { provider: "provider_a", model: "placeholder-model" } as Record<string, string>,
  system_prompt: "A placeholder prompt.",
  input_schema: DEFAULT_INPUT_SCHEMA,
  output_schema: DEFAULT_OUTPUT_SCHEMA,
  timeout_seconds: 60,
};
const LISTING_ARGUMENT = "<listing>  the agent id (<name>-<8 hex>), the listing id (lst_…) or the on-chain id (0x…)";

/** How long `init` waits for a URL it was given to answer. */
const REACH_TIMEOUT_MS = 3000;

/** The tables `creator stats --csv` prints (the API's `table`). */
const CSV_TABLES = ["series", "top_renters", "series_by_currency", "top_renters_by_currency"] as const satisfies readonly AnalyticsCsvTable[];

/** `creator stats` for a person: the counts across every listing, then each currency's amounts in its own
 * units (revenue by rental model, escrow withdrawable and vesting, balances outstanding, top renters,
 * reconciliation), never added across currencies. */
function printStats(ctx: CommandContext, stats: CreatorAnalytics): void {
  const t = stats.totals;
  const r = stats.reconciliation;
  ctx.out.line(`${t.period}  ${stats.listings.length} listing(s)`);
  ctx.out.line(`runs     ${t.runs.completed} completed  ${t.runs.failed} failed  ${t.runs.logged} with receipts  latency p50 ${t.latency.p50_ms ?? "-"} ms  p95 ${t.latency.p95_ms ?? "-"} ms`);
  ctx.out.line(`streams  time to first output p50 ${t.time_to_first_output.p50_ms ?? "-"} ms  p95 ${t.time_to_first_output.p95_ms ?? "-"} ms`);
  ctx.out.line(`rentals  ${t.rentals.renewals} renewed  ${t.rentals.lapsed} lapsed  ${t.rentals.lapsing} lapsing`);
  ctx.out.line(`feedback ${t.reputation.verified_feedback} verified  mean score ${t.reputation.mean_score ?? "-"}`);
  ctx.out.line(`renters  ${t.renters.new} new  ${t.renters.returning} returning  (${stats.renter_count} all time)`);
  for (const c of analyticsByCurrency(stats)) {
    const amount = (units: string) => amountIn(units, c.currency);
    const money = (f: { gross: string; fee: string; net: string }) => `gross ${amount(f.gross)}  fee ${amount(f.fee)}  net ${amount(f.net)}`;
    const revenue = c.totals.revenue;
    ctx.out.line(`${c.currency.symbol}${c.currency.address === null ? "" : ` (${c.currency.address})`}  ${c.listings.length} listing(s)`);
    ctx.out.line(`  revenue  ${money(revenue)}  withdrawn ${amount(revenue.withdrawn)}`);
    for (const model of RENTAL_MODELS) {
      const m = revenue.by_model[model];
      if (BigInt(m.gross) === 0n && BigInt(m.fee) === 0n) continue;
      ctx.out.line(`    ${model.padEnd(12)} ${money(m)}${model === "per_query" && BigInt(revenue.paid_by_x402) !== 0n ? `  (paid by x402 ${amount(revenue.paid_by_x402)})` : ""}`);
    }
    const rec = c.reconciliation;
    if (rec === null || r.block === null) ctx.out.line("  escrow   not counted yet");
    else if (rec.withdrawable === null || rec.vesting === null || rec.chain_escrow === null) ctx.out.line(`  escrow   ${amount(rec.rollup_escrow)} from the figures (the chain did not answer)`);
    else ctx.out.line(`  escrow   ${amount(rec.chain_escrow)}: withdrawable ${amount(rec.withdrawable)}  vesting ${amount(rec.vesting)}  ${rec.matches ? "matches the figures" : `DOES NOT match the figures (${amount(rec.rollup_escrow)})`}`);
    ctx.out.line(`  balances outstanding ${amount(c.balances_outstanding)}`);
    if (c.top_renters.length > 0) ctx.out.line("  top renters");
    for (const renter of c.top_renters) ctx.out.line(`    ${renter.wallet}  ${amount(renter.spend)}  ${renter.runs} runs`);
  }
  const mismatched = r.by_currency.filter((x) => !x.matches).map((x) => x.currency.symbol);
  if (r.block === null) ctx.out.line("reconciled: not yet (the index has not counted a block)");
  else if (r.matches) ctx.out.line(`reconciled: matches the chain as of block ${r.block}${r.by_currency.length > 1 ? " in every currency" : ""}`);
  else ctx.out.line(`reconciled: DOES NOT match the chain as of block ${r.block}${mismatched.length > 0 ? ` (${mismatched.join(", ")})` : ""}`);
}

async function pollJob(ctx: CommandContext, api: Api, jobId: string, timeoutMs: number): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  return ctx.out.progress(`validating the manifest (job ${jobId})`, async () => {
    for (let delay = 200; ; delay = Math.min(delay * 1.5, 2000)) {
      const job: Job = await api.client.jobs.get(jobId);
      if (job.status !== "queued") return job;
      if (Date.now() + delay > deadline) throw new CliError(`The job ${jobId} is still queued after ${Math.round(timeoutMs / 1000)} s; check it later with \`agentrent jobs get ${jobId}\`.`, EXIT.unavailable, "job_timeout", { job_id: jobId });
      await new Promise((r) => setTimeout(r, delay));
    }
  });
}

export const creatorCommands: Command[] = [
  {
    path: "init",
    summary: "Scaffold an agent manifest (asks on a terminal, or takes every field as a flag)",
    usage: "[--name n] [--category c] [--description d] [--provider p] [--model m] [--endpoint-url u] (--system-prompt s | --entrypoint-url u) [--timeout s] [--out file] [--force]",
    options: {
      name: { type: "string", value: "<name>", description: "kebab-case; becomes part of the agent id" },
      category: { type: "string", value: "<category>", description: CATEGORIES.join(", ") },
      description: { type: "string", value: "<text>", description: "what the agent does, shown on the listing" },
      provider: { type: "string", value: "<provider>", description: `the model provider: ${PROVIDERS.join(", ")} (default provider_a)` },
      model: { type: "string", value: "<model>", description: "the model's name (the two hosted providers)" },
      "endpoint-url": { type: "string", value: "<url>", description: "the model endpoint (self_hosted), https" },
      "system-prompt": { type: "string", value: "<text>", description: "a declarative agent, run by the service with this prompt" },
      "entrypoint-url": { type: "string", value: "<url>", description: "a connected agent: the service calls this HTTPS URL with each task" },
      timeout: { type: "string", value: "<seconds>", description: "the run limit, 1 to 300 (default 60)" },
      out: { type: "string", short: "o", value: "<file>", description: "the file to write (default <name>.json)" },
      force: { type: "boolean", description: "overwrite the file if it exists" },
      "no-input": { type: "boolean", description: "never ask, even on a terminal (every field from a flag)" },
    },
    notes: [
      "On a terminal, what no flag gives is asked for, each answer checked as it is given (the service's manifest rules;",
      "a URL the service will call is reached) and asked again with the reason. Input and output schemas start as a",
      "text-in, findings-out pair: edit them to your agent's shape.",
    ],
    examples: [
      "agentrent init",
      'agentrent init --name clause-finder --category legal --description "Finds risky clauses." --model demo-model --system-prompt "List risky clauses." --no-input',
      "agentrent init --name my-connected-agent --entrypoint-url https://agents.example.com/run --out agent.json",
    ],
    async run(ctx) {
      const interactive = ctx.prompt.interactive && ctx.flags["no-input"] !== true;
      const rules = await manifestRules();
      const manifest: Record<string, unknown> = {};
      const model: Record<string, string> = {};
      /** What the service's validator says about the field at `pointer` once `value` is in place. */
      const problemAt = (pointer: string, place: (candidate: Record<string, unknown>) => void): string | undefined => {
        const candidate: Record<string, unknown> = { ...SCAFFOLD_PLACEHOLDER, ...manifest, model: { ...SCAFFOLD_PLACEHOLDER.model, ...model } };
        place(candidate);
        const checked = rules.validateManifest(candidate, { allowPrivateHosts: true });
        const problem = checked.ok ? undefined : checked.errors.find((e) => e.pointer === pointer || e.pointer.startsWith(`${pointer}/`));
        return problem?.message;
      };
      /** A flag's value as given; on a terminal, the answer, asked again until the validator accepts it. */
      const get = async (flag: string, question: string, check: (value: string) => Promise<string | undefined> | string | undefined, fallback?: string): Promise<string | undefined> => {
        const value = stringFlag(ctx.flags, flag);
        if (value !== undefined) return value;
        if (!interactive) return fallback;
        for (;;) {
          const answer = await ctx.prompt.ask(question, fallback);
          if (answer === undefined) throw usageError(`The input ended before "${question}" was answered; nothing was written.`);
          const problem = answer === "" ? "an answer is needed" : await check(answer);
          if (problem === undefined) return answer;
          ctx.prompt.say(`  ✗ ${problem.replace(/\.$/, "")}; try again.`);
        }
      };
      const field = (pointer: string, key: string) => (value: string) => problemAt(pointer, (m) => (m[key] = value));
      const modelField = (key: string) => (value: string) => problemAt(`/model/${key}`, (m) => ((m.model as Record<string, string>)[key] = value));
      /** A URL the service will call: valid for the validator, and answering now (or kept on purpose). */
      const reachableUrl = (check: (value: string) => string | undefined) => async (value: string) => {
        const problem = check(value);
        if (problem !== undefined) return problem;
        try {
          await ctx.out.progress(`checking ${value}`, () => fetch(value, { method: "HEAD", signal: AbortSignal.any([AbortSignal.timeout(REACH_TIMEOUT_MS), ctx.signal]) }));
          return undefined;
        } catch (error) {
          const why = error instanceof Error && error.name === "TimeoutError" ? `no answer within ${REACH_TIMEOUT_MS / 1000} s` : "it could not be reached";
          const keep = await ctx.prompt.ask(`${value}: ${why}. Keep it anyway (it must answer before runs) [y/N]`);
          return keep !== undefined && /^y(es)?$/i.test(keep) ? undefined : "give a URL that answers";
        }
      };

      manifest.name = await get("name", "Name (kebab-case)", field("/name", "name"));
      manifest.category = await get("category", `Category (${CATEGORIES.join(", ")})`, field("/category", "category"));
      manifest.description = await get("description", "Description", field("/description", "description"));
      const kind = stringFlag(ctx.flags, "entrypoint-url")
        ? "connected"
        : stringFlag(ctx.flags, "system-prompt")
          ? "declarative"
          : interactive
            ? await get("", "Kind: declarative (the service runs it) or connected (your HTTPS endpoint)", (v) => (v === "declarative" || v === "connected" ? undefined : 'answer "declarative" or "connected"'), "declarative")
            : undefined;
      model.provider = (await get("provider", `Model provider (${PROVIDERS.join(", ")})`, modelField("provider"), "provider_a")) ?? "provider_a";
      manifest.model = model;
      if (model.provider === "self_hosted") {
        const endpoint = await get("endpoint-url", "Model endpoint URL (https)", reachableUrl(modelField("endpoint_url")));
        if (endpoint) model.endpoint_url = endpoint;
      } else {
        const m = await get("model", "Model name", modelField("model"));
        if (m) model.model = m;
      }
      if (kind === "connected") manifest.entrypoint_url = await get("entrypoint-url", "Entrypoint URL (https)", reachableUrl((v) => problemAt("/entrypoint_url", (m) => {
        delete m.system_prompt;
        m.entrypoint_url = v;
      })));
      else manifest.system_prompt = await get("system-prompt", "System prompt", field("/system_prompt", "system_prompt"));
      manifest.input_schema = DEFAULT_INPUT_SCHEMA;
      manifest.output_schema = DEFAULT_OUTPUT_SCHEMA;
      manifest.timeout_seconds = intFlag(ctx.flags, "timeout", 1, 300) ?? 60;
      for (const key of Object.keys(manifest)) if (manifest[key] === undefined) delete manifest[key];
      const missing = ["name", "category", "description"].filter((k) => manifest[k] === undefined);
      if (manifest.system_prompt === undefined && manifest.entrypoint_url === undefined) missing.push("system-prompt or entrypoint-url");
      if (model.provider !== "self_hosted" && model.model === undefined) missing.push("model");
      if (missing.length > 0) throw usageError(`Missing ${missing.map((m) => `--${m.replace(" or ", " or --")}`).join(", ")} (not on a terminal, every field comes from a flag).`);
      const checked = (await manifestRules()).validateManifest(manifest, { allowPrivateHosts: true });
      if (!checked.ok) throw problemsError("The manifest", checked.errors);
      const file = ctx.path(stringFlag(ctx.flags, "out") ?? `${String(manifest.name)}.json`);
      if (existsSync(file) && ctx.flags.force !== true) throw usageError(`${file} exists; pass --force to overwrite it or --out <file>.`);
      writeFileSync(file, JSON.stringify(manifest, null, 2) + "\n");
      ctx.out.result({ file, manifest }, () => {
        ctx.out.line(`Wrote ${file}.`);
        ctx.out.line(`Next: edit its input_schema and output_schema, then \`agentrent validate ${file}\` and \`agentrent register ${file} --model one_time --price 0.01\`.`);
      });
    },
  },
  {
    path: "validate",
    summary: "Check a manifest with the service's own validator; every problem with its JSON pointer",
    usage: "<manifest.json> [--allow-private-hosts]",
    args: [1, 1],
    arguments: ["<manifest.json>  the manifest file"],
    options: { "allow-private-hosts": ALLOW_PRIVATE_HOSTS },
    notes: ["Exit code 6 when the manifest has problems; with --json, {valid, problems} on stdout."],
    examples: ["agentrent validate clause-finder.json", "agentrent validate agent.json --allow-private-hosts --json"],
    async run(ctx) {
      const file = ctx.args[0]!;
      const { value } = await readManifest(ctx, file);
      const result = (await manifestRules()).validateManifest(value, { allowPrivateHosts: ctx.flags["allow-private-hosts"] === true });
      if (!result.ok) {
        if (ctx.out.json) {
          ctx.out.result({ valid: false, file, problems: result.errors }, () => {});
          ctx.out.notice(problemsError(file, result.errors).message);
          return EXIT.invalid;
        }
        throw problemsError(file, result.errors);
      }
      const m = result.manifest;
      ctx.out.result({ valid: true, file, manifest: m }, () =>
        ctx.out.line(`${file} is valid: ${m.name} (${m.category}), ${"entrypoint_url" in m && m.entrypoint_url ? "connected agent" : "declarative agent"}, ${m.tools.length} tools, timeout ${m.timeout_seconds} s.`),
      );
    },
  },
  {
    path: "register",
    summary: "Register a manifest (POST /v1/agents), wait for the job, then createListing on-chain",
    usage: "<manifest.json> --model one_time|subscription|per_query --price <amount> [--currency ETH|<token>] [--no-list] [--timeout <seconds>]",
    args: [1, 1],
    arguments: ["<manifest.json>  the manifest file (checked locally first, then by the service)"],
    options: {
      model: { ...RENTAL_MODEL, description: "the listing's rental model: one_time, subscription or per_query (required unless --no-list)" },
      price: { type: "string", value: "<amount>", description: "one_time: the price; subscription: per 30 days; per_query: per run, in --currency (ETH: minimum 0.000001; required unless --no-list)" },
      currency: { type: "string", value: "<ETH|token>", description: "the listing's currency: ETH (default, on the Marketplace) or a token the service takes, by its symbol (USDC; GET /v1/currencies lists them) or address, on the TokenMarketplace" },
      "no-list": { type: "boolean", description: "stop after registration (list later with the job's listing_seed and metadata_uri)" },
      timeout: { type: "string", value: "<seconds>", description: "how long to wait for the validation job (default 120)" },
      "allow-private-hosts": { ...ALLOW_PRIVATE_HOSTS, description: "accepted for symmetry with validate: the service decides which hosts it calls" },
    },
    notes: [
      "Progress: the job while it is validated, then the createListing transaction's hash as soon as it is sent and its",
      "confirmation. The listing then awaits the authority's review before it appears in search. A connected agent",
      "needs a webhook secret (`agentrent listing webhook-secret <listing>`), a declarative one a provider key",
      "(`agentrent listing provider-key <listing>`).",
    ],
    examples: ["agentrent register clause-finder.json --model per_query --price 0.001", "agentrent register agent.json --model per_query --price 0.25 --currency USDC", "agentrent register agent.json --model subscription --price 0.02 --json", "agentrent register agent.json --no-list"],
    async run(ctx) {
      const file = ctx.args[0]!;
      const list = ctx.flags["no-list"] !== true;
      const model = list ? oneOf(requireFlag(ctx.flags, "model", `the rental model (${RENTAL_MODELS.join(", ")})`), RENTAL_MODELS, "--model")! : undefined;
      const currency = stringFlag(ctx.flags, "currency");
      const inToken = currency !== undefined && currency.toUpperCase() !== "ETH";
      const priceText = list ? requireFlag(ctx.flags, "price", inToken ? "the price in the listing's token" : "the price in ETH") : undefined;
      const timeout = intFlag(ctx.flags, "timeout", 1, 3600) ?? 120;
      const { raw, value } = await readManifest(ctx, file);
      // The service decides which hosts it calls; locally, only the manifest's own rules are checked.
      const local = (await manifestRules()).validateManifest(value, { allowPrivateHosts: true });
      if (!local.ok) throw problemsError(file, local.errors);
      const settings = ctx.settings();
      const api = authenticatedApi(settings, ctx.env);
      const target = list || inToken ? (await chain()).chainTarget(settings) : undefined;
      const tokenRent = inToken ? await import("../token-rent.ts") : undefined;
      // The service names the currencies it takes (GET /v1/currencies): a symbol is enough, and the
      // TokenMarketplace is the one it names when none is configured here.
      const accepted = inToken && settings.apiUrl ? await tokenRent!.acceptedCurrency(settings.apiUrl, currency!) : null;
      const tokenMarketplace = settings.tokenMarketplace ?? accepted?.contract;
      if (inToken && !tokenMarketplace) throw usageError(`Listing in a token needs the TokenMarketplace's address: the service names no currency ${JSON.stringify(currency)}, and none is set (AGENTRENT_TOKEN_MARKETPLACE, the config's token_marketplace or the local stack's stack.json).`);
      const token = inToken ? (accepted ?? (await tokenRent!.resolveToken(target!, settings.stackFile, currency!))) : undefined;
      const price = priceText === undefined ? undefined : token ? tokenRent!.tokenPrice(priceText, token.decimals) : ethAmount(priceText, "--price");
      const account = list ? await loadAccount(settings, ctx.env, ctx.prompt) : undefined;
      const queued = await api.client.agents.register(raw, inToken ? { market: "token" } : {});
      ctx.out.notice(`Submitted; job ${queued.job_id}.`);
      const job = await pollJob(ctx, api, queued.job_id, timeout * 1000);
      if (job.status === "failed" || !job.result) {
        const problems = job.error?.details ?? [{ pointer: "", code: job.error?.code ?? "failed", message: job.error?.message ?? "registration failed" }];
        const error = problemsError(file, problems);
        throw new CliError(`Registration job ${job.job_id} failed: ${error.message}`, EXIT.invalid, job.error?.code ?? "invalid_manifest", { job_id: job.job_id, problems });
      }
      const result = job.result;
      const onChainId = `0x${result.listing_id.slice(4)}` as Hex;
      let txHash: string | null = null;
      if (list && account && target && model && price !== undefined && token) {
        const { tokenMarketplaceAbi } = await import("@agent-rental/core/token-marketplace");
        const tx = await sendCallWithProgress(ctx, target, account, { address: tokenMarketplace!, abi: tokenMarketplaceAbi, functionName: "createListing", args: [result.listing_seed, token.address, ACCESS_TYPE[model], price, result.metadata_uri], contract: "TokenMarketplace" });
        txHash = tx.hash;
      } else if (list && account && target && model && price !== undefined) {
        const tx = await sendWithProgress(ctx, target, account, "createListing", [result.listing_seed, ACCESS_TYPE[model], price, result.metadata_uri]);
        txHash = tx.hash;
      }
      const priceWords = price === undefined ? "" : token ? tokenRent!.tokenAmount(price, token) : eth(price);
      const data = {
        job_id: job.job_id,
        listing_id: result.listing_id,
        agent_id: result.agent_id,
        on_chain_id: onChainId,
        listing_seed: result.listing_seed,
        metadata_uri: result.metadata_uri,
        rental_model: model ?? null,
        currency: token ? { symbol: token.symbol, address: token.address, decimals: token.decimals } : { symbol: "ETH", address: null, decimals: 18 },
        ...(token ? { price_units: price ?? null } : { price_wei: price ?? null }),
        tx_hash: txHash,
        review_status: "pending",
      };
      ctx.out.result(data, () => {
        ctx.out.table([
          ["listing_id", result.listing_id],
          ["agent_id", result.agent_id],
          ["on_chain_id", onChainId],
          ["metadata_uri", result.metadata_uri],
          ...(list ? ([["listed", `${model} at ${priceWords}${token ? " on the TokenMarketplace" : ""} (transaction ${txHash})`]] as [string, string][]) : ([["listed", `not yet: createListing(${result.listing_seed}, ${token ? `${token.address}, ` : ""}<model>, <price>, ${result.metadata_uri})`]] as [string, string][])),
          ["review", "pending: the listing appears in search once the authority approves it"],
        ]);
      });
    },
  },
  {
    path: "jobs get",
    summary: "Show a registration job",
    usage: "<job_id>",
    args: [1, 1],
    arguments: ["<job_id>  as `agentrent register` prints it"],
    notes: ["Exit code 6 when the job failed, with every problem of the manifest."],
    examples: ["agentrent jobs get job_<24 hex>", "agentrent jobs get job_<24 hex> --json"],
    async run(ctx) {
      const job: Job = await authenticatedApi(ctx.settings(), ctx.env).client.jobs.get(ctx.args[0]!);
      ctx.out.result(job, () => {
        ctx.out.table([["job", job.job_id], ["status", job.status], ["listing_id", job.result?.listing_id], ["agent_id", job.result?.agent_id]]);
        for (const p of job.error?.details ?? []) ctx.out.line(`  ${p.pointer || "(root)"}  ${p.code}: ${p.message}`);
      });
      return job.status === "failed" ? EXIT.invalid : EXIT.ok;
    },
  },
  {
    path: "creators apply",
    summary: "Apply as a creator (beta: the protocol authority reviews applications)",
    usage: "--name <display name>",
    options: { name: { type: "string", value: "<display name>", description: "the name renters see, up to 64 characters (required)" } },
    notes: ["During the beta an application is reviewed: `agentrent creators status` shows the decision."],
    examples: ['agentrent creators apply --name "Clause Labs"'],
    async run(ctx) {
      const name = requireFlag(ctx.flags, "name", "the display name renters see (up to 64 characters)");
      const profile = await authenticatedApi(ctx.settings(), ctx.env).client.creators.apply(name);
      ctx.out.result(profile, () => ctx.out.line(`Applied as ${profile.display_name} (${profile.wallet}); status ${profile.status}.`));
    },
  },
  {
    path: "creators status",
    summary: "Your creator application and agents, with review decisions and reasons",
    usage: "",
    examples: ["agentrent creators status", "agentrent creators status --json"],
    async run(ctx) {
      const me = await authenticatedApi(ctx.settings(), ctx.env).client.creators.me();
      ctx.out.result(me, () => {
        if (!me.profile) return ctx.out.line('This wallet has not applied as a creator: `agentrent creators apply --name "…"`.');
        ctx.out.line(`${me.profile.display_name} (${me.profile.wallet}): ${me.profile.status}${me.profile.reason ? ` (${me.profile.reason})` : ""}`);
        for (const a of me.agents) ctx.out.line(`  ${a.agent_id}  ${a.listing_id}  review ${a.review_status}${a.review_reason ? ` (${a.review_reason})` : ""}`);
      });
    },
  },
  {
    path: "listing pause",
    summary: "Pause a listing: no new rentals, no executions; existing access is kept",
    usage: "<listing>",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    examples: ["agentrent listing pause clause-finder-1a2b3c4d"],
    run: (ctx) => listingTransaction(ctx, "setListingActive", (ref) => [ref.onChainId, false], (ref) => `Paused ${ref.listingId}`, {}, true),
  },
  {
    path: "listing resume",
    summary: "Resume a paused listing",
    usage: "<listing>",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    examples: ["agentrent listing resume clause-finder-1a2b3c4d"],
    run: (ctx) => listingTransaction(ctx, "setListingActive", (ref) => [ref.onChainId, true], (ref) => `Resumed ${ref.listingId}`, {}, true),
  },
  {
    path: "listing close",
    summary: "Close a listing for good, active or paused, once its escrow is empty (--withdraw: take the earnings and close in one transaction); every credential becomes invalid",
    usage: "<listing> --yes [--withdraw]",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    options: {
      yes: { ...YES, description: "confirm: closing is final, the seed cannot be reused and every rental ends (required)" },
      withdraw: { type: "boolean", description: "withdraw the listing's earnings to the creator wallet and close, in one transaction (closeListingAndWithdraw)" },
    },
    notes: [
      "The contract closes a listing whose escrow holds no funds (EscrowNotEmpty otherwise). With earnings in escrow, pass --withdraw: nothing can land between the withdrawal and the close.",
      "A subscription listing's escrow empties only once every period its renters paid for has vested (`agentrent earnings` shows what is withdrawable).",
      "A per-task run still in flight when the listing closes is not charged: pause the listing first and wait for runs in flight if that matters.",
    ],
    examples: ["agentrent listing close clause-finder-1a2b3c4d --yes", "agentrent listing close clause-finder-1a2b3c4d --yes --withdraw"],
    async run(ctx) {
      if (ctx.flags.yes !== true) throw usageError("Closing is final (the seed cannot be reused and every rental ends): pass --yes to confirm.");
      const settings = ctx.settings();
      const api = tryApi(ctx);
      const ref = await listingFor(ctx, api);
      const { chainTarget, readAnyListing, earningsWithdrawn } = await chain();
      const tokenMarketplace = tokenMarketplaceOf(settings);
      const target = chainTarget(settings);
      const before = await readAnyListing(target, tokenMarketplace, ref.onChainId);
      const { market } = before;
      const withdraw = ctx.flags.withdraw === true;
      if (!withdraw && before.escrow > 0n) {
        throw new CliError(
          `The escrow of ${ref.listingId} holds ${amountIn(before.escrow, market.currency)} of earnings, and a listing closes only with an empty escrow: close and withdraw them in one transaction with \`agentrent listing close ${ctx.args[0]} --yes --withdraw\`, or withdraw first (\`agentrent withdraw ${ctx.args[0]}\`).`,
          EXIT.failure,
          "escrow_not_empty",
        );
      }
      const account = await loadAccount(settings, ctx.env, ctx.prompt);
      const tx = await sendCallWithProgress(ctx, target, account, { address: market.address, abi: market.abi, functionName: withdraw ? "closeListingAndWithdraw" : "closeListing", args: [ref.onChainId], contract: market.contract });
      const withdrawn = earningsWithdrawn(tx.logs);
      const listing = await readAnyListing(target, tokenMarketplace, ref.onChainId);
      ctx.out.result({ listing_id: ref.listingId, on_chain_id: ref.onChainId, status: listing.status, withdrawn_wei: withdrawn, currency: market.currency, tx_hash: tx.hash }, () =>
        ctx.out.line(`Closed ${ref.listingId}${withdraw ? `, ${amountIn(withdrawn, market.currency)} withdrawn` : ""} (transaction ${tx.hash}); on-chain status ${listing.status}.`),
      );
      await remindRefresh(ctx, api, ref, listing.status);
    },
  },
  {
    path: "listing update",
    summary: "Change a listing's price and/or metadata URI",
    usage: "<listing> [--price <amount>] [--metadata-uri <uri>]",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    options: {
      price: { type: "string", value: "<amount>", description: "the new price in the listing's currency, ETH or its token (unchanged when not given)" },
      "metadata-uri": { type: "string", value: "<uri>", description: "the new metadata URI, ipfs://… (unchanged when not given)" },
    },
    examples: ["agentrent listing update clause-finder-1a2b3c4d --price 0.002", "agentrent listing update lst_<64 hex> --metadata-uri ipfs://<cid>"],
    async run(ctx) {
      const priceFlag = stringFlag(ctx.flags, "price");
      const uriFlag = stringFlag(ctx.flags, "metadata-uri");
      if (priceFlag === undefined && uriFlag === undefined) throw usageError("Give --price and/or --metadata-uri.");
      await listingTransaction(
        ctx,
        "updateListing",
        (ref, current) => [ref.onChainId, priceFlag === undefined ? current.price : currencyAmount(priceFlag, current.market.currency, "--price"), uriFlag ?? current.metadataUri],
        (ref) => `Updated ${ref.listingId}`,
      );
    },
  },
  {
    path: "listing provider-key",
    summary: "Set a declarative agent's model-provider key (stored encrypted, never shown again)",
    usage: "<listing>",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    notes: ["The key is read from AGENTRENT_PROVIDER_KEY, from stdin when piped, or asked (hidden) on a terminal; never from a flag."],
    examples: ["agentrent listing provider-key clause-finder-1a2b3c4d", "printenv PROVIDER_A_KEY | agentrent listing provider-key clause-finder-1a2b3c4d"],
    async run(ctx) {
      const api = authenticatedApi(ctx.settings(), ctx.env);
      const ref = await resolveListing(ctx.args[0]!, api);
      let key = ctx.env.AGENTRENT_PROVIDER_KEY;
      if (!key) key = ctx.prompt.input.isTTY ? ((await ctx.prompt.secret("Provider key")) ?? "") : (await ctx.prompt.readAll()).trim();
      if (!key) throw usageError("No provider key: set AGENTRENT_PROVIDER_KEY, pipe it on stdin, or run on a terminal.");
      const set = await api.client.listings.setProviderKey(ref.listingId, key);
      ctx.out.result(set, () => ctx.out.line(`Provider key set for ${set.listing_id} at ${set.updated_at}.`));
    },
  },
  {
    path: "listing webhook-secret",
    summary: "Create or rotate a connected agent's webhook signing secret (shown once)",
    usage: "<listing>",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    notes: ["Your endpoint verifies each delivery's Standard Webhooks signature with it; rotating replaces it at once."],
    examples: ["agentrent listing webhook-secret my-connected-agent-1a2b3c4d"],
    async run(ctx) {
      const api = authenticatedApi(ctx.settings(), ctx.env);
      const ref = await resolveListing(ctx.args[0]!, api);
      const secret = await api.client.listings.rotateWebhookSecret(ref.listingId);
      ctx.out.result(secret, () => {
        ctx.out.line(secret.webhook_secret);
        ctx.out.notice(`Webhook secret for ${secret.listing_id}: shown only now. Configure your endpoint to verify Standard Webhooks signatures with it; rotating replaces it.`);
      });
    },
  },
  {
    path: "earnings",
    summary: "Show the escrowed earnings of one listing, or of all your listings",
    usage: "[<listing>]",
    args: [0, 1],
    arguments: ["[<listing>]  one listing (default: every listing of the signed-in creator)"],
    examples: ["agentrent earnings", "agentrent earnings clause-finder-1a2b3c4d --json"],
    async run(ctx) {
      const settings = ctx.settings();
      const target = (await chain()).chainTarget(settings);
      let refs: ListingRef[];
      if (ctx.args[0]) refs = [await resolveListing(ctx.args[0], tryApi(ctx))];
      else {
        const api = authenticatedApi(settings, ctx.env);
        const me = await api.client.creators.me();
        refs = me.agents.map((a) => ({ listingId: a.listing_id, onChainId: `0x${a.listing_id.slice(4)}` as Hex }));
      }
      type Currency = { symbol: string; address: string | null; decimals: number };
      const ETH: Currency = { symbol: "ETH", address: null, decimals: 18 };
      const rows: { listing_id: string; status: string; rental_model: string | null; escrow_wei: bigint; currency: Currency }[] = [];
      const tokenMarketplace = tokenMarketplaceOf(settings);
      for (const ref of refs) {
        const listing = await (await chain()).readAnyListing(target, tokenMarketplace, ref.onChainId).catch((error: unknown) => {
          if (error instanceof CliError && error.exitCode === EXIT.notFound && !ctx.args[0]) return undefined;
          throw error;
        });
        rows.push({ listing_id: ref.listingId, status: listing?.status ?? "not listed", rental_model: listing?.rentalModel ?? null, escrow_wei: listing?.escrow ?? 0n, currency: listing?.market.currency ?? ETH });
      }
      // Escrows add up within their currency only: total_wei is the ETH listings', totals every currency's.
      const totals = new Map<string, { currency: Currency; amount: bigint }>([["ETH", { currency: ETH, amount: 0n }]]);
      for (const r of rows) {
        const entry = totals.get(r.currency.symbol) ?? { currency: r.currency, amount: 0n };
        entry.amount += r.escrow_wei;
        totals.set(r.currency.symbol, entry);
      }
      const total = totals.get("ETH")!.amount;
      const byCurrency = [...totals.values()];
      ctx.out.result({ listings: rows, total_wei: total, totals: byCurrency.map((t) => ({ currency: t.currency, amount: t.amount })) }, () => {
        for (const r of rows) ctx.out.line(`${r.listing_id}  ${r.status}  ${amountIn(r.escrow_wei, r.currency)}`);
        ctx.out.line(`total ${byCurrency.map((t) => amountIn(t.amount, t.currency)).join(", ")} (withdraw with \`agentrent withdraw <listing>\`)`);
      });
    },
  },
  {
    path: "creator stats",
    summary: "Your analytics: revenue per currency, runs, latency and top renters, over a range (all listings or one)",
    usage: "[<listing>] [--from <ISO time>] [--to <ISO time>] [--granularity hour|day|month] [--csv <table>]",
    args: [0, 1],
    arguments: ["[<listing>]  one of your listings (default: all of them)"],
    options: {
      from: { type: "string", value: "<ISO time>", description: "start of the range (default: 30 days before --to)" },
      to: { type: "string", value: "<ISO time>", description: "end of the range (default: now)" },
      granularity: { type: "string", value: "hour|day|month", description: "the series' period (default day; hour covers at most 31 days)" },
      csv: { type: "string", value: "<table>", description: "print one table as CSV instead: series or top_renters (wei, the ETH listings'), or series_by_currency or top_renters_by_currency (a row per currency, in its smallest unit)" },
    },
    notes: [
      "Counts (runs, rentals, renters, latency) cover every listing. Amounts are exact, from the chain's events, and shown per currency (ETH, or the token a listing is priced in) in that currency's units: never added across currencies.",
      "`reconciled` says whether each currency's figures match its contract's escrow at the block shown; --json prints the API's answer as it is (the `_wei` fields the ETH listings', `by_currency` fields every currency's).",
    ],
    examples: ["agentrent creator stats", "agentrent creator stats clause-finder-1a2b3c4d --granularity hour --from 2030-01-01T00:00:00Z", "agentrent creator stats --csv top_renters_by_currency > renters.csv"],
    async run(ctx) {
      const api = authenticatedApi(ctx.settings(), ctx.env);
      const listingId = ctx.args[0] ? (await resolveListing(ctx.args[0], api)).listingId : undefined;
      const granularity = stringFlag(ctx.flags, "granularity");
      if (granularity !== undefined && !["hour", "day", "month"].includes(granularity)) throw usageError("--granularity is hour, day or month.");
      const range = {
        ...(stringFlag(ctx.flags, "from") === undefined ? {} : { from: stringFlag(ctx.flags, "from")! }),
        ...(stringFlag(ctx.flags, "to") === undefined ? {} : { to: stringFlag(ctx.flags, "to")! }),
        ...(granularity === undefined ? {} : { granularity: granularity as "hour" | "day" | "month" }),
      };
      const csv = stringFlag(ctx.flags, "csv");
      if (csv !== undefined) {
        if (!(CSV_TABLES as readonly string[]).includes(csv)) throw usageError(`--csv is ${CSV_TABLES.slice(0, -1).join(", ")} or ${CSV_TABLES.at(-1)}.`);
        ctx.out.line((await api.client.creators.analyticsCsv({ ...range, table: csv as AnalyticsCsvTable, ...(listingId === undefined ? {} : { listingId }) })).trimEnd());
        return;
      }
      const stats = listingId === undefined ? await api.client.creators.analytics(range) : await api.client.creators.listingAnalytics(listingId, range);
      ctx.out.result(stats, () => printStats(ctx, stats));
    },
  },
  {
    path: "withdraw",
    summary: "Withdraw a listing's earnings to the creator wallet (all that has vested, or --amount)",
    usage: "<listing> [--amount <amount>]",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    options: { amount: { type: "string", value: "<amount>", description: "how much to withdraw, in the listing's currency, ETH or its token (default: all of the escrow that has vested; a subscription payment vests over its paid period)" } },
    examples: ["agentrent withdraw clause-finder-1a2b3c4d", "agentrent withdraw clause-finder-1a2b3c4d --amount 0.01"],
    async run(ctx) {
      const settings = ctx.settings();
      const ref = await resolveListing(ctx.args[0]!, tryApi(ctx));
      const target = (await chain()).chainTarget(settings);
      const listing = await (await chain()).readAnyListing(target, tokenMarketplaceOf(settings), ref.onChainId);
      const { market } = listing;
      const amountFlag = stringFlag(ctx.flags, "amount");
      const amount = amountFlag === undefined ? await (await chain()).withdrawableOn(target, market, ref.onChainId) : currencyAmount(amountFlag, market.currency, "--amount");
      if (amount === 0n) throw new CliError(`Nothing to withdraw from ${ref.listingId} now (escrow ${amountIn(listing.escrow, market.currency)}${listing.escrow > 0n ? ", none of it vested yet" : ""}).`, EXIT.failure, "nothing_to_withdraw");
      const account = await loadAccount(settings, ctx.env, ctx.prompt);
      const tx = await sendCallWithProgress(ctx, target, account, { address: market.address, abi: market.abi, functionName: "withdrawEarnings", args: [ref.onChainId, amount], contract: market.contract });
      ctx.out.result({ listing_id: ref.listingId, amount_wei: amount, currency: market.currency, tx_hash: tx.hash, to: account.address }, () => ctx.out.line(`Withdrew ${amountIn(amount, market.currency)} from ${ref.listingId} to ${account.address} (${tx.hash}).`));
    },
  },
];


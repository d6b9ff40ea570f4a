// Renter commands: find a listing, rent it on-chain (each rental model), keep it alive, check the
// credential, and run tasks (streamed by default).
import { readFileSync } from "node:fs";
import type { ExecuteRequest, ListingSearchParams, Run } from "@agent-rental/sdk";
import { authenticatedApi, type Api } from "../api.ts";
import { intFlag, oneOf, requireFlag, stringFlag, type Command, type CommandContext } from "../cli.ts";
import { DEPOSIT, DURATION, LIMIT, OFFSET, RENTAL_MODEL, RUNS, YES } from "../flags.ts";
import type { ChainTarget } from "../chain.ts";
import { amountIn, DURATIONS, eth, ethAmount } from "../units.ts";
import { CATEGORIES, CHAIN_CREDENTIAL_STATUSES, LISTED_CREDENTIAL_STATUSES, RENTAL_MODELS, SEARCH_SORTS, type RentalModel } from "@agent-rental/core/vocabulary";
import { CliError, EXIT, usageError } from "../errors.ts";
import { parseListingRef, resolveListing, type ListingRef } from "../listing-ref.ts";
import { cancelled } from "../prompt.ts";
import { loadAccount } from "../wallet.ts";
import { sendWithProgress } from "../tx.ts";

// Loaded by the commands that need them, so the others start without viem (or Ajv).
const chain = () => import("../chain.ts");
const tokens = () => import("../token-rent.ts");

/** What a token purchase does: a new rental, a per-task top-up, a subscription's renewal. */
type TokenAction = "rent" | "top_up" | "renew";
const TOKEN_VERB: Record<TokenAction, [string, string]> = { rent: ["Rent", "Rented"], top_up: ["Top up", "Topped up"], renew: ["Renew", "Renewed"] };

/** `agentrent rent`, `topup` and `renew` of a listing priced in a token: the amount in the token, then the
 * purchase in as few confirmations as the token allows (one signature and one transaction with EIP-3009
 * or EIP-2612). */
async function rentInToken(ctx: CommandContext, target: ChainTarget, ref: ListingRef, listing: { price: bigint; token: `0x${string}`; accessType: number; status: number }, wanted: RentalModel | undefined, action: TokenAction = "rent"): Promise<void> {
  const { buyInToken, PAYMENT_WORDS, tokenAmount, tokenDeposit } = await tokens();
  const model = RENTAL_MODELS[listing.accessType]!;
  if (wanted && wanted !== model) throw usageError(`The listing is rented as ${model}, not ${wanted}: use --model ${model}.`);
  if (action === "top_up" && model !== "per_query") throw usageError(`The listing is ${model}; only per_query rentals are topped up${model === "subscription" ? " (use `agentrent renew`)" : ""}.`);
  if (action === "renew" && model !== "subscription") throw usageError(`The listing is ${model}; only subscriptions are renewed${model === "per_query" ? " (use `agentrent topup`)" : ""}.`);
  if (listing.status !== 1) throw new CliError(`The listing is not active; it cannot be ${action === "rent" ? "rented" : action === "renew" ? "renewed" : "topped up"} now.`, EXIT.access, "listing_not_active");
  const settings = ctx.settings();
  const decimals = Number(await target.client.readContract({ address: listing.token, abi: [{ type: "function", name: "decimals", stateMutability: "view", inputs: [], outputs: [{ name: "", type: "uint8" }] }] as const, functionName: "decimals" }));
  let arg = 0n;
  let detail = "permanent access";
  if (model === "subscription") {
    const d = duration(ctx);
    arg = d.seconds;
    detail = `${d.label} subscription`;
  } else if (model === "per_query") {
    const runs = intFlag(ctx.flags, "runs", 1, 1_000_000);
    const amount = stringFlag(ctx.flags, "deposit");
    if (runs !== undefined && amount !== undefined) throw usageError("Give --runs or --deposit, not both.");
    if (runs === undefined && amount === undefined) throw usageError("Say how much to deposit: --runs <N> (N runs at the listing's price) or --deposit <amount of the listing's token>.");
    arg = runs !== undefined ? listing.price * BigInt(runs) : tokenDeposit(amount!, decimals);
    detail = "per-task balance";
  }
  const account = await loadAccount(settings, ctx.env, ctx.prompt);
  const kind = action === "top_up" ? "top_up" : action === "renew" ? "renewal" : model === "one_time" ? "one_time" : model === "subscription" ? "subscription" : "per_query";
  const [verb, done] = TOKEN_VERB[action];
  const result = await ctx.out.progress("reading the listing and its token", (update) =>
    buyInToken(
      target,
      account,
      { tokenMarketplace: settings.tokenMarketplace!, listingId: ref.onChainId, kind, arg },
      async (quote) => {
        const what = `${verb} ${ref.listingId} (${detail}${model === "per_query" ? `, ${tokenAmount(listing.price, quote)} per run` : ""}) for ${tokenAmount(quote.due, quote)}, paid with ${PAYMENT_WORDS[quote.path]}`;
        ctx.out.notice(what);
        await confirmPayment(ctx, what);
        update("signing and sending");
      },
      (hash) => {
        ctx.out.notice(`transaction ${hash} sent`);
        update(`waiting for the confirmation of ${hash}`);
      },
    ),
  );
  const status = await target.client.readContract({ address: settings.tokenMarketplace!, abi: (await import("@agent-rental/core/token-marketplace")).tokenMarketplaceAbi, functionName: "credentialStatus", args: [ref.onChainId, account.address] });
  const credential = CHAIN_CREDENTIAL_STATUSES[status] ?? "unknown";
  const held = await target.client.readContract({ address: settings.tokenMarketplace!, abi: (await import("@agent-rental/core/token-marketplace")).tokenMarketplaceAbi, functionName: "credentialOf", args: [ref.onChainId, account.address] });
  const expiresAt = model === "subscription" && held[3] > 0 ? new Date(Number(held[3]) * 1000).toISOString() : null;
  const data = {
    action,
    listing_id: ref.listingId,
    on_chain_id: ref.onChainId,
    rental_model: model,
    currency: { symbol: result.symbol, address: result.token, decimals: result.decimals },
    paid_units: result.due.toString(),
    payment: result.path,
    transactions: result.transactions,
    wallet: account.address,
    credential: { status: credential, ...(model === "subscription" ? { expires_at: expiresAt } : {}), ...(model === "per_query" ? { balance_units: held[4].toString() } : {}) },
  };
  ctx.out.result(data, () => {
    ctx.out.line(`${done} ${ref.listingId} (${model}) for ${tokenAmount(result.due, result)}, paid with ${PAYMENT_WORDS[result.path]}.`);
    ctx.out.table([
      ...result.transactions.map((hash, i): [string, string] => [i === result.transactions.length - 1 ? "transaction" : "approval", hash]),
      ["credential", credential],
      ...(model === "subscription" ? [["expires", expiresAt ?? "-"] as [string, string]] : []),
      ...(model === "per_query" ? [["balance", tokenAmount(held[4], result)] as [string, string]] : []),
    ]);
  });
}

function number(flags: CommandContext["flags"], name: string): number | undefined {
  const value = stringFlag(flags, name);
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw usageError(`--${name} must be a non-negative number, not ${JSON.stringify(value)}.`);
  return n;
}

/** The API when one can be used (signed in or a key), for resolving agent ids; undefined otherwise. */
function optionalApi(ctx: CommandContext): Api | undefined {
  try {
    return authenticatedApi(ctx.settings(), ctx.env);
  } catch {
    return undefined;
  }
}

/** Asks before spending ETH: on a terminal unless --yes; elsewhere --yes is required. */
async function confirmPayment(ctx: CommandContext, what: string): Promise<void> {
  if (ctx.flags.yes === true) return;
  if (!ctx.prompt.interactive) throw usageError(`${what}. Pass --yes to confirm the payment when not on a terminal.`);
  const yes = await ctx.prompt.confirm(`${what}. Proceed?`).catch((error: unknown) => {
    throw error instanceof CliError && error.code === "cancelled" ? cancelled("Cancelled; nothing was paid.") : error;
  });
  if (!yes) throw new CliError("Cancelled; nothing was paid.", EXIT.failure, "cancelled");
}

function duration(ctx: CommandContext): { label: string; seconds: bigint } {
  const label = stringFlag(ctx.flags, "duration") ?? "30d";
  const seconds = DURATIONS[label];
  if (seconds === undefined) throw usageError(`--duration must be 30d, 90d or 365d, not ${JSON.stringify(label)}.`);
  return { label, seconds };
}

/** The per-query deposit: --runs N (N times the price per run) or --deposit <ETH>. */
function deposit(ctx: CommandContext, price: bigint, verb: string): bigint {
  const runs = intFlag(ctx.flags, "runs", 1, 1_000_000);
  const amount = stringFlag(ctx.flags, "deposit");
  if (runs !== undefined && amount !== undefined) throw usageError("Give --runs or --deposit, not both.");
  if (runs !== undefined) return price * BigInt(runs);
  if (amount !== undefined) return ethAmount(amount, "--deposit");
  throw usageError(`Say how much to ${verb}: --runs <N> (N runs at ${eth(price)} each) or --deposit <ETH>.`);
}

async function afterPurchase(ctx: CommandContext, target: ChainTarget, ref: ListingRef, wallet: `0x${string}`) {
  const credential = await (await chain()).credentialOf(target, ref.onChainId, wallet);
  return { status: credential.status, expires_at: credential.expiresAt > 0 ? new Date(credential.expiresAt * 1000).toISOString() : null, balance_wei: credential.balance };
}

const LISTING_ARGUMENT = "<listing>  the agent id (<name>-<8 hex>), the listing id (lst_…) or the on-chain id (0x…)";

/** A run's cost in its listing's currency ("0.001 ETH", "0.25 USDC"). A run's answer names no currency; its
 * record does (GET /v1/runs/{run_id}): asked once, and when it cannot be, the cost in its smallest unit. */
async function costOf(api: Api, run: Run): Promise<string> {
  try {
    return amountIn(BigInt(run.cost_wei), (await api.client.runs.get(run.run_id)).currency);
  } catch {
    return `${run.cost_wei} units of its listing's currency`;
  }
}

async function printRun(ctx: CommandContext, api: Api, run: Run, streamed: boolean): Promise<number> {
  const failed = run.status === "failed";
  // (--json prints the run as the API answered it: no cost line, so nothing to ask for.)
  const cost = ctx.out.json ? "" : await costOf(api, run);
  ctx.out.result(run, () => {
    if (!streamed) ctx.out.line(typeof run.output === "string" ? run.output : JSON.stringify(run.output, null, 2));
    else ctx.out.line();
    ctx.out.notice(`run ${run.run_id}: ${run.status}, cost ${cost}, ${run.duration_ms} ms${run.error ? ` (${run.error.code}: ${run.error.message})` : ""}`);
    if (run.settlement === "pending") ctx.out.notice(`its charge is not confirmed on-chain yet; the result is released once it is: agentrent runs get ${run.run_id}`);
  });
  return failed ? EXIT.failure : EXIT.ok;
}

/** What an agent takes, from its metadata's input schema: `name: type (required)` per property, the
 * required ones first (the stored schema's key order is not the creator's). */
export function describeInput(schema: Record<string, unknown> | undefined): string[] {
  if (!schema || typeof schema !== "object") return ["(not described)"];
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown; enum?: unknown[]; description?: string }>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const names = Object.keys(properties).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
  if (names.length === 0) return [schema.type === "string" ? "text" : `${String(schema.type ?? "any")} (no named properties)`];
  return names.map((name) => {
    const p = properties[name]!;
    const type = Array.isArray(p.enum) ? p.enum.map((v) => JSON.stringify(v)).join("|") : Array.isArray(p.type) ? p.type.join("|") : String(p.type ?? "any");
    return `${name}: ${type}${required.has(name) ? " (required)" : ""}${p.description ? `  ${p.description}` : ""}`;
  });
}

/** The agent id (`<name>-<8 hex>`) and its input schema, from the listing's public metadata; undefined when unreadable. */
async function agentOf(api: Api, listing: { id: string; metadata_uri?: string }): Promise<{ agent_id: string; input_schema: Record<string, unknown> } | undefined> {
  try {
    const uri = listing.metadata_uri ?? (await api.client.listings.get(listing.id)).metadata_uri;
    const metadata = await api.client.listings.metadata(uri);
    return { agent_id: `${metadata.name}-${listing.id.slice(4, 12)}`, input_schema: metadata.input_schema };
  } catch {
    return undefined;
  }
}

/** A value as a shell reads it back (single-quoted when it needs to be). */
function quote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, "'\\''")}'`;
}

function parseInput(ctx: CommandContext, value: string | undefined): ExecuteRequest["input"] | undefined {
  if (value === undefined) return undefined;
  let text = value;
  if (value.startsWith("@")) {
    const file = value.slice(1);
    try {
      text = file === "-" ? readFileSync(0, "utf8") : readFileSync(ctx.path(file), "utf8");
    } catch {
      throw usageError(`Cannot read the input file ${file}.`);
    }
  }
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) {
    try {
      return JSON.parse(trimmed) as Record<string, unknown>;
    } catch (error) {
      throw usageError(`--input looks like JSON but does not parse: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return text;
}

export const renterCommands: Command[] = [
  {
    path: "search",
    summary: "Search the catalogue of published listings",
    usage: "[query] [--category c] [--model m] [--min-price eth] [--max-price eth] [--min-rating r] [--sort s] [--limit n] [--offset n]",
    args: [0, 1],
    arguments: ["[query]  words to match in titles and descriptions"],
    options: {
      category: { type: "string", value: "<category>", description: `only this category: ${CATEGORIES.join(", ")}` },
      model: { ...RENTAL_MODEL, description: `only this rental model: ${RENTAL_MODELS.join(", ")}` },
      currency: { type: "string", value: "<symbol>", description: "only listings priced in it: ETH or a token's symbol (USDC, RENT); the price bounds are then in it" },
      "min-price": { type: "string", value: "<amount>", description: "the lowest price, in ETH (or in --currency)" },
      "max-price": { type: "string", value: "<amount>", description: "the highest price, in ETH (or in --currency)" },
      "min-rating": { type: "string", value: "<0-5>", description: "the lowest average rating, 0 to 5" },
      sort: { type: "string", value: "<order>", description: `${SEARCH_SORTS.join(", ")} (default relevance)` },
      limit: LIMIT,
      offset: OFFSET,
    },
    notes: ["Each listing shows its agent id (for `agentrent execute`) and the input it takes."],
    examples: ['agentrent search "contract review" --category legal --max-price 0.01', "agentrent search --model per_query --sort rating --json"],
    async run(ctx) {
      const params: ListingSearchParams = {};
      if (ctx.args[0]) params.q = ctx.args[0];
      const category = oneOf(stringFlag(ctx.flags, "category"), CATEGORIES, "--category");
      if (category) params.category = category;
      const model = oneOf(stringFlag(ctx.flags, "model"), RENTAL_MODELS, "--model");
      if (model) params.rental_model = model;
      const sort = oneOf(stringFlag(ctx.flags, "sort"), SEARCH_SORTS, "--sort");
      if (sort) params.sort = sort;
      const currency = stringFlag(ctx.flags, "currency");
      if (currency !== undefined) (params as { currency?: string }).currency = currency;
      const minPrice = number(ctx.flags, "min-price");
      if (minPrice !== undefined) params.min_price = minPrice;
      const maxPrice = number(ctx.flags, "max-price");
      if (maxPrice !== undefined) params.max_price = maxPrice;
      const minRating = number(ctx.flags, "min-rating");
      if (minRating !== undefined) params.min_rating = minRating;
      const limit = intFlag(ctx.flags, "limit", 1, 100);
      if (limit !== undefined) params.limit = limit;
      const offset = intFlag(ctx.flags, "offset", 0, 1_000_000);
      if (offset !== undefined) params.offset = offset;
      const api = authenticatedApi(ctx.settings(), ctx.env);
      const found = await api.client.listings.search(params);
      const agents = await Promise.all(found.listings.map((l) => agentOf(api, l)));
      const result = { ...found, listings: found.listings.map((l, i) => ({ ...l, agent_id: agents[i]?.agent_id ?? null, input_schema: agents[i]?.input_schema ?? null })) };
      ctx.out.result(result, () => {
        if (result.listings.length === 0) return ctx.out.line("No listings match.");
        for (const l of result.listings) {
          ctx.out.line(`${l.agent_id ?? "(agent id unavailable)"}  ${l.id}`);
          ctx.out.line(`  input: ${describeInput(l.input_schema ?? undefined).join("; ")}`);
          ctx.out.line(`  ${l.title} (${l.category.join(", ")}) · ${l.rental_model} ${l.price_eth} ${l.currency.symbol} · rating ${l.rating.toFixed(1)} (${l.review_count}) · ${l.run_count} runs · by ${l.creator.display_name}`);
          ctx.out.line(`  ${l.description.length > 120 ? `${l.description.slice(0, 117)}...` : l.description}`);
        }
        ctx.out.line(`${result.offset + 1}-${result.offset + result.listings.length} of ${result.total}`);
      });
    },
  },
  {
    path: "show",
    summary: "Show every field of a listing, its agent id and the input it takes",
    usage: "<listing>",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    examples: ["agentrent show contract-reviewer-1a2b3c4d", "agentrent show lst_<64 hex> --json"],
    async run(ctx) {
      const api = authenticatedApi(ctx.settings(), ctx.env);
      const ref = await resolveListing(ctx.args[0]!, api);
      const got = await api.client.listings.get(ref.listingId);
      const agent = await agentOf(api, got);
      const listing = { ...got, agent_id: agent?.agent_id ?? null, input_schema: agent?.input_schema ?? null };
      const input = describeInput(listing.input_schema ?? undefined);
      ctx.out.result(listing, () =>
        ctx.out.table([
          ["agent id", listing.agent_id ?? "(metadata unavailable)"],
          ["id", listing.id],
          ...input.map((line, i): [string, string] => [i === 0 ? "input" : "", line]),
          ["title", listing.title],
          ["status", listing.status],
          ["rental model", listing.rental_model],
          ["price", `${listing.price_eth} ${listing.currency.symbol}${listing.rental_model === "subscription" ? " per 30 days" : listing.rental_model === "per_query" ? " per run" : ""}`],
          ["category", listing.category.join(", ")],
          ["creator", `${listing.creator.display_name} (${listing.creator.id}, ${listing.creator.listing_count} listings)`],
          ["rating", `${listing.rating.toFixed(1)} (${listing.review_count} reviews)`],
          ["runs", `${listing.run_count} (success ${(listing.success_rate * 100).toFixed(0)}%)`],
          ["published", listing.published_at],
          ["updated", listing.last_updated],
          ["on-chain id", listing.on_chain_id],
          ["metadata", listing.metadata_uri],
          ["description", listing.description],
          ...listing.sample_output.map((s, i): [string, string] => [`sample ${i + 1}`, s]),
        ]),
      );
    },
  },
  {
    path: "rent",
    summary: "Rent a listing on-chain: one_time, subscription (--duration) or per_query (--runs / --deposit)",
    usage: "<listing> [--model one_time|subscription|per_query] [--duration 30d|90d|365d] [--runs N | --deposit ETH] [--yes]",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    options: {
      model: { ...RENTAL_MODEL, description: "the rental model you expect (checked against the listing's; default: the listing's)" },
      duration: DURATION,
      runs: RUNS,
      deposit: DEPOSIT,
      yes: { ...YES, description: "pay without asking (required when not on a terminal)" },
    },
    notes: ["Rentals are final once confirmed on-chain (no refunds). The transaction's hash is shown as soon as it is sent, then its confirmation."],
    examples: ["agentrent rent contract-reviewer-1a2b3c4d", "agentrent rent unit-test-writer-1a2b3c4d --runs 10 --yes", "agentrent rent market-watch-1a2b3c4d --model subscription --duration 90d"],
    async run(ctx) {
      const settings = ctx.settings();
      const wanted = oneOf(stringFlag(ctx.flags, "model"), RENTAL_MODELS, "--model");
      const ref = parseListingRef(ctx.args[0]!) ?? (await resolveListing(ctx.args[0]!, optionalApi(ctx)));
      const target = (await chain()).chainTarget(settings);
      const tokenListing = await (await tokens()).readTokenListing(target, settings.tokenMarketplace, ref.onChainId);
      if (tokenListing) return rentInToken(ctx, target, ref, tokenListing, wanted);
      const listing = await (await chain()).readListing(target, ref.onChainId);
      if (wanted && wanted !== listing.rentalModel) throw usageError(`The listing is rented as ${listing.rentalModel}, not ${wanted}: use --model ${listing.rentalModel}.`);
      if (listing.status !== "active") throw new CliError(`The listing is ${listing.status}; it cannot be rented now.`, EXIT.access, "listing_not_active");
      const model: RentalModel = listing.rentalModel;
      let fn: string;
      let args: unknown[] = [ref.onChainId];
      let value: bigint;
      let detail: string;
      if (model === "one_time") {
        fn = "purchaseOneTime";
        value = listing.price;
        detail = "permanent access";
      } else if (model === "subscription") {
        const d = duration(ctx);
        fn = "purchaseSubscription";
        args = [ref.onChainId, d.seconds];
        value = await (await chain()).subscriptionPrice(target, ref.onChainId, d.seconds);
        detail = `${d.label} subscription`;
      } else {
        fn = "purchasePerQuery";
        value = deposit(ctx, listing.price, "deposit");
        detail = `per-task balance (${eth(listing.price)} per run)`;
      }
      await confirmPayment(ctx, `Rent ${ref.listingId} (${detail}) for ${eth(value)}`);
      const account = await loadAccount(settings, ctx.env, ctx.prompt);
      const tx = await sendWithProgress(ctx, target, account, fn, args, value);
      const credential = await afterPurchase(ctx, target, ref, account.address);
      const data = { listing_id: ref.listingId, on_chain_id: ref.onChainId, rental_model: model, paid_wei: value, tx_hash: tx.hash, wallet: account.address, credential };
      ctx.out.result(data, () => {
        ctx.out.line(`Rented ${ref.listingId} (${model}) for ${eth(value)}.`);
        ctx.out.table([["transaction", tx.hash], ["credential", credential.status], ["expires", credential.expires_at], ...(model === "per_query" ? [["balance", eth(credential.balance_wei)] as [string, string]] : [])]);
      });
    },
  },
  {
    path: "topup",
    summary: "Add to a per-query balance on-chain (in the listing's currency: ETH or its token)",
    usage: "<listing> (--runs N | --deposit ETH) [--yes]",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    options: { runs: RUNS, deposit: DEPOSIT, yes: { ...YES, description: "pay without asking (required when not on a terminal)" } },
    examples: ["agentrent topup unit-test-writer-1a2b3c4d --runs 20", "agentrent topup lst_<64 hex> --deposit 0.05 --yes --json"],
    async run(ctx) {
      const settings = ctx.settings();
      const ref = parseListingRef(ctx.args[0]!) ?? (await resolveListing(ctx.args[0]!, optionalApi(ctx)));
      const target = (await chain()).chainTarget(settings);
      const tokenListing = await (await tokens()).readTokenListing(target, settings.tokenMarketplace, ref.onChainId);
      if (tokenListing) return rentInToken(ctx, target, ref, tokenListing, undefined, "top_up");
      const listing = await (await chain()).readListing(target, ref.onChainId);
      if (listing.rentalModel !== "per_query") throw usageError(`The listing is ${listing.rentalModel}; only per_query rentals are topped up${listing.rentalModel === "subscription" ? " (use `agentrent renew`)" : ""}.`);
      const value = deposit(ctx, listing.price, "top up");
      await confirmPayment(ctx, `Top up ${ref.listingId} by ${eth(value)}`);
      const account = await loadAccount(settings, ctx.env, ctx.prompt);
      const tx = await sendWithProgress(ctx, target, account, "topUpBalance", [ref.onChainId], value);
      const credential = await afterPurchase(ctx, target, ref, account.address);
      ctx.out.result({ listing_id: ref.listingId, paid_wei: value, tx_hash: tx.hash, credential }, () => ctx.out.line(`Topped up ${ref.listingId} by ${eth(value)}; balance ${eth(credential.balance_wei)} (${tx.hash}).`));
    },
  },
  {
    path: "renew",
    summary: "Renew a subscription on-chain (extends from its expiry, or from now when expired; paid in the listing's currency)",
    usage: "<listing> [--duration 30d|90d|365d] [--yes]",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    options: { duration: DURATION, yes: { ...YES, description: "pay without asking (required when not on a terminal)" } },
    examples: ["agentrent renew market-watch-1a2b3c4d", "agentrent renew market-watch-1a2b3c4d --duration 365d --yes"],
    async run(ctx) {
      const settings = ctx.settings();
      const ref = parseListingRef(ctx.args[0]!) ?? (await resolveListing(ctx.args[0]!, optionalApi(ctx)));
      const target = (await chain()).chainTarget(settings);
      const tokenListing = await (await tokens()).readTokenListing(target, settings.tokenMarketplace, ref.onChainId);
      if (tokenListing) return rentInToken(ctx, target, ref, tokenListing, undefined, "renew");
      const listing = await (await chain()).readListing(target, ref.onChainId);
      if (listing.rentalModel !== "subscription") throw usageError(`The listing is ${listing.rentalModel}; only subscriptions are renewed${listing.rentalModel === "per_query" ? " (use `agentrent topup`)" : ""}.`);
      const d = duration(ctx);
      const value = await (await chain()).subscriptionPrice(target, ref.onChainId, d.seconds);
      await confirmPayment(ctx, `Renew ${ref.listingId} for ${d.label} for ${eth(value)}`);
      const account = await loadAccount(settings, ctx.env, ctx.prompt);
      const tx = await sendWithProgress(ctx, target, account, "renewSubscription", [ref.onChainId, d.seconds], value);
      const credential = await afterPurchase(ctx, target, ref, account.address);
      ctx.out.result({ listing_id: ref.listingId, paid_wei: value, tx_hash: tx.hash, credential }, () => ctx.out.line(`Renewed ${ref.listingId} until ${credential.expires_at} (${tx.hash}).`));
    },
  },
  {
    path: "credentials",
    summary: "List your rental credentials, or verify one listing's against the chain",
    usage: `[<listing>] [--status ${LISTED_CREDENTIAL_STATUSES.join("|")}] [--limit n] [--offset n]`,
    args: [0, 1],
    arguments: ["[<listing>]  verify this listing's credential against the chain (exit 4 when not valid) instead of listing them all"],
    options: { status: { type: "string", value: "<status>", description: "only credentials with this status: active, expired or low_balance" }, limit: LIMIT, offset: OFFSET },
    examples: ["agentrent credentials --status active", "agentrent credentials contract-reviewer-1a2b3c4d --json"],
    async run(ctx) {
      const api = authenticatedApi(ctx.settings(), ctx.env);
      if (ctx.args[0]) {
        const ref = await resolveListing(ctx.args[0], api);
        const check = await api.client.credentials.verify(ref.listingId);
        ctx.out.result(check, () =>
          ctx.out.table([["listing", check.listing_id], ["valid", check.valid], ["status", check.status], ["rental model", check.rental_model], ["expired at", check.expired_at], ["on-chain verified", check.on_chain_verified]]),
        );
        return check.valid ? EXIT.ok : EXIT.access;
      }
      const status = oneOf(stringFlag(ctx.flags, "status"), LISTED_CREDENTIAL_STATUSES, "--status");
      const limit = intFlag(ctx.flags, "limit", 1, 100);
      const offset = intFlag(ctx.flags, "offset", 0, 1_000_000);
      const list = await api.client.credentials.list({ ...(status ? { status } : {}), ...(limit !== undefined ? { limit } : {}), ...(offset !== undefined ? { offset } : {}) });
      ctx.out.result(list, () => {
        if (list.credentials.length === 0) return ctx.out.line("No rental credentials.");
        for (const c of list.credentials) ctx.out.line(`${c.listing_id}  ${c.listing_title}  ${c.rental_model}  ${c.status}  ${c.currency.symbol}${c.expires_at ? `  expires ${c.expires_at}` : ""}${c.balance_wei !== undefined ? `  balance ${amountIn(c.balance_wei, c.currency)}` : ""}`);
        ctx.out.line(`${list.credentials.length} of ${list.total}`);
      });
    },
  },
  {
    path: "execute",
    summary: "Run a task on a rented agent; output streams as it arrives (--no-stream for one answer)",
    usage: "<agent_id> --task <text> [--input <json|text|@file>] [--no-stream] [--timeout <seconds>] [--priority] [--idempotency-key <key>]",
    args: [1, 1],
    arguments: ["<agent_id>  the agent id (<name>-<8 hex>), the listing id (lst_…) or the on-chain id"],
    options: {
      task: { type: "string", short: "t", value: "<text>", description: "what the agent should do, in words (required)" },
      input: { type: "string", short: "i", value: "<json|text|@file>", description: "the input: a JSON object, text, @file to read a file, @- to read stdin" },
      "no-stream": { type: "boolean", description: "wait for the whole result (POST /v1/execute) instead of streaming the output" },
      timeout: { type: "string", value: "<seconds>", description: "the run's limit, 1 to 300 (the lower of this and the agent's own)" },
      priority: { type: "boolean", description: "run in the priority queue" },
      "idempotency-key": { type: "string", value: "<key>", description: "your own key: the same key and request return the first run, never run or charged twice (default: a new key)" },
    },
    notes: [
      "Progress goes to stderr: the run id as soon as the run starts, then \"waiting for the first token\" (streamed),",
      "or a spinner until the result (--no-stream). The run id, status and cost follow the output.",
      "Ctrl-C during a streamed run prints its id and how to follow it (agentrent runs events <run_id>) or read it",
      "(agentrent runs get <run_id>). A --no-stream run learns its id only with its result (POST /v1/execute",
      "answers once, at the end): Ctrl-C then prints its idempotency key and the command that returns that same run,",
      "waiting for it if it is still going, without running or charging it again (for 24 hours). Either exits 130.",
      "A run that finishes with status failed exits 1; the run id is printed either way.",
    ],
    examples: [
      'agentrent execute contract-reviewer-1a2b3c4d --task "Review this NDA" --input @nda.json',
      'agentrent execute lst_<64 hex> --task "Summarize" --input "plain text input" --no-stream --json',
      'cat report.txt | agentrent execute summarizer-1a2b3c4d -t "Summarize in 5 bullets" -i @- --idempotency-key report-2026-11',
    ],
    handlesInterrupt: true,
    async run(ctx) {
      const task = requireFlag(ctx.flags, "task", "what the agent should do");
      const request: ExecuteRequest = { agent_id: ctx.args[0]!, task };
      const inputFlag = stringFlag(ctx.flags, "input");
      const input = parseInput(ctx, inputFlag);
      if (input !== undefined) request.input = input;
      const timeout = intFlag(ctx.flags, "timeout", 1, 300);
      if (timeout !== undefined) request.timeout_seconds = timeout;
      if (ctx.flags.priority === true) request.priority = "priority";
      // Always a key of our own, so an interrupted run can be asked for again without running twice.
      const idempotencyKey = stringFlag(ctx.flags, "idempotency-key") ?? crypto.randomUUID();
      const api = authenticatedApi(ctx.settings(), ctx.env);
      const signal = ctx.signal;
      if (ctx.flags["no-stream"] === true) {
        try {
          const run = await ctx.out.progress(`running ${request.agent_id}`, () => api.client.execute(request, { idempotencyKey, signal }));
          return await printRun(ctx, api, run, false);
        } catch (error) {
          if (!signal.aborted) throw error;
          // The same request with the same key: the API hashes the body with the key, so every flag that
          // shapes the body is repeated as given.
          const again = [
            `agentrent execute ${quote(request.agent_id)} --task ${quote(task)}`,
            inputFlag === undefined ? "" : ` --input ${quote(inputFlag)}`,
            timeout === undefined ? "" : ` --timeout ${timeout}`,
            ctx.flags.priority === true ? " --priority" : "",
            ` --no-stream --idempotency-key ${quote(idempotencyKey)}`,
          ].join("");
          throw new CliError(
            [
              `Interrupted. If the request reached the service, the run goes on there and is charged once; a --no-stream run's id comes with its result. Its idempotency key is ${idempotencyKey}.`,
              `The result of that same run (waited for if it is still going; never run or charged again, for 24 hours), with its run id:`,
              `  ${again}${inputFlag === "@-" ? "   (with the same input on stdin)" : ""}`,
            ].join("\n"),
            EXIT.interrupted,
            "interrupted",
            { idempotency_key: idempotencyKey, resume_command: again },
          );
        }
      }
      let runId: string | undefined;
      let done: Run | undefined;
      try {
        let update: ((label: string) => void) | undefined;
        const waiting = (id: string) => `run ${id}: waiting for the first token`;
        // The run id arrives with the response's headers, before the first token.
        const events = api.client.executeStream(request, {
          idempotencyKey,
          signal,
          onRunId: (id) => {
            runId = id;
            update?.(waiting(id));
          },
        });
        const first = await ctx.out.progress("starting the run", (next) => {
          update = next;
          return events.next();
        });
        update = undefined;
        for (let step = first; !step.done; step = await events.next()) {
          const event = step.value;
          if (event.type === "output") ctx.out.write(event.delta);
          else done = event.run;
        }
      } catch (error) {
        if (!signal.aborted) throw error;
        if (!runId) {
          throw new CliError(
            `Interrupted before the run started. Run it again with --idempotency-key ${quote(idempotencyKey)}: if the request did reach the service, that returns the same run, never charged twice.`,
            EXIT.interrupted,
            "interrupted",
            { idempotency_key: idempotencyKey },
          );
        }
        ctx.out.write("\n");
        throw new CliError(`Interrupted; run ${runId} goes on in the service. Follow it: agentrent runs events ${runId}; read it: agentrent runs get ${runId}`, EXIT.interrupted, "interrupted", { run_id: runId });
      }
      if (!done) throw new CliError("The stream ended without a result.", EXIT.unavailable, "stream_interrupted");
      return await printRun(ctx, api, done, true);
    },
  },
  {
    path: "runs events",
    summary: "Follow a run's output as it streams (from the start, or after --after <event id>); ends with its result",
    usage: "<run_id> [--after <event id>]",
    args: [1, 1],
    arguments: ["<run_id>  a run of your wallet (run_…), as `agentrent execute` prints it"],
    options: { after: { type: "string", value: "<event id>", description: "resume after this event id (an output offset) instead of from the start" } },
    notes: ["How to pick up a streamed run after Ctrl-C: the output so far, then the rest as it comes, then its result."],
    examples: ["agentrent runs events run_<32 hex>", "agentrent runs events run_<32 hex> --after 120"],
    async run(ctx) {
      const api = authenticatedApi(ctx.settings(), ctx.env);
      const after = stringFlag(ctx.flags, "after");
      let done: Run | undefined;
      for await (const event of api.client.runs.events(ctx.args[0]!, { signal: ctx.signal, ...(after === undefined ? {} : { lastEventId: after }) })) {
        if (event.type === "output") ctx.out.write(event.delta);
        else done = event.run;
      }
      if (!done) throw new CliError("The stream ended without a result.", EXIT.unavailable, "stream_interrupted");
      return await printRun(ctx, api, done, true);
    },
  },
  {
    path: "runs get",
    summary: "Show a run: status, output, cost, settlement and its on-chain receipt",
    usage: "<run_id>",
    args: [1, 1],
    arguments: ["<run_id>  a run of your wallet (run_…), as `agentrent execute` prints it"],
    examples: ["agentrent runs get run_<32 hex>", "agentrent runs get run_<32 hex> --json | jq .receipt"],
    async run(ctx) {
      const run = await authenticatedApi(ctx.settings(), ctx.env).client.runs.get(ctx.args[0]!);
      ctx.out.result(run, () =>
        ctx.out.table([
          ["run", run.run_id],
          ["agent", run.agent_id],
          ["status", run.status],
          ["cost", amountIn(BigInt(run.cost_wei), run.currency)],
          ["duration", `${run.duration_ms} ms`],
          ["settlement", run.settlement],
          ["receipt", run.receipt ? `batch ${run.receipt.batch_index} (${run.receipt.tx_hash})` : "not yet logged"],
          ["output", typeof run.output === "string" ? run.output : JSON.stringify(run.output)],
        ]),
      );
    },
  },
];

// ERC-8004 from the command line: a creator registers a listing as an agent (the API writes the
// registration file and prepares register, then setAgentURI; the CLI's wallet sends both) and refreshes
// the agent's file after a status change; a renter rates a run (the API writes the feedback file with
// the run's receipt and prepares giveFeedback; the CLI's wallet sends it) and reads a listing's
// reputation. Every prepared transaction is decoded and checked before it is signed (registries.ts).
import type { PrivateKeyAccount } from "viem/accounts";
import type { Erc8004Registration, Reputation, RunFeedback } from "@agent-rental/sdk";
import { AgentRentalError } from "@agent-rental/sdk";
import { FEEDBACK_REASON_MEANINGS } from "@agent-rental/core/vocabulary";
import { authenticatedApi, type Api } from "../api.ts";
import { intFlag, requireFlag, stringFlag, type Command, type CommandContext } from "../cli.ts";
import { CliError, EXIT, toCliError, usageError } from "../errors.ts";
import { resolveListing } from "../listing-ref.ts";
import { loadAccount } from "../wallet.ts";
import { sendCallWithProgress } from "../tx.ts";
import { amountIn } from "../units.ts";

// Loaded by these commands only, so the others start without viem.
const chain = () => import("../chain.ts");
const registries = () => import("../registries.ts");

const LISTING_ARGUMENT = "<listing>  the agent id (<name>-<8 hex>), the listing id (lst_…) or the on-chain id (0x…)";
/** How long the commands wait for the service to index what the chain already has. */
const INDEX_WAIT_MS = 60_000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Polls `check` until it answers something, every second, for at most `ms`; undefined when it never did. */
async function poll<T>(ctx: CommandContext, ms: number, check: () => Promise<T | undefined>): Promise<T | undefined> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await check();
    if (found !== undefined || Date.now() >= deadline || ctx.signal.aborted) return found;
    await sleep(1000, ctx.signal);
  }
}

/** The wallet that must send: the listing's creator, or the run's renter (a feedback another wallet sends never counts). */
function requireWallet(account: PrivateKeyAccount, expected: string, who: string): void {
  if (account.address.toLowerCase() !== expected.toLowerCase()) {
    throw new CliError(
      `The CLI's wallet is ${account.address}, but ${who} is ${expected}: set AGENTRENT_PRIVATE_KEY or --keystore to that wallet. Nothing was sent.`,
      EXIT.auth,
      "wrong_wallet",
    );
  }
}

const plain = (file: Record<string, unknown>, key: string) => (typeof file[key] === "boolean" ? file[key] : undefined);

/** The score a --value flag gives: 0 to 100, at most 2 decimals (as POST /v1/runs/{run_id}/feedback takes it). */
export function scoreFlag(value: string): number {
  const trimmed = value.trim();
  if (!/^(100(\.0{1,2})?|\d{1,2}(\.\d{1,2})?)$/.test(trimmed)) throw usageError(`--value must be a score from 0 to 100 with at most 2 decimals (80 is 4 stars), not ${JSON.stringify(value)}.`);
  return Number(trimmed);
}

/** Why a feedback does not count, in words (the vocabulary's meanings of the API's reasons). */
const reasonWords = (reason: string | null) => (FEEDBACK_REASON_MEANINGS as Record<string, string>)[reason ?? ""] ?? reason ?? "";

const stars = (score: number) => (Math.round((score / 20) * 10) / 10).toFixed(1);
const reviews = (n: number) => (n === 1 ? "1 verified review" : `${n} verified reviews`);

/** Sends a prepared setAgentURI and reports the file it points the agent at. */
async function pointAgent(ctx: CommandContext, api: Api, account: PrivateKeyAccount, listingId: string, agentId: string) {
  const [{ chainTarget }, reg] = await Promise.all([chain(), registries()]);
  const target = chainTarget(ctx.settings());
  const prepared: Erc8004Registration = await ctx.out.progress("writing the registration file", () => api.client.listings.prepareErc8004(listingId, agentId));
  const call = reg.preparedCall(target, "identity", prepared, ["setAgentURI"]);
  return { prepared, tx: await sendCallWithProgress(ctx, target, account, call) };
}

export const erc8004CreatorCommands: Command[] = [
  {
    path: "erc8004 register",
    summary: "Register a listing as an ERC-8004 agent your wallet owns (register, then setAgentURI)",
    usage: "<listing>",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    notes: [
      "The service writes the agent's registration file (its A2A card, the MCP endpoint, the dashboard page, active) and",
      "prepares the transactions; the CLI's wallet, the listing's creator, sends them: register, whose Registered event gives",
      "the agent id, then setAgentURI to the file that names that id. After a pause, resume or close, run `agentrent",
      "erc8004 refresh` so the file's active follows the listing.",
    ],
    examples: ["agentrent erc8004 register clause-finder-1a2b3c4d", "agentrent erc8004 register lst_<64 hex> --json"],
    async run(ctx) {
      const settings = ctx.settings();
      const api = authenticatedApi(settings, ctx.env);
      const ref = await resolveListing(ctx.args[0]!, api);
      const listing = await api.client.listings.get(ref.listingId);
      if (listing.erc8004) {
        throw new CliError(
          `${ref.listingId} is already ERC-8004 agent ${listing.erc8004.agent_id} (${listing.erc8004.agent_registry}). After a status change, refresh its file: agentrent erc8004 refresh ${ctx.args[0]}`,
          EXIT.failure,
          "already_registered",
        );
      }
      const [{ chainTarget }, reg] = await Promise.all([chain(), registries()]);
      const target = chainTarget(settings);
      const account = await loadAccount(settings, ctx.env, ctx.prompt);
      requireWallet(account, listing.creator.id, "the listing's creator");
      const first: Erc8004Registration = await ctx.out.progress("writing the registration file", () => api.client.listings.prepareErc8004(ref.listingId));
      const registered = await sendCallWithProgress(ctx, target, account, reg.preparedCall(target, "identity", first, ["register"]));
      const agentId = reg.registeredAgentId(registered.logs).toString();
      ctx.out.notice(`registered as agent ${agentId}; pointing it at the registration file that names it`);
      let pointed;
      try {
        pointed = await pointAgent(ctx, api, account, ref.listingId, agentId);
      } catch (error) {
        const e = toCliError(error);
        throw new CliError(`${e.message} Agent ${agentId} is registered, but its file does not name it yet: finish with agentrent erc8004 refresh ${ref.listingId} --agent-id ${agentId}`, e.exitCode, e.code, { ...(typeof e.details === "object" && e.details ? e.details : {}), agent_id: agentId });
      }
      const indexed = await ctx.out.progress(`waiting for the service to index agent ${agentId}`, () =>
        poll(ctx, INDEX_WAIT_MS, async () => ((await api.client.listings.get(ref.listingId)).erc8004?.agent_id === agentId ? true : undefined)),
      );
      const data = {
        listing_id: ref.listingId,
        agent_id: agentId,
        agent_registry: pointed.prepared.agent_registry,
        agent_uri: pointed.prepared.agent_uri,
        active: plain(pointed.prepared.registration_file, "active"),
        register_tx: registered.hash,
        set_agent_uri_tx: pointed.tx.hash,
        indexed: indexed === true,
      };
      ctx.out.result(data, () => {
        ctx.out.table([
          ["listing", data.listing_id],
          ["agent", `${data.agent_id} (${data.agent_registry})`],
          ["file", `${data.agent_uri} (active: ${String(data.active)})`],
          ["register", data.register_tx],
          ["setAgentURI", data.set_agent_uri_tx],
        ]);
        if (!data.indexed) ctx.out.notice(`The service has not indexed agent ${agentId} yet; \`agentrent show ${ref.listingId}\` names it once it has.`);
      });
    },
  },
  {
    path: "erc8004 refresh",
    summary: "Point a listing's ERC-8004 agent at a fresh registration file (after a pause, resume or close)",
    usage: "<listing> [--agent-id <id>]",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    options: { "agent-id": { type: "string", value: "<id>", description: "the agent (default: the listing's, as the service indexed it)" } },
    notes: [
      "Waits until the service has seen the listing's on-chain status, then sends setAgentURI from the CLI's wallet; nothing",
      "is sent when the agent already points at the file the service would write.",
    ],
    examples: ["agentrent erc8004 refresh clause-finder-1a2b3c4d", "agentrent erc8004 refresh lst_<64 hex> --agent-id 7 --json"],
    async run(ctx) {
      const settings = ctx.settings();
      const agentFlag = stringFlag(ctx.flags, "agent-id");
      if (agentFlag !== undefined && !/^\d{1,78}$/.test(agentFlag)) throw usageError(`--agent-id must be an agent id (a whole number), not ${JSON.stringify(agentFlag)}.`);
      const api = authenticatedApi(settings, ctx.env);
      const ref = await resolveListing(ctx.args[0]!, api);
      let listing = await api.client.listings.get(ref.listingId);
      const agentId = agentFlag ?? listing.erc8004?.agent_id;
      if (!agentId) throw new CliError(`${ref.listingId} is not an ERC-8004 agent yet: register it with agentrent erc8004 register ${ctx.args[0]}`, EXIT.failure, "agent_not_registered");
      const [{ chainTarget, readListing }, reg] = await Promise.all([chain(), registries()]);
      const target = chainTarget(settings);
      const account = await loadAccount(settings, ctx.env, ctx.prompt);
      requireWallet(account, listing.creator.id, "the listing's creator");
      // The service writes `active` from the status it has indexed: wait until it has the chain's.
      const onChain = (await readListing(target, ref.onChainId)).status;
      if (listing.status !== onChain) {
        const seen = await ctx.out.progress(`waiting for the service to see the listing ${onChain}`, () =>
          poll(ctx, INDEX_WAIT_MS, async () => ((listing = await api.client.listings.get(ref.listingId)).status === onChain ? true : undefined)),
        );
        if (!seen) throw new CliError(`The service still reports ${ref.listingId} ${listing.status} while the chain says ${onChain}; try again shortly.`, EXIT.unavailable, "index_behind");
      }
      const prepared: Erc8004Registration = await ctx.out.progress("writing the registration file", () => api.client.listings.prepareErc8004(ref.listingId, agentId));
      const call = reg.preparedCall(target, "identity", prepared, ["setAgentURI"]);
      const current = await reg.agentUri(target, call.address, BigInt(agentId));
      const active = plain(prepared.registration_file, "active");
      if (current === prepared.agent_uri) {
        const data = { listing_id: ref.listingId, agent_id: agentId, agent_uri: current, active, tx_hash: null, changed: false };
        return ctx.out.result(data, () => ctx.out.line(`Agent ${agentId} already points at the current registration file (${current}, active: ${String(active)}); nothing was sent.`));
      }
      const tx = await sendCallWithProgress(ctx, target, account, call);
      const data = { listing_id: ref.listingId, agent_id: agentId, agent_uri: prepared.agent_uri, active, tx_hash: tx.hash, changed: true };
      ctx.out.result(data, () => ctx.out.line(`Agent ${agentId} now points at ${data.agent_uri} (active: ${String(active)}, listing ${listing.status}); transaction ${tx.hash}.`));
    },
  },
];

export const erc8004RenterCommands: Command[] = [
  {
    path: "runs rate",
    summary: "Rate a completed run of yours on-chain (ERC-8004 feedback your wallet sends, with the run's receipt as proof)",
    usage: "<run_id> --value <0-100> [--text <comment>] [--wait <seconds>]",
    args: [1, 1],
    arguments: ["<run_id>  a completed run of your wallet (run_…), as `agentrent execute` prints it"],
    options: {
      value: { type: "string", value: "<0-100>", description: "the score, 0 to 100 with at most 2 decimals (80 is 4 stars) (required)" },
      text: { type: "string", value: "<comment>", description: "a comment, up to 1000 characters, public in the feedback file" },
      wait: { type: "string", value: "<seconds>", description: "how long to wait for the run's receipt to be logged on-chain (default 120)" },
    },
    notes: [
      "The service writes the feedback file (your payment and the run's receipt with its Merkle proof) and prepares",
      "giveFeedback; the CLI's wallet, the run's renter, sends it. It counts toward the listing's rating once the service",
      "has checked the receipt on-chain; one rating per run. Until the run log has recorded the receipt (every minute on",
      "the public service) the CLI waits and retries.",
    ],
    examples: ['agentrent runs rate run_<32 hex> --value 90 --text "Found the liability clause at once."', "agentrent runs rate run_<32 hex> --value 60 --json"],
    async run(ctx) {
      const runId = ctx.args[0]!;
      const value = scoreFlag(requireFlag(ctx.flags, "value", "the score, 0 to 100"));
      const text = stringFlag(ctx.flags, "text");
      if (text !== undefined && [...text.trim()].length > 1000) throw usageError("--text must be at most 1000 characters.");
      const waitMs = (intFlag(ctx.flags, "wait", 0, 3600) ?? 120) * 1000;
      const settings = ctx.settings();
      const api = authenticatedApi(settings, ctx.env);
      const [{ chainTarget }, reg] = await Promise.all([chain(), registries()]);
      const target = chainTarget(settings);
      const account = await loadAccount(settings, ctx.env, ctx.prompt);
      const deadline = Date.now() + waitMs;
      const prepared: RunFeedback = await ctx.out.progress("writing the feedback file", async (update) => {
        for (;;) {
          try {
            return await api.client.runs.feedback(runId, { value, ...(text?.trim() ? { text: text.trim() } : {}) });
          } catch (error) {
            if (!(error instanceof AgentRentalError && error.code === "receipt_pending")) throw error;
            const seconds = Math.max(1, error.retryAfter ?? 5);
            if (Date.now() + seconds * 1000 > deadline) {
              throw new CliError(`The run's receipt is not in the on-chain run log yet (waited ${Math.round(waitMs / 1000)} s); nothing was sent. Try again later, or wait longer with --wait.`, EXIT.unavailable, "receipt_pending");
            }
            update(`waiting for the run's receipt in the on-chain run log (asking again in ${seconds} s)`);
            await sleep(seconds * 1000, ctx.signal);
          }
        }
      });
      // A feedback another wallet sends carries a receipt that is not its own: it would never count.
      const client = String(prepared.feedback_file.clientAddress ?? "").split(":").at(-1) ?? "";
      requireWallet(account, client, "the run's renter");
      const tx = await sendCallWithProgress(ctx, target, account, reg.preparedCall(target, "reputation", prepared, ["giveFeedback"]));
      const found = await ctx.out.progress("waiting for the service to check the feedback", () =>
        poll(ctx, INDEX_WAIT_MS, async () => {
          const reputation = await api.client.listings.reputation(prepared.listing_id);
          const mine = reputation.feedback.find((f) => f.tx_hash.toLowerCase() === tx.hash.toLowerCase());
          return mine ? { reputation, mine } : undefined;
        }),
      );
      const data = {
        run_id: runId,
        listing_id: prepared.listing_id,
        agent_id: prepared.agent_id,
        value,
        feedback_uri: prepared.feedback_uri,
        feedback_hash: prepared.feedback_hash,
        tx_hash: tx.hash,
        verified: found ? found.mine.verified : null,
        reason: found ? found.mine.reason : null,
        rating: found ? found.reputation.rating : null,
        review_count: found ? found.reputation.review_count : null,
      };
      ctx.out.result(data, () => {
        ctx.out.line(`Rated run ${runId}: ★ ${stars(value)} (${value}); transaction ${tx.hash}.`);
        if (!found) ctx.out.line(`The service has not checked it yet; \`agentrent reputation ${prepared.listing_id}\` shows it once it has.`);
        else if (found.mine.verified) ctx.out.line(`Verified: it counts. The listing's verified rating is now ★ ${found.reputation.rating.toFixed(1)} from ${reviews(found.reputation.review_count)}.`);
        else ctx.out.line(`Recorded on-chain but not counted: ${reasonWords(found.mine.reason)}.`);
      });
    },
  },
  {
    path: "runs list",
    summary: "Your runs of a listing, newest first: status, cost, receipt (rate a completed one with `agentrent runs rate`)",
    usage: "<listing> [--limit <n>] [--cursor <cursor>]",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    options: {
      limit: { type: "string", value: "<n>", description: "how many, 1 to 100 (default 20)" },
      cursor: { type: "string", value: "<cursor>", description: "continue after a previous page (its next_cursor, printed last)" },
    },
    examples: ["agentrent runs list contract-reviewer-1a2b3c4d", "agentrent runs list lst_<64 hex> --limit 5 --json"],
    async run(ctx) {
      const limit = intFlag(ctx.flags, "limit", 1, 100);
      const cursor = stringFlag(ctx.flags, "cursor");
      const api = authenticatedApi(ctx.settings(), ctx.env);
      const ref = await resolveListing(ctx.args[0]!, api);
      const page = await api.client.runs.list(ref.listingId, { ...(limit === undefined ? {} : { limit }), ...(cursor === undefined ? {} : { cursor }) });
      ctx.out.result(page, () => {
        if (page.runs.length === 0) return ctx.out.line(`No runs of ${ref.listingId}${cursor ? " after this cursor" : ""}.`);
        for (const r of page.runs) ctx.out.line(`${r.run_id}  ${r.created_at}  ${r.status}  ${amountIn(BigInt(r.cost_wei), r.currency)}  ${r.receipt ? `receipt in batch ${r.receipt.batch_index}` : "receipt not logged yet"}`);
        if (page.next_cursor) ctx.out.line(`more: agentrent runs list ${ref.listingId} --cursor ${page.next_cursor}`);
      });
    },
  },
  {
    path: "reputation",
    summary: "A listing's ERC-8004 reputation: its agent, verified rating, unverified feedback, ratings from before on-chain feedback",
    usage: "<listing> [--limit <n>]",
    args: [1, 1],
    arguments: [LISTING_ARGUMENT],
    options: { limit: { type: "string", value: "<n>", description: "how many of the newest feedback to list, 1 to 100 (default 10)" } },
    notes: ["Only feedback carrying the receipt of its sender's own paid, completed run counts, once per run; the SDK's verifyReputation recomputes it from the chain."],
    examples: ["agentrent reputation contract-reviewer-1a2b3c4d", "agentrent reputation lst_<64 hex> --json"],
    async run(ctx) {
      const limit = intFlag(ctx.flags, "limit", 1, 100) ?? 10;
      const api = authenticatedApi(ctx.settings(), ctx.env);
      const ref = await resolveListing(ctx.args[0]!, api);
      const r: Reputation = await api.client.listings.reputation(ref.listingId, { limit });
      ctx.out.result(r, () => {
        ctx.out.table([
          ["listing", r.listing_id],
          ["agent", r.erc8004 ? `${r.erc8004.agent_id} (${r.erc8004.agent_registry})` : "not registered as an ERC-8004 agent"],
          ["verified", r.review_count === 0 ? "no verified feedback yet" : `★ ${r.rating.toFixed(1)} from ${reviews(r.review_count)}`],
          ["unverified", `${r.unverified_count} (not counted)`],
          ["before on-chain", r.before_on_chain.review_count === 0 ? "no ratings" : `★ ${r.before_on_chain.rating.toFixed(1)} from ${r.before_on_chain.review_count} (shown apart)`],
        ]);
        for (const f of r.feedback) {
          ctx.out.line(`  ★ ${stars(f.value)}  ${f.verified ? "verified" : `not counted: ${reasonWords(f.reason)}`}  ${f.client}  ${f.tx_hash}${f.text ? `  "${f.text}"` : ""}`);
        }
      });
    },
  },
];

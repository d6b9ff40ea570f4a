// The CLI end to end, as its users run it: the `agentrent` command line (its entry run in-process) against
// the real service (the API served over HTTP on a free 127.0.0.1 port, the real chain and contract,
// the emulators, the registration queue consumer and the chain indexer running), with a connected
// agent on a real HTTPS server. A creator applies, is approved by the authority, registers and lists
// an agent, sets its webhook secret; the authority approves the listing; a renter signs in, finds it,
// rents it per query, runs a task, streams one (the first delta is seen before the agent is allowed
// to finish), and the creator reads and withdraws the earnings, pauses the listing, and the renter's
// next run is refused with the access exit code. Then the other rental models: one-time, a subscription
// and its renewal, and a per-query top-up.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseEther } from "viem";
import type { Account } from "../support/chain-actions.ts";
import type { AgentCall } from "../support/connected-agent.ts";
import type { Gate } from "../support/gates.ts";
import { signIn } from "../support/auth.ts";
import { createWorldCliHarness, researcherManifest } from "../support/cli.ts";
import { until } from "../support/until.ts";
import { startWorld, type World } from "../support/world.ts";
import { EXIT } from "../../cli/src/errors.ts";

/** With the registration worker and the indexer running. */
let world: World;
let creator: Account;
let renter: Account;
/** Opened by the test once it has seen the streamed run's first delta on the CLI's stdout. */
let streamGate: Gate;
/** The tasks the connected agent received, signed with its listing's secret. */
const deliveries = () => world.agent.deliveries.filter((d) => d.verified).map((d) => d.task);

/** The connected agent: "stream …" tasks stream three deltas, holding after the first (at the stream's gate). */
async function agent(call: AgentCall): Promise<void> {
  if (call.task.startsWith("stream")) {
    const pieces = ["alpha ", "beta ", "gamma"];
    return call.stream(pieces, { findings: pieces.map((p) => p.trim()) }, (i) => (i === 0 ? call.gate() : undefined));
  }
  call.output({ findings: [`${call.task}: ${(call.input as { topic?: string } | null)?.topic ?? "nothing"}`] });
}

const { work, actorEnv, start, cli, cliJson, close } = createWorldCliHarness("agentrent-e2e-", () => world);

const MANIFEST = researcherManifest("cli-e2e-researcher", "Researches a topic and lists findings (a connected agent for the CLI's end-to-end test).");

beforeAll(async () => {
  world = await startWorld({ env: { CATALOGUE_REFRESH_MS: "0" }, agent: { handler: agent }, jobs: { only: ["registration-worker", "indexer"], everyMs: { indexer: 100 } } });
  streamGate = world.agent.gates.hold("stream the findings");
  [creator, renter] = await Promise.all([world.account(), world.account()]);
  writeFileSync(join(work, "agent.json"), JSON.stringify({ ...MANIFEST, entrypoint_url: world.agent.entrypoint("researcher") }, null, 2));
}, 120_000);

afterAll(close, 60_000);

describe("agentrent end to end", () => {
  let creatorEnv: Record<string, string>;
  let renterEnv: Record<string, string>;
  let authorityEnv: Record<string, string>;
  let listing: { listing_id: string; agent_id: string; on_chain_id: string; tx_hash: string };
  const price = parseEther("0.001");

  it("creator applies, the authority approves; the creator registers and lists the agent on-chain", async () => {
    creatorEnv = actorEnv(creator, "creator");
    authorityEnv = actorEnv(world.ctx.authority, "authority");
    renterEnv = actorEnv(renter, "renter");

    const [creatorLogin, authorityLogin] = await Promise.all([cliJson<{ wallet: string }>(creatorEnv, ["login"]), cliJson<{ wallet: string }>(authorityEnv, ["login"])]);
    expect(creatorLogin.wallet).toBe(creator.address);
    expect(authorityLogin.wallet).toBe(world.ctx.authority.address);

    // Registering before approval is refused with the access code and what to do.
    const early = await cli(creatorEnv, ["register", "agent.json", "--model", "per_query", "--price", "0.001"]);
    expect(early.code).toBe(EXIT.access);
    expect(early.stderr).toMatch(/creators apply/);

    expect(await cliJson(creatorEnv, ["creators", "apply", "--name", "CLI Creator"])).toMatchObject({ status: "pending" });
    const pending = await cliJson<{ applications: { wallet: string }[] }>(authorityEnv, ["review", "creators"]);
    expect(pending.applications.map((a) => a.wallet.toLowerCase())).toContain(creator.address.toLowerCase());
    // Only the authority reviews.
    const notAuthority = await cli(creatorEnv, ["review", "approve-creator", creator.address]);
    expect(notAuthority.code).toBe(EXIT.access);
    expect(await cliJson(authorityEnv, ["review", "approve-creator", creator.address])).toMatchObject({ status: "approved" });

    const valid = await cli(creatorEnv, ["validate", "agent.json", "--allow-private-hosts"]);
    expect(valid.code).toBe(0);
    expect(valid.stdout).toMatch(/is valid: cli-e2e-researcher \(research\), connected agent/);

    const registered = await cliJson<typeof listing & { rental_model: string; price_wei: number; metadata_uri: string }>(creatorEnv, ["register", "agent.json", "--model", "per_query", "--price", "0.001"]);
    expect(registered.listing_id).toMatch(/^lst_[0-9a-f]{64}$/);
    expect(registered.agent_id).toBe(`cli-e2e-researcher-${registered.listing_id.slice(4, 12)}`);
    expect(registered.on_chain_id).toBe(`0x${registered.listing_id.slice(4)}`);
    expect(registered.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(registered).toMatchObject({ rental_model: "per_query", price_wei: Number(price), metadata_uri: expect.stringMatching(/^ipfs:\/\//) });
    listing = registered;

    const secret = await cliJson<{ webhook_secret: string }>(creatorEnv, ["listing", "webhook-secret", listing.listing_id]);
    expect(secret.webhook_secret).toMatch(/^whsec_/);
    world.agent.setSecret("researcher", secret.webhook_secret);

    const status = await cliJson<{ agents: { listing_id: string; review_status: string }[] }>(creatorEnv, ["creators", "status"]);
    expect(status.agents).toContainEqual(expect.objectContaining({ listing_id: listing.listing_id, review_status: "pending" }));
  }, 240_000);

  it("the authority approves the listing and it appears in search", async () => {
    const queue = await cliJson<{ listings: { listing_id: string }[] }>(authorityEnv, ["review", "listings"]);
    expect(queue.listings.map((l) => l.listing_id)).toContain(listing.listing_id);
    expect(await cliJson(authorityEnv, ["review", "approve-listing", listing.agent_id])).toMatchObject({ listing_id: listing.listing_id, review_status: "approved" });

    // Readiness: the indexer has linked the on-chain listing and the catalogue publishes it.
    const token = (await signIn(world.app, renter)).token;
    await until("the listing to be published", async () => (await world.app.request(`/v1/listings/${listing.listing_id}`, { headers: { authorization: `Bearer ${token}` } })).status === 200);

    const login = await cli(renterEnv, ["login"]);
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(new RegExp(`Signed in to .* as ${renter.address}`));
    expect(login.stdout + login.stderr).not.toContain(renter.privateKey.slice(2));

    const found = await cliJson<{ listings: { id: string }[]; total: number }>(renterEnv, ["search", "researcher topic findings", "--category", "research"]);
    expect(found.listings.map((l) => l.id)).toContain(listing.listing_id);
    const shown = await cliJson<{ status: string; rental_model: string; on_chain_id: string }>(renterEnv, ["show", listing.agent_id]);
    expect(shown).toMatchObject({ status: "active", rental_model: "per_query", on_chain_id: listing.on_chain_id });
  }, 120_000);

  it("the renter rents per query, runs a task, and streams one as it arrives", async () => {
    const wrongModel = await cli(renterEnv, ["rent", listing.listing_id, "--model", "one_time", "--yes"]);
    expect(wrongModel.code).toBe(EXIT.usage);
    expect(wrongModel.stderr).toMatch(/use --model per_query/);

    const rented = await cliJson<{ rental_model: string; paid_wei: number; tx_hash: string; credential: { status: string; balance_wei: number } }>(renterEnv, ["rent", listing.listing_id, "--model", "per_query", "--runs", "3", "--yes"]);
    expect(rented).toMatchObject({ rental_model: "per_query", paid_wei: Number(price * 3n), credential: { status: "active", balance_wei: Number(price * 3n) } });

    const again = await cli(renterEnv, ["rent", listing.listing_id, "--runs", "1", "--yes"]);
    expect(again.code).toBe(EXIT.access);
    expect(again.stderr).toMatch(/CredentialAlreadyExists.*agentrent topup/);

    const run = await cliJson<{ run_id: string; status: string; output: { findings: string[] }; cost_wei: number }>(renterEnv, ["execute", listing.agent_id, "--task", "summarize", "--input", '{"topic":"solar panels"}', "--no-stream"]);
    expect(run).toMatchObject({ status: "completed", output: { findings: ["summarize: solar panels"] }, cost_wei: Number(price) });

    // Streaming: the first delta reaches the CLI's stdout while the agent is still holding the rest.
    const streaming = start(renterEnv, ["execute", listing.agent_id, "--task", "stream the findings", "--input", JSON.stringify({ topic: "wind" })]);
    await until("the first streamed delta on stdout", async () => streaming.stdout().includes("alpha"), 60_000);
    expect(streaming.stdout()).not.toContain("beta");
    streamGate.open();
    const streamed = await streaming.done;
    expect(streamed.code).toBe(0);
    expect(streamed.stdout).toContain("alpha beta gamma");
    expect(streamed.stderr).toMatch(/run run_\S+: completed, cost 0\.001 ETH/);
    expect(deliveries()).toEqual(["summarize", "stream the findings"]);

    const check = await cliJson<{ valid: boolean; status: string }>(renterEnv, ["credentials", listing.listing_id]);
    expect(check).toMatchObject({ valid: true, status: "active" });
  }, 240_000);

  it("the creator reads and withdraws the earnings and pauses the listing; the renter's next run is refused (exit 4)", async () => {
    const fee = (price * 250n) / 10_000n;
    const earnings = await cliJson<{ total_wei: number; listings: { listing_id: string; escrow_wei: number }[] }>(creatorEnv, ["earnings"]);
    expect(earnings.listings).toContainEqual(expect.objectContaining({ listing_id: listing.listing_id, escrow_wei: Number(2n * (price - fee)) }));
    const withdrawn = await cliJson<{ amount_wei: number; to: string }>(creatorEnv, ["withdraw", listing.listing_id]);
    expect(withdrawn).toMatchObject({ amount_wei: Number(2n * (price - fee)), to: creator.address });

    expect(await cliJson(creatorEnv, ["listing", "pause", listing.listing_id])).toMatchObject({ status: "paused" });
    const refused = await cli(renterEnv, ["execute", listing.agent_id, "--task", "summarize", "--input", '{"topic":"x"}']);
    expect(refused.code).toBe(EXIT.access);
    expect(refused.stderr).toMatch(/listing_paused|paused/);
    const json = await cli(renterEnv, ["execute", listing.agent_id, "--task", "summarize", "--json"]);
    expect(json.code).toBe(EXIT.access);
    expect(JSON.parse(json.stdout)).toMatchObject({ error: { code: "listing_paused", exit_code: EXIT.access } });
  }, 240_000);

  it("the other rental models: one-time at the price, a 90-day subscription renewed for 30 more, a top-up of the paused per-query listing; update, resume, close", async () => {
    const register = async (name: string, model: string, priceEth: string) => {
      writeFileSync(join(work, `${name}.json`), JSON.stringify({ ...MANIFEST, name, entrypoint_url: world.agent.entrypoint(name) }));
      return cliJson<{ listing_id: string; rental_model: string }>(creatorEnv, ["register", `${name}.json`, "--model", model, "--price", priceEth]);
    };
    const oneTime = await register("cli-e2e-one-time", "one_time", "0.003");
    const subscription = await register("cli-e2e-subscription", "subscription", "0.002");

    const bought = await cliJson<{ paid_wei: number; credential: { status: string; expires_at: string | null } }>(renterEnv, ["rent", oneTime.listing_id, "--yes"]);
    expect(bought).toMatchObject({ paid_wei: Number(parseEther("0.003")), credential: { status: "active", expires_at: null } });

    const badDuration = await cli(renterEnv, ["rent", subscription.listing_id, "--duration", "7d", "--yes"]);
    expect(badDuration.code).toBe(EXIT.usage);
    expect(badDuration.stderr).toMatch(/--duration must be 30d, 90d or 365d/);
    const subscribed = await cliJson<{ rental_model: string; paid_wei: number; credential: { status: string; expires_at: string } }>(renterEnv, ["rent", subscription.listing_id, "--model", "subscription", "--duration", "90d", "--yes"]);
    expect(subscribed).toMatchObject({ rental_model: "subscription", paid_wei: Number(parseEther("0.006")), credential: { status: "active" } });
    const day = 86_400_000;
    const firstExpiry = Date.parse(subscribed.credential.expires_at);
    expect(Math.abs(firstExpiry - (Date.now() + 90 * day))).toBeLessThan(day);
    const renewed = await cliJson<{ paid_wei: number; credential: { expires_at: string } }>(renterEnv, ["renew", subscription.listing_id, "--duration", "30d", "--yes"]);
    expect(renewed.paid_wei).toBe(Number(parseEther("0.002")));
    expect(Date.parse(renewed.credential.expires_at) - firstExpiry).toBe(30 * day);
    const wrongTopup = await cli(renterEnv, ["topup", subscription.listing_id, "--runs", "1", "--yes"]);
    expect(wrongTopup.code).toBe(EXIT.usage);
    expect(wrongTopup.stderr).toMatch(/agentrent renew/);

    // Per-query balance after two charged runs of three: one run left; a top-up by deposit adds two.
    const topped = await cliJson<{ credential: { balance_wei: number } }>(renterEnv, ["topup", listing.listing_id, "--deposit", "0.002", "--yes"]);
    expect(topped.credential.balance_wei).toBe(Number(price * 3n));

    // Listing management: a new price, resuming, and closing as the specification says: from any state
    // once the escrow is empty; with earnings in escrow, --withdraw takes them and closes in one
    // transaction; a subscription listing's escrow empties only once its paid periods have vested.
    expect(await cliJson(creatorEnv, ["listing", "update", listing.listing_id, "--price", "0.0015"])).toMatchObject({ price_wei: Number(parseEther("0.0015")), status: "paused" });
    expect(await cliJson(creatorEnv, ["listing", "resume", listing.agent_id])).toMatchObject({ status: "active" });
    const withEarnings = await cli(creatorEnv, ["listing", "close", subscription.listing_id, "--yes"]);
    expect(withEarnings.code).toBe(EXIT.failure);
    expect(withEarnings.stderr).toMatch(/holds .* of earnings.*--yes --withdraw/);
    const unvested = await cli(creatorEnv, ["listing", "close", subscription.listing_id, "--yes", "--withdraw"]);
    expect(unvested.code).toBe(EXIT.access);
    expect(unvested.stderr).toMatch(/EscrowNotEmpty: .*every period its renters paid for has vested/);
    // one_time: its earnings taken and the listing closed, in one transaction.
    const escrowBefore = (await cliJson<{ listings: { escrow_wei: number }[] }>(creatorEnv, ["earnings", oneTime.listing_id])).listings[0]!.escrow_wei;
    expect(escrowBefore).toBeGreaterThan(0);
    expect((await cli(creatorEnv, ["listing", "close", oneTime.listing_id, "--yes"])).code).toBe(EXIT.failure);
    expect(await cliJson(creatorEnv, ["listing", "close", oneTime.listing_id, "--yes", "--withdraw"])).toMatchObject({ status: "closed", withdrawn_wei: escrowBefore });
    // per_query: its earnings were withdrawn before; the active listing closes as it is.
    expect(await cliJson(creatorEnv, ["listing", "close", listing.agent_id, "--yes"])).toMatchObject({ status: "closed", withdrawn_wei: 0 });
  }, 240_000);
});

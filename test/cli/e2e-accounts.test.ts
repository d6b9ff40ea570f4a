// The CLI commands test/cli/e2e.test.ts does not cover, end to end through the `agentrent` command line (run in-process)
// against the real service (the API over HTTP on a free 127.0.0.1 port, the real chain and contract,
// the emulators, the registration consumer and the chain indexer, a connected agent on a real HTTPS
// server): API keys (create, list, revoke, and a revoked key refused with the auth exit code), jobs
// and runs read back (and not found for an unknown id or another wallet's run), review rejections of
// a creator and a listing as their creators see them (and a non-authority refused), and bad input.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseEther } from "viem";
import type { Account } from "../support/chain-actions.ts";
import type { AgentCall } from "../support/connected-agent.ts";
import { signIn } from "../support/auth.ts";
import { registerClient, signInApp } from "../support/oauth.ts";
import { createWorldCliHarness, researcherManifest } from "../support/cli.ts";
import { until } from "../support/until.ts";
import { startWorld, type World } from "../support/world.ts";
import { EXIT } from "../../cli/src/errors.ts";

type Env = Record<string, string>;

/** With the registration worker and the indexer running. */
let world: World;
let creator: Account;
let applicant: Account;
let renter: Account;

/** The connected agent: answers with one finding. */
function agent(call: AgentCall): void {
  call.output({ findings: [`${call.task}: ${(call.input as { topic?: string } | null)?.topic ?? "nothing"}`] });
}

const { work, actorEnv, cli, cliJson, close } = createWorldCliHarness("agentrent-e2e-accounts-", () => world);

const MANIFEST = researcherManifest("cli-accounts-researcher", "Researches a topic and lists findings (a connected agent for the CLI's accounts end-to-end test).");

beforeAll(async () => {
  world = await startWorld({ env: { CATALOGUE_REFRESH_MS: "0" }, agent: { handler: agent }, jobs: { only: ["registration-worker", "indexer"], everyMs: { indexer: 100 } } });
  [creator, applicant, renter] = await Promise.all([world.account(), world.account(), world.account()]);
  writeFileSync(join(work, "agent.json"), JSON.stringify({ ...MANIFEST, entrypoint_url: world.agent.entrypoint("researcher") }));
  writeFileSync(join(work, "second.json"), JSON.stringify({ ...MANIFEST, name: "cli-accounts-second", entrypoint_url: world.agent.entrypoint("second") }));
}, 120_000);

afterAll(close, 60_000);

describe("agentrent end to end: keys, jobs, runs, review rejections, bad input", () => {
  let creatorEnv: Env;
  let applicantEnv: Env;
  let renterEnv: Env;
  let authorityEnv: Env;
  let listing: { job_id: string; listing_id: string; agent_id: string };
  let second: { job_id: string; listing_id: string; agent_id: string };
  let runId: string;
  const price = parseEther("0.001");

  it("bad input: an unknown command or subcommand, a missing argument or flag, an unknown flag exit 2 with what to do", async () => {
    const env = actorEnv(renter, "bad-input");
    const unknownSub = await cli(env, ["keys", "frobnicate"]);
    expect(unknownSub.code).toBe(EXIT.usage);
    expect(unknownSub.stderr).toMatch(/Unknown command "keys frobnicate"\. The keys commands: keys create, keys list, keys limit, keys revoke\./);
    expect(unknownSub.stderr).toMatch(/agentrent help/);
    expect(unknownSub.stdout).toBe("");

    const typo = await cli(env, ["serch", "topic"]);
    expect(typo.code).toBe(EXIT.usage);
    expect(typo.stderr).toMatch(/Unknown command "serch"\. Did you mean: search\?/);

    const missingArg = await cli(env, ["runs", "get"]);
    expect(missingArg.code).toBe(EXIT.usage);
    expect(missingArg.stderr).toMatch(/agentrent runs get <run_id>: missing argument\./);
    expect(missingArg.stderr).toMatch(/agentrent <command> --help/);

    const missingJson = await cli(env, ["keys", "revoke", "--json"]);
    expect(missingJson.code).toBe(EXIT.usage);
    expect(JSON.parse(missingJson.stdout)).toEqual({ error: { code: "usage", message: "agentrent keys revoke <key_id>: missing argument.", exit_code: EXIT.usage } });

    const missingFlag = await cli(env, ["keys", "create"]);
    expect(missingFlag.code).toBe(EXIT.usage);
    expect(missingFlag.stderr).toMatch(/--label is required: a name for the key/);

    const extra = await cli(env, ["jobs", "get", "job_1", "job_2"]);
    expect(extra.code).toBe(EXIT.usage);
    expect(extra.stderr).toMatch(/agentrent jobs get: unexpected argument "job_2"\./);

    const badFlag = await cli(env, ["keys", "list", "--frob"]);
    expect(badFlag.code).toBe(EXIT.usage);
    expect(badFlag.stderr).toMatch(/agentrent keys list has no flag --frob\. It takes only the global flags\./);
    expect(badFlag.stderr).not.toMatch(/Unknown option|positional argument/);
  }, 60_000);

  it("the authority rejects one application with a reason the applicant reads and approves another; a non-authority is refused (exit 4)", async () => {
    creatorEnv = actorEnv(creator, "creator");
    applicantEnv = actorEnv(applicant, "applicant");
    renterEnv = actorEnv(renter, "renter");
    authorityEnv = actorEnv(world.ctx.authority, "authority");
    await Promise.all([creatorEnv, applicantEnv, renterEnv, authorityEnv].map((env) => cliJson(env, ["login"])));
    await Promise.all([cliJson(creatorEnv, ["creators", "apply", "--name", "Accounts Creator"]), cliJson(applicantEnv, ["creators", "apply", "--name", "Rejected Applicant"])]);

    const noReason = await cli(authorityEnv, ["review", "reject-creator", applicant.address]);
    expect(noReason.code).toBe(EXIT.usage);
    expect(noReason.stderr).toMatch(/--reason is required: the reason the creator will read/);

    const notAuthority = await cli(renterEnv, ["review", "reject-creator", applicant.address, "--reason", "spam"]);
    expect(notAuthority.code).toBe(EXIT.access);
    expect(notAuthority.stderr).toMatch(/Only the protocol authority/);

    const reason = "The display name impersonates another creator.";
    const rejected = await cli(authorityEnv, ["review", "reject-creator", applicant.address, "--reason", reason]);
    expect(rejected.code).toBe(0);
    expect(rejected.stdout).toContain(`Rejected Applicant (${applicant.address.toLowerCase()}): rejected (${reason}).`);
    expect(await cliJson(authorityEnv, ["review", "approve-creator", creator.address])).toMatchObject({ status: "approved" });

    const status = await cli(applicantEnv, ["creators", "status"]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`rejected (${reason})`);
    expect(await cliJson(applicantEnv, ["creators", "status"])).toMatchObject({ profile: { status: "rejected", reason }, agents: [] });
    const listed = await cliJson<{ applications: { wallet: string; reason: string }[] }>(authorityEnv, ["review", "creators", "--status", "rejected"]);
    expect(listed.applications).toContainEqual(expect.objectContaining({ wallet: applicant.address.toLowerCase(), reason }));
  }, 120_000);

  it("the creator registers two agents; jobs get shows a completed job, and an unknown job is not found (exit 5)", async () => {
    listing = await cliJson(creatorEnv, ["register", "agent.json", "--model", "per_query", "--price", "0.001"]);
    second = await cliJson(creatorEnv, ["register", "second.json", "--no-list"]);
    world.agent.setSecret("researcher", (await cliJson<{ webhook_secret: string }>(creatorEnv, ["listing", "webhook-secret", listing.listing_id])).webhook_secret);

    expect(await cliJson(creatorEnv, ["jobs", "get", second.job_id])).toEqual({
      job_id: second.job_id,
      status: "completed",
      result: { agent_id: second.agent_id, listing_id: second.listing_id, listing_seed: expect.stringMatching(/^0x[0-9a-f]{64}$/), metadata_uri: expect.stringMatching(/^ipfs:\/\//) },
    });
    const human = await cli(creatorEnv, ["jobs", "get", listing.job_id]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(new RegExp(`job\\s+${listing.job_id}\\nstatus\\s+completed\\n`));
    expect(human.stdout).toMatch(new RegExp(`agent_id\\s+${listing.agent_id}`));

    const unknown = await cli(creatorEnv, ["jobs", "get", "job_000000000000000000000000"]);
    expect(unknown.code).toBe(EXIT.notFound);
    expect(unknown.stderr).toMatch(/No job job_000000000000000000000000/);
    // Another wallet's job is as unknown as a missing one.
    const othersJob = await cli(renterEnv, ["jobs", "get", listing.job_id, "--json"]);
    expect(othersJob.code).toBe(EXIT.notFound);
    expect(JSON.parse(othersJob.stdout)).toMatchObject({ error: { code: "not_found", exit_code: EXIT.notFound } });
  }, 240_000);

  it("the authority rejects a listing with a reason the creator reads in creators status; a non-authority is refused (exit 4)", async () => {
    const notAuthority = await cli(creatorEnv, ["review", "reject-listing", second.listing_id, "--reason", "mine"]);
    expect(notAuthority.code).toBe(EXIT.access);
    expect(notAuthority.stderr).toMatch(/Only the protocol authority/);

    const reason = "The description promises results the agent cannot give.";
    // By its agent id, resolved from the review queue.
    expect(await cliJson(authorityEnv, ["review", "reject-listing", second.agent_id, "--reason", reason])).toEqual({ listing_id: second.listing_id, review_status: "rejected", review_reason: reason });
    expect(await cliJson(authorityEnv, ["review", "approve-listing", listing.listing_id])).toMatchObject({ review_status: "approved" });
    const queue = await cliJson<{ listings: unknown[] }>(authorityEnv, ["review", "listings"]);
    expect(queue.listings).toEqual([]);

    const status = await cliJson<{ agents: { listing_id: string; review_status: string; review_reason: string | null }[] }>(creatorEnv, ["creators", "status"]);
    expect(status.agents).toContainEqual(expect.objectContaining({ listing_id: second.listing_id, review_status: "rejected", review_reason: reason }));
    expect(status.agents).toContainEqual(expect.objectContaining({ listing_id: listing.listing_id, review_status: "approved" }));
    const human = await cli(creatorEnv, ["creators", "status"]);
    expect(human.stdout).toContain(`${second.agent_id}  ${second.listing_id}  review rejected (${reason})`);
  }, 120_000);

  it("runs get shows an executed run's status, output and cost; another wallet's run and an unknown run are not found (exit 5)", async () => {
    // Readiness: the indexer has linked the on-chain listing and the catalogue publishes it.
    const token = (await signIn(world.app, renter)).token;
    await until("the listing to be published", async () => (await world.app.request(`/v1/listings/${listing.listing_id}`, { headers: { authorization: `Bearer ${token}` } })).status === 200);
    await cliJson(renterEnv, ["rent", listing.listing_id, "--runs", "2", "--yes"]);
    const run = await cliJson<{ run_id: string; status: string }>(renterEnv, ["execute", listing.agent_id, "--task", "summarize", "--input", '{"topic":"tides"}', "--no-stream"]);
    expect(run.status).toBe("completed");
    runId = run.run_id;

    expect(await cliJson(renterEnv, ["runs", "get", runId])).toMatchObject({
      run_id: runId,
      agent_id: listing.agent_id,
      listing_id: listing.listing_id,
      status: "completed",
      output: { findings: ["summarize: tides"] },
      cost_wei: Number(price),
      rental_model: "per_query",
      settlement: "settled",
    });
    const human = await cli(renterEnv, ["runs", "get", runId]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/status\s+completed/);
    expect(human.stdout).toMatch(/cost\s+0\.001 ETH/);
    expect(human.stdout).toContain('{"findings":["summarize: tides"]}');

    const others = await cli(creatorEnv, ["runs", "get", runId]);
    expect(others.code).toBe(EXIT.notFound);
    expect(others.stderr).toMatch(new RegExp(`No run ${runId} for this wallet`));
    const unknown = await cli(renterEnv, ["runs", "get", "run_does_not_exist", "--json"]);
    expect(unknown.code).toBe(EXIT.notFound);
    expect(JSON.parse(unknown.stdout)).toMatchObject({ error: { code: "not_found", exit_code: EXIT.notFound } });
  }, 240_000);

  it("keys: create shows the key once, list never shows it, revoke makes the key's next request fail with the auth code (exit 3)", async () => {
    const human = await cli(renterEnv, ["keys", "create", "--label", "laptop"]);
    expect(human.code).toBe(0);
    const shown = human.stdout.trim();
    expect(shown).toMatch(/^svc_test_\S+$/);
    expect(human.stderr).toMatch(/Created key key_\S+ \(laptop\)\. It is shown only now/);
    expect(human.stderr).not.toContain(shown);

    const created = await cliJson<{ key_id: string; key: string; label: string; prefix: string }>(renterEnv, ["keys", "create", "--label", "ci server"]);
    expect(created).toEqual({ key_id: expect.any(String), key: expect.stringMatching(/^svc_test_/), label: "ci server", prefix: expect.any(String), created_at: expect.any(String), last_used_at: null, revoked: false, spend_limits: [] });
    // The prefix is the key's first characters, ellipsed by the API.
    expect(created.prefix).toMatch(/^svc_test_\S+…$/);
    expect(created.key.startsWith(created.prefix.slice(0, -1))).toBe(true);

    const list = await cli(renterEnv, ["keys", "list"]);
    expect(list.code).toBe(0);
    // One ellipsis after the prefix (the API's prefix already ends in one).
    expect(list.stdout).toContain(`${created.key_id}  ${created.prefix}  ci server  created `);
    expect(list.stdout).toContain("laptop");
    expect(list.stdout).not.toContain(created.key);
    expect(list.stdout).not.toContain(shown);
    const listed = await cli(renterEnv, ["keys", "list", "--json"]);
    expect(listed.stdout).not.toContain(created.key);
    const keys = (JSON.parse(listed.stdout) as { keys: Record<string, unknown>[] }).keys;
    expect(keys.map((k) => k.label).sort()).toEqual(["ci server", "laptop"]);
    for (const k of keys) expect(k).not.toHaveProperty("key");

    // The key works in place of the session.
    const withKey = { ...renterEnv, AGENTRENT_API_KEY: created.key };
    const credentials = await cliJson<{ credentials: { listing_id: string }[] }>(withKey, ["credentials"]);
    expect(credentials.credentials.map((c) => c.listing_id)).toContain(listing.listing_id);

    expect(await cliJson(renterEnv, ["keys", "revoke", created.key_id])).toMatchObject({ key_id: created.key_id, label: "ci server", revoked: true });
    const after = await cli(withKey, ["credentials"]);
    expect(after.code).toBe(EXIT.auth);
    expect(after.stderr).toMatch(/invalid or has been revoked/);
    expect(after.stderr).toMatch(/agentrent keys create/);
    const afterJson = await cli(withKey, ["credentials", "--json"]);
    expect(afterJson.code).toBe(EXIT.auth);
    expect(JSON.parse(afterJson.stdout)).toMatchObject({ error: { code: "invalid_api_key", exit_code: EXIT.auth } });

    const unknownKey = await cli(renterEnv, ["keys", "revoke", "key_unknown"]);
    expect(unknownKey.code).toBe(EXIT.notFound);
    expect(unknownKey.stderr).toMatch(/No API key key_unknown/);
  }, 120_000);

  it("apps: a connected app's limit shown by apps list and replaced with apps limit; an unknown app is not found (exit 5); --none removes them", async () => {
    const client = await registerClient(world.url, { client_name: "CLI budgeted app" });
    const bearer = (await signIn(world.app, renter)).token;
    await signInApp(world.url, client, bearer, { scope: "tasks:run", spend_limits: [{ period: "day", amount: "2000000000000000" }] });
    const listed = await cliJson<{ apps: { app_id: string; name: string | null; spend_limits: { currency: string; period: string; amount: string }[] }[] }>(renterEnv, ["apps", "list"]);
    const app = listed.apps.find((a) => a.name === "CLI budgeted app")!;
    expect(app.spend_limits.map(({ currency, period, amount }) => ({ currency, period, amount }))).toEqual([{ currency: "ETH", period: "day", amount: "2000000000000000" }]);
    const shown = await cli(renterEnv, ["apps", "list"]);
    expect(shown.stdout).toMatch(new RegExp(`${app.app_id}  CLI budgeted app[^\\n]*\\n    limit 0\\.002 ETH per day: spent 0 ETH, 0\\.002 ETH left, resets \\d{4}-`));

    const changed = await cli(renterEnv, ["apps", "limit", app.app_id, "--month", "0.05"]);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toMatch(/limit 0\.05 ETH per month: spent 0 ETH, 0\.05 ETH left/);
    expect(changed.stdout).not.toMatch(/per day/);
    const unknown = await cli(renterEnv, ["apps", "limit", "app_nope", "--day", "0.01"]);
    expect(unknown.code).toBe(EXIT.notFound);
    expect(unknown.stderr).toMatch(/No connected app app_nope of this wallet/);
    const removed = await cliJson<{ spend_limits: unknown[] }>(renterEnv, ["apps", "limit", app.app_id, "--none"]);
    expect(removed.spend_limits).toEqual([]);
  }, 60_000);

  it("keys: a spending limit set at creation, changed with keys limit, removed with --none, shown by keys list; a key cannot lift its own", async () => {
    const created = await cliJson<{ key_id: string; key: string; spend_limits: { period: string; amount: string; spent: string; remaining: string; resets_at: string | null }[] }>(renterEnv, ["keys", "create", "--label", "script", "--limit-day", "0.003"]);
    expect(created.spend_limits).toEqual([expect.objectContaining({ currency: "ETH", period: "day", amount: "3000000000000000", spent: "0", remaining: "3000000000000000" })]);
    const list = await cli(renterEnv, ["keys", "list"]);
    expect(list.stdout).toMatch(new RegExp(`${created.key_id}[^\\n]*script[^\\n]*\\n    limit 0\\.003 ETH per day: spent 0 ETH, 0\\.003 ETH left, resets \\d{4}-`));

    const changed = await cli(renterEnv, ["keys", "limit", created.key_id, "--month", "0.1", "--total", "1"]);
    expect(changed.code).toBe(0);
    expect(changed.stdout).toMatch(/limit 0\.1 ETH per month: spent 0 ETH, 0\.1 ETH left, resets/);
    expect(changed.stdout).toMatch(/limit 1 ETH in total: spent 0 ETH, 1 ETH left\n/);
    expect(changed.stdout).not.toMatch(/per day/);

    const byKey = await cli({ ...renterEnv, AGENTRENT_API_KEY: created.key }, ["keys", "limit", created.key_id, "--none"]);
    expect(byKey.code).not.toBe(0);
    expect(byKey.stderr).toMatch(/needs a wallet sign-in/);

    const bad = await cli(renterEnv, ["keys", "limit", created.key_id, "--day", "lots"]);
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.stderr).toMatch(/--day must be an amount of ETH/);
    const nothing = await cli(renterEnv, ["keys", "limit", created.key_id]);
    expect(nothing.code).toBe(EXIT.usage);
    expect(nothing.stderr).toMatch(/Give --day, --month or --total/);

    const removed = await cliJson<{ spend_limits: unknown[] }>(renterEnv, ["keys", "limit", created.key_id, "--none"]);
    expect(removed.spend_limits).toEqual([]);
  }, 60_000);
});

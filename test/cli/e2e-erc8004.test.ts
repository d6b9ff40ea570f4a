// ERC-8004 from the command line, as installed: the CLI bundled by its package build (one file, run by
// plain `node` in a child process, nothing of this repository on its import path) against the real
// service over HTTP, the real chain with the marketplace and the registries, the indexer running. A
// creator registers a listing as an agent (register, then setAgentURI, sent by the CLI's wallet), is
// told to refresh the file after a pause and refreshes it; a renter rates a completed run (the CLI waits
// for the run's receipt, then its wallet sends giveFeedback) and reads the listing's reputation; and
// every bad input exits with its code and a message saying what to do, nothing sent.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPublicClient, decodeFunctionData, http, type Hex } from "viem";
import { identityRegistryAbi } from "@agent-rental/core/identity-registry";
import { reputationRegistryAbi } from "@agent-rental/core/reputation-registry";
import { runJob } from "../../src/jobs.ts";
import { EXIT } from "../../cli/src/errors.ts";
import { startWorld, type PublishedAgent, type World } from "../support/world.ts";
import type { Account } from "../support/chain-actions.ts";
import { until } from "../support/until.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const work = mkdtempSync(join(tmpdir(), "agentrent-erc8004-"));
/** The package build's bundle, built into a folder of this suite's own. */
const bundle = join(work, "dist/agentrent.js");

let world: World;
let creator: Account;
let renter: Account;
let listing: PublishedAgent;

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a process to its end without blocking this one (the API serving the CLI runs here). */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; onStderr?: (text: string) => void }): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      options.onStderr?.(stderr);
    });
    const timer = setTimeout(() => child.kill("SIGINT"), options.timeoutMs ?? 120_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The environment of one wallet: its own config folder, the service's settings, its key. */
function envOf(account: Account, name: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith("AGENTRENT_")) env[key] = value;
  return {
    ...env,
    HOME: join(work, name),
    AGENTRENT_CONFIG_DIR: join(work, name, "config"),
    AGENTRENT_STACK_FILE: "",
    AGENTRENT_API_URL: world.url,
    AGENTRENT_RPC_URL: world.rpcUrl,
    AGENTRENT_CHAIN_ID: String(world.config.CHAIN_ID),
    AGENTRENT_MARKETPLACE: world.config.MARKETPLACE_ADDRESS,
    AGENTRENT_PRIVATE_KEY: account.privateKey,
    ...extra,
  };
}

const agentrent = (env: NodeJS.ProcessEnv, args: string[], onStderr?: (text: string) => void) => run(process.execPath, [bundle, ...args], { cwd: work, env, ...(onStderr ? { onStderr } : {}) });

async function json<T>(env: NodeJS.ProcessEnv, args: string[]): Promise<T> {
  const result = await agentrent(env, [...args, "--json"]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

const chainClient = () => createPublicClient({ chain: world.services.chain.chain, transport: http(world.rpcUrl) });

beforeAll(async () => {
  const [built, started] = await Promise.all([
    run(process.execPath, [join(root, "node_modules/tsup/dist/cli-default.js"), "--out-dir", join(work, "dist")], { cwd: join(root, "cli"), env: process.env, timeoutMs: 180_000 }),
    startWorld({
      env: { CATALOGUE_REFRESH_MS: "0" },
      agent: { handler: (call) => call.output({ findings: [`done: ${call.task}`] }) },
      // The indexer follows the chain; the run log is run by the tests (a settler pass), when they want
      // receipts logged: the listing is a one-time rental, so no per-task charge waits for a settler.
      jobs: { only: ["indexer"], everyMs: { indexer: 100 } },
      settler: false,
    }),
  ]);
  expect(built.code, built.stderr).toBe(0);
  world = started;
  creator = (await world.creator()).account;
  listing = await world.publishConnected("cli-erc8004-agent", { rental: "one_time" });
  renter = await world.account();
  await world.rent(renter, listing);
}, 240_000);

afterAll(async () => {
  await world?.close();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

describe("agentrent erc8004 register and refresh, as installed", () => {
  let agentId: string;

  it("erc8004 register: the wallet sends register then setAgentURI, with progress on every wait; the agent is the listing's, its file names it", async () => {
    await json(envOf(creator, "creator"), ["login"]);
    const result = await agentrent(envOf(creator, "creator"), ["erc8004", "register", listing.listing_id, "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const data = JSON.parse(result.stdout) as { agent_id: string; agent_registry: string; agent_uri: string; active: boolean; register_tx: Hex; set_agent_uri_tx: Hex; indexed: boolean };
    agentId = data.agent_id;
    expect(data).toMatchObject({ agent_registry: `eip155:${world.config.CHAIN_ID}:${world.services.chain.erc8004!.identityRegistry}`, active: true, indexed: true });
    // Progress on stderr: the file, each transaction's hash as soon as it is sent and its confirmation, the index.
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines).toEqual([
      "writing the registration file...",
      "simulating register...",
      `transaction ${data.register_tx} sent`,
      `waiting for the confirmation of ${data.register_tx}...`,
      expect.stringMatching(new RegExp(`^transaction ${data.register_tx} confirmed in block \\d+$`)),
      `registered as agent ${agentId}; pointing it at the registration file that names it`,
      "writing the registration file...",
      "simulating setAgentURI...",
      `transaction ${data.set_agent_uri_tx} sent`,
      `waiting for the confirmation of ${data.set_agent_uri_tx}...`,
      expect.stringMatching(new RegExp(`^transaction ${data.set_agent_uri_tx} confirmed in block \\d+$`)),
      `waiting for the service to index agent ${agentId}...`,
    ]);
    const client = chainClient();
    const identity = world.services.chain.erc8004!.identityRegistry;
    expect((await client.readContract({ address: identity, abi: identityRegistryAbi, functionName: "ownerOf", args: [BigInt(agentId)] })).toLowerCase()).toBe(creator.address.toLowerCase());
    expect(await client.readContract({ address: identity, abi: identityRegistryAbi, functionName: "tokenURI", args: [BigInt(agentId)] })).toBe(data.agent_uri);
    const file = (await (await fetch(`${world.url}/v1/metadata/${data.agent_uri.slice("ipfs://".length)}`)).json()) as { registrations: unknown[]; active: boolean };
    expect(file.registrations).toEqual([{ agentId: Number(agentId), agentRegistry: data.agent_registry }]);
    const tx = await client.getTransaction({ hash: data.set_agent_uri_tx });
    expect(decodeFunctionData({ abi: identityRegistryAbi, data: tx.input }).functionName).toBe("setAgentURI");
  });

  it("erc8004 register of a registered listing exits 1 and says to refresh instead; nothing is sent", async () => {
    const before = await chainClient().getTransactionCount({ address: creator.address });
    const again = await agentrent(envOf(creator, "creator"), ["erc8004", "register", listing.listing_id]);
    expect(again.code).toBe(EXIT.failure);
    expect(again.stderr).toContain(`is already ERC-8004 agent ${agentId}`);
    expect(again.stderr).toContain(`agentrent erc8004 refresh ${listing.listing_id}`);
    expect(await chainClient().getTransactionCount({ address: creator.address })).toBe(before);
  });

  it("listing pause tells the creator to refresh; erc8004 refresh waits for the service to see the pause, then the file says active false; again, nothing is sent", async () => {
    const env = envOf(creator, "creator");
    const paused = await agentrent(env, ["listing", "pause", listing.listing_id]);
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stderr).toContain(`${listing.listing_id} is ERC-8004 agent ${agentId}: its registration file follows the new status (paused) once you run agentrent erc8004 refresh ${listing.listing_id}`);
    const refreshed = await agentrent(env, ["erc8004", "refresh", listing.listing_id]);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(refreshed.stdout).toMatch(new RegExp(`^Agent ${agentId} now points at ipfs://\\w+ \\(active: false, listing paused\\); transaction 0x[0-9a-f]{64}\\.\\n$`));
    expect(refreshed.stderr).toMatch(/simulating setAgentURI\.\.\.\n/);
    const uri = await chainClient().readContract({ address: world.services.chain.erc8004!.identityRegistry, abi: identityRegistryAbi, functionName: "tokenURI", args: [BigInt(agentId)] });
    expect(((await (await fetch(`${world.url}/v1/metadata/${uri.slice("ipfs://".length)}`)).json()) as { active: boolean }).active).toBe(false);
    const nonce = await chainClient().getTransactionCount({ address: creator.address });
    const again = await json<{ changed: boolean; tx_hash: null; active: boolean }>(env, ["erc8004", "refresh", listing.listing_id]);
    expect(again).toMatchObject({ changed: false, tx_hash: null, active: false });
    expect(await chainClient().getTransactionCount({ address: creator.address })).toBe(nonce);
    const resumed = await agentrent(env, ["listing", "resume", listing.listing_id]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect((await json<{ active: boolean; changed: boolean }>(env, ["erc8004", "refresh", listing.listing_id])).active).toBe(true);
  });

  it("refuses bad input with its exit code and what to do: another creator's wallet, a malformed agent id, an unregistered listing, another chain; nothing is sent", async () => {
    const env = envOf(creator, "creator");
    const stranger = await world.account();
    const wrongWallet = await agentrent(envOf(stranger, "creator", {}), ["erc8004", "refresh", listing.listing_id]);
    expect(wrongWallet.code).toBe(EXIT.auth);
    expect(wrongWallet.stderr).toContain(`The CLI's wallet is ${stranger.address}, but the listing's creator is`);
    const badId = await agentrent(env, ["erc8004", "refresh", listing.listing_id, "--agent-id", "seven"]);
    expect(badId.code).toBe(EXIT.usage);
    expect(badId.stderr).toContain('--agent-id must be an agent id (a whole number), not "seven".');
    const other = await world.publishConnected("cli-erc8004-other", { rental: "one_time" });
    const unregistered = await agentrent(env, ["erc8004", "refresh", other.listing_id]);
    expect(unregistered.code).toBe(EXIT.failure);
    expect(unregistered.stderr).toContain(`is not an ERC-8004 agent yet: register it with agentrent erc8004 register ${other.listing_id}`);
    const nonce = await chainClient().getTransactionCount({ address: creator.address });
    const wrongChain = await agentrent(envOf(creator, "creator", { AGENTRENT_CHAIN_ID: "8453" }), ["erc8004", "register", other.listing_id]);
    expect(wrongChain.code).toBe(EXIT.usage);
    expect(wrongChain.stderr).toContain(`The service's ERC-8004 registries are on chain ${world.config.CHAIN_ID}, but this CLI is set to chain 8453`);
    expect(await chainClient().getTransactionCount({ address: creator.address })).toBe(nonce);
  });
});

describe("agentrent runs rate and reputation, as installed", () => {
  it("runs rate waits for the run's receipt (saying so), sends giveFeedback from the renter's wallet, prints the hash and the verified rating", async () => {
    const env = envOf(renter, "renter");
    await json(env, ["login"]);
    const executed = await json<{ run_id: string; status: string }>(env, ["execute", listing.listing_id, "--task", "Summarize", "--no-stream"]);
    expect(executed.status).toBe("completed");
    let logged = false;
    const rated = await agentrent(env, ["runs", "rate", executed.run_id, "--value", "90", "--text", "Exactly what I asked for."], (stderr) => {
      // Once the CLI says it waits for the receipt, the run log records it.
      if (!logged && stderr.includes("waiting for the run's receipt in the on-chain run log")) {
        logged = true;
        void runJob(world.services, "settler");
      }
    });
    expect(rated.code, rated.stderr).toBe(0);
    expect(logged).toBe(true);
    expect(rated.stderr).toMatch(/^writing the feedback file\.\.\.\nwaiting for the run's receipt in the on-chain run log \(asking again in \d+ s\)\.\.\.\n/);
    const hash = /transaction (0x[0-9a-f]{64}) sent/.exec(rated.stderr)![1] as Hex;
    expect(rated.stderr).toContain("waiting for the service to check the feedback...");
    const reputation = (await (await fetch(`${world.url}/v1/listings/${listing.listing_id}/reputation`, { headers: { authorization: `Bearer ${await world.signIn(renter)}` } })).json()) as { rating: number; review_count: number };
    expect(reputation.review_count).toBe(1);
    expect(rated.stdout).toBe(`Rated run ${executed.run_id}: ★ 4.5 (90); transaction ${hash}.\nVerified: it counts. The listing's verified rating is now ★ ${reputation.rating.toFixed(1)} from 1 verified review.\n`);
    const tx = await chainClient().getTransaction({ hash });
    expect(tx.from.toLowerCase()).toBe(renter.address.toLowerCase());
    const call = decodeFunctionData({ abi: reputationRegistryAbi, data: tx.input });
    expect(call.functionName).toBe("giveFeedback");
    expect(call.args.slice(1, 4)).toEqual([90n, 0, "starred"]);

    const listed = await json<{ runs: { run_id: string; status: string; receipt: unknown }[]; next_cursor: string | null }>(env, ["runs", "list", listing.listing_id]);
    expect(listed.runs[0]).toMatchObject({ run_id: executed.run_id, status: "completed", receipt: expect.any(Object) });
    const human = await agentrent(env, ["runs", "list", listing.listing_id]);
    expect(human.stdout).toMatch(new RegExp(`^${executed.run_id}  \\S+  completed  0 ETH  receipt in batch \\d+\n`));

    const shown = await agentrent(env, ["reputation", listing.listing_id]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain(`verified         ★ ${reputation.rating.toFixed(1)} from 1 verified review`);
    expect(shown.stdout).toContain(`★ 4.5  verified  ${renter.address.toLowerCase()}  ${hash}  "Exactly what I asked for."`);
  });

  it("refuses bad input with its exit code and what to do: a score out of range, a run rated already, another wallet's run, a wallet that is not the run's, a receipt that does not come", async () => {
    const env = envOf(renter, "renter");
    const outOfRange = await agentrent(env, ["runs", "rate", "run_00000000000000000000000000000000", "--value", "101"]);
    expect(outOfRange.code).toBe(EXIT.usage);
    expect(outOfRange.stderr).toContain('--value must be a score from 0 to 100 with at most 2 decimals (80 is 4 stars), not "101".');
    const missing = await agentrent(env, ["runs", "rate", "run_00000000000000000000000000000000"]);
    expect(missing.code).toBe(EXIT.usage);
    expect(missing.stderr).toContain("--value is required");

    const first = await json<{ run_id: string }>(env, ["execute", listing.listing_id, "--task", "Again", "--no-stream"]);
    await runJob(world.services, "settler");
    // Another wallet's run is as unknown as a missing one.
    const stranger = await world.account();
    await json(envOf(stranger, "stranger"), ["login"]);
    const notMine = await agentrent(envOf(stranger, "stranger"), ["runs", "rate", first.run_id, "--value", "50"]);
    expect(notMine.code).toBe(EXIT.notFound);
    // The renter's session, but a wallet that is not the run's: refused before anything is signed.
    const nonce = await chainClient().getTransactionCount({ address: stranger.address });
    const wrongWallet = await agentrent({ ...env, AGENTRENT_PRIVATE_KEY: stranger.privateKey }, ["runs", "rate", first.run_id, "--value", "50"]);
    expect(wrongWallet.code).toBe(EXIT.auth);
    expect(wrongWallet.stderr).toContain(`The CLI's wallet is ${stranger.address}, but the run's renter is ${renter.address}`);
    expect(await chainClient().getTransactionCount({ address: stranger.address })).toBe(nonce);

    // A run rated once: the second rating is refused by the API, exit 1.
    expect((await agentrent(env, ["runs", "rate", first.run_id, "--value", "70"])).code).toBe(0);
    await until("the feedback indexed", async () => {
      const res = await fetch(`${world.url}/v1/runs/${first.run_id}/feedback`, { method: "POST", headers: { authorization: `Bearer ${await world.signIn(renter)}`, "content-type": "application/json" }, body: JSON.stringify({ value: 1 }) });
      return res.status === 409;
    }, 30_000, 250);
    const twice = await agentrent(env, ["runs", "rate", first.run_id, "--value", "70"]);
    expect(twice.code).toBe(EXIT.failure);
    expect(twice.stderr).toContain("a run is rated once");

    // A receipt that is not logged within --wait: exit 8, nothing sent.
    const unlogged = await json<{ run_id: string }>(env, ["execute", listing.listing_id, "--task", "Unlogged", "--no-stream"]);
    const renterNonce = await chainClient().getTransactionCount({ address: renter.address });
    const waited = await agentrent(env, ["runs", "rate", unlogged.run_id, "--value", "80", "--wait", "0"]);
    expect(waited.code).toBe(EXIT.unavailable);
    expect(waited.stderr).toContain("The run's receipt is not in the on-chain run log yet (waited 0 s); nothing was sent.");
    expect(await chainClient().getTransactionCount({ address: renter.address })).toBe(renterNonce);
  });
});

// examples/x402-agent against the product as users start it: `npm start`'s entry (local/start.ts) on free
// ports and a temporary data folder, after the runtime build npm start does first (the contracts' build
// is the repository's, which tsc and every suite need; the dashboard's is not used here). The script runs
// as a child process holding only a dev renter's private key (and stack.json for the RPC URL, the
// Identity Registry and where ipfs:// files are read): no API key, no sign-in. It must discover the USDC
// listing in the ERC-8004 registry, pay one run by x402, print the output, PAYMENT-RESPONSE and receipt,
// and leave feedback the service counts as verified. The run's feedback route's wallet proof (decision
// 0235) is checked for its refusals too. Every process started is stopped by its group.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPublicClient, getAddress, http, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { localUsdcAbi } from "@agent-rental/core/tokens";
import { freePort } from "../../local/ports.ts";
import type { StackInfo } from "../../local/stack.ts";
import type { DemoData } from "../../local/demo.ts";
import { until } from "../support/until.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const dataDir = mkdtempSync(join(tmpdir(), "x402-agent-test-"));
const NODE = ["--disable-warning=ExperimentalWarning", "--import", "tsx"];
const started: ChildProcess[] = [];
let info: StackInfo;

function stop(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, "SIGKILL");
  } catch {
    // the group is gone already
  }
}

beforeAll(async () => {
  execFileSync(process.execPath, [...NODE, "scripts/build-runtime.ts"], { cwd: root, stdio: "ignore" });
  const env = { PORT: await freePort(), CHAIN_PORT: await freePort(), DYNAMODB_PORT: await freePort(), AWS_EMULATOR_PORT: await freePort() };
  const child = spawn(process.execPath, [...NODE, "local/start.ts"], {
    cwd: root,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...Object.fromEntries(Object.entries(env).map(([k, v]) => [k, String(v)])), LOCAL_DATA_DIR: dataDir, LOG_LEVEL: "warn", MALLOC_ARENA_MAX: "2" },
  });
  started.push(child);
  let output = "";
  let exited = false;
  child.stdout!.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (output += d.toString()));
  child.once("exit", () => (exited = true));
  // Ready when the banner is printed (stack.json is written just before it).
  await until("the local stack's banner", () => {
    if (exited) throw new Error(`the stack exited before it was ready:\n${output}`);
    return output.includes("Press Ctrl-C to stop.") && existsSync(join(dataDir, "stack.json"));
  }, 400_000, 200);
  info = JSON.parse(readFileSync(join(dataDir, "stack.json"), "utf8")) as StackInfo;
}, 420_000);

afterAll(() => {
  for (const child of started) stop(child);
  rmSync(dataDir, { recursive: true, force: true });
});

/** Runs the example with nothing but the wallet's key (and stack.json's path); resolves its output. */
function runExample(privateKey: Hex): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--conditions=@agent-rental/source", ...NODE, "examples/x402-agent/agent.ts", join(dataDir, "stack.json")], {
      cwd: root,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { PATH: process.env.PATH ?? "", AGENT_PRIVATE_KEY: privateKey },
    });
    started.push(child);
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

interface Result {
  agent_id: string;
  listing: string;
  run_id: string;
  output: unknown;
  payment_response: { success: boolean; transaction: Hex; network: string; payer: string };
  paid_units: string;
  receipt: { marketplace: string; receipt: { runId: Hex; listingId: Hex; renter: string; status: number; costWei: string } };
  feedback_tx: Hex;
  verified_before: number;
  verified_after: number;
}

describe("examples/x402-agent against npm start's stack", () => {
  it("discovers the USDC listing, pays 0.25 USDC by x402, prints output and receipt, and leaves verified feedback", async () => {
    const demo = info.demo as unknown as DemoData;
    const listing = demo.listings.find((l) => l.name === "sales-email-writer")!;
    // A dev renter that is not the demo's API-key holder: it has no key, no sign-in, only USDC and ETH.
    const renter = info.accounts.filter((a) => a.role === "renter").find((a) => a.address.toLowerCase() !== demo.renter.toLowerCase())!;
    const payer = privateKeyToAccount(renter.private_key as Hex);
    const client = createPublicClient({ transport: http(info.rpc_url) });
    const usdc = info.contracts.tokens.usdc.address as Hex;
    const balance = () => client.readContract({ address: usdc, abi: localUsdcAbi, functionName: "balanceOf", args: [payer.address] });
    const before = await balance();

    const run = await runExample(renter.private_key as Hex);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const result = (JSON.parse(run.stdout.trim().split("\n").at(-1)!) as { result: Result }).result;

    // Discovery: the registered agent of the USDC listing, found from its file and card.
    expect(result.agent_id).toBe(listing.erc8004_agent_id);
    expect(result.listing).toBe("Sales Email Writer");
    expect(run.stdout).toContain("(x402Support: true)");
    expect(run.stdout).toContain(`It asks 0.25 USDC a run by x402 (eip155:${info.chain_id}, asset ${getAddress(usdc)}, payTo ${getAddress(info.contracts.token_marketplace)})`);
    // The output: the deterministic model server's echo of the task and input.
    expect(result.output).toBe('Echo: Write a cold email to this prospect. Input (JSON): { "prospect": "Dana Reyes, Head of Finance at Acme Logistics" }');
    // PAYMENT-RESPONSE: settled on-chain by the service's settler, for this payer.
    expect(result.payment_response).toMatchObject({ success: true, network: `eip155:${info.chain_id}`, payer: payer.address.toLowerCase() });
    expect((await client.getTransactionReceipt({ hash: result.payment_response.transaction })).status).toBe("success");
    // Exactly the price left the payer's wallet.
    expect(result.paid_units).toBe("250000");
    expect(before - (await balance())).toBe(250_000n);
    // The receipt in the on-chain run log: this payer, this listing, a completed run at the price.
    expect(result.receipt.marketplace).toBe(`eip155:${info.chain_id}:${getAddress(info.contracts.marketplace)}`);
    expect(result.receipt.receipt).toMatchObject({ renter: payer.address, listingId: `0x${listing.listing_id.slice(4)}`, status: 0, costWei: "250000" });
    // Feedback: verified by the chain and the files alone (the SDK's verifyReputation)...
    expect([result.verified_before, result.verified_after]).toEqual([0, 1]);
    expect((await client.getTransactionReceipt({ hash: result.feedback_tx })).from.toLowerCase()).toBe(payer.address.toLowerCase());
    // ...and counted by the service's indexer: the x402 run is a paid run for the reputation rules.
    type Reputation = { review_count: number; feedback: { verified: boolean; run_id: string | null; client: string }[] };
    let reputation: Reputation | undefined;
    await until("the indexer to count the feedback", async () => {
      const res = await fetch(`${info.api_url}/v1/listings/${listing.listing_id}/reputation`, { headers: { authorization: `Bearer ${demo.api_key}` } });
      reputation = (await res.json()) as Reputation;
      // The figures and the list are written apart (the list read from an index): both, once settled.
      return res.status === 200 && reputation.review_count === 1 && reputation.feedback.length === 1;
    }, 60_000, 250);
    expect(reputation!.feedback).toEqual([expect.objectContaining({ verified: true, run_id: result.run_id, client: payer.address.toLowerCase() })]);

    await walletProofRefusals(result.run_id, renter.private_key as Hex);
  }, 420_000);
});

/** POST /v1/runs/{run_id}/feedback without a bearer token: only the run's wallet's fresh signature gets in. */
async function walletProofRefusals(runId: string, payerKey: Hex): Promise<void> {
  const post = (headers: Record<string, string>) =>
    fetch(`${info.api_url}/v1/runs/${runId}/feedback`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify({ value: 80 }) });
  const signed = async (key: Hex, timestamp: number) => `${timestamp}:${await privateKeyToAccount(key).signMessage({ message: `run-feedback:${runId}:${timestamp}` })}`;
  const now = Math.floor(Date.now() / 1000);
  const codeOf = async (res: Response) => ({ status: res.status, code: ((await res.json()) as { error: { code: string } }).error.code });
  expect(await codeOf(await post({}))).toEqual({ status: 401, code: "unauthorized" });
  expect(await codeOf(await post({ "x-wallet-signature": "not-a-proof" }))).toEqual({ status: 401, code: "unauthorized" });
  expect(await codeOf(await post({ "x-wallet-signature": await signed(payerKey, now - 3600) }))).toEqual({ status: 401, code: "unauthorized" });
  expect(await codeOf(await post({ "x-wallet-signature": await signed(generatePrivateKey(), now) }))).toEqual({ status: 404, code: "not_found" });
  // The payer's own fresh signature reaches the route's rules: the run is rated already.
  expect(await codeOf(await post({ "x-wallet-signature": await signed(payerKey, now) }))).toEqual({ status: 409, code: "feedback_exists" });
}

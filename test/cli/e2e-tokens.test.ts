// The CLI with listings priced in tokens, on the local stack (its demo's USDC per-task listing and RENT
// subscription; the renters hold both tokens): `search --currency` and `show` give the price in the
// listing's currency, and the built binary (dist/agentrent.js, what an installed `agentrent` runs)
// rents the USDC listing with one EIP-3009 signature and one transaction and the RENT subscription with
// one EIP-2612 permit and one transaction, reading the TokenMarketplace from the stack's stack.json;
// then `topup` and `renew` pay in the listing's token the same way, and `credentials` prints each
// rental's currency and a per-task balance in it; a creator lists an agent in USDC (`register
// --currency USDC`: registered for the TokenMarketplace, listed there in the token), also with no stack
// file, the currency and the TokenMarketplace named by the service's GET /v1/currencies.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, getAddress, http, type Hex } from "viem";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { localUsdcAbi } from "@agent-rental/core/tokens";
import { startStack, type RunningStack } from "../../local/stack.ts";
import { freePort } from "../../local/ports.ts";
import { chainFor } from "../../src/chain/client.ts";
import { buildCliBin, startCli } from "../support/cli.ts";

/** The built binary (the bundle and its bin, in this suite's own directory; built by the test that first runs it). */
let bin: string;
let stack: RunningStack;
let dataDir: string;
let work: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "cli-tokens-"));
  work = mkdtempSync(join(tmpdir(), "cli-tokens-home-"));
  stack = await startStack({ dataDir, apiPort: await freePort(), chainPort: await freePort(), dynamoPort: await freePort(), awsPort: await freePort(), logLevel: "silent" });
}, 240_000);

afterAll(async () => {
  await stack?.stop();
  for (const dir of [dataDir, work]) if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The renter's environment: settings from the stack's stack.json (AGENTRENT_STACK_FILE), its own key. */
function renterEnv(): Record<string, string> {
  const renter = stack.info.accounts.filter((a) => a.role === "renter")[1]!;
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith("AGENTRENT_")) env[key] = value;
  return { ...env, HOME: work, AGENTRENT_CONFIG_DIR: join(work, "config"), AGENTRENT_STACK_FILE: join(dataDir, "stack.json"), AGENTRENT_PRIVATE_KEY: renter.private_key, AGENTRENT_API_KEY: (stack.info.demo as { api_key: string }).api_key };
}

function runBin(args: string[], env: Record<string, string> = renterEnv()): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: work, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGINT"), 120_000);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const listingOf = (name: string) => (stack.info.demo.listings as { listing_id: string; name: string }[]).find((l) => l.name === name)!;

describe("the CLI and token listings", () => {
  it("searches by currency and shows a price in its currency", async () => {
    const search = await startCli(work, renterEnv(), ["search", "--currency", "usdc", "--json"]).done;
    expect(search.code, search.stderr).toBe(0);
    const found = JSON.parse(search.stdout) as { total: number; listings: { id: string; price_eth: number; currency: { symbol: string } }[] };
    expect(found.total).toBe(1);
    expect(found.listings[0]).toMatchObject({ id: listingOf("sales-email-writer").listing_id, price_eth: 0.25, currency: { symbol: "USDC" } });
    const show = await startCli(work, renterEnv(), ["show", listingOf("blog-post-outliner").listing_id]).done;
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/price\s+20 RENT per 30 days/);
  });

  it("the built binary rents the USDC listing (EIP-3009) and the RENT subscription (permit), one transaction each", async () => {
    bin = buildCliBin(join(work, "build"));
    const chain = createPublicClient({ chain: chainFor(stack.info.chain_id, stack.info.rpc_url), transport: http(stack.info.rpc_url) });
    const renter = stack.info.accounts.filter((a) => a.role === "renter")[1]!.address as Hex;
    const status = (listingId: string) => chain.readContract({ address: stack.info.contracts.token_marketplace as Hex, abi: tokenMarketplaceAbi, functionName: "credentialStatus", args: [`0x${listingId.slice(4)}` as Hex, renter] });

    const usdc = listingOf("sales-email-writer");
    const rented = await runBin(["rent", usdc.listing_id, "--runs", "4", "--yes", "--json"]);
    expect(rented.code, rented.stderr).toBe(0);
    expect(JSON.parse(rented.stdout)).toMatchObject({ listing_id: usdc.listing_id, rental_model: "per_query", currency: { symbol: "USDC", decimals: 6 }, paid_units: "1000000", payment: "authorization", credential: { status: "active" } });
    expect((JSON.parse(rented.stdout) as { transactions: string[] }).transactions).toHaveLength(1);
    expect(rented.stderr).toMatch(/for 1 USDC, paid with one signature \(EIP-3009 ReceiveWithAuthorization\) and one transaction/);
    expect(await status(usdc.listing_id)).toBe(1);

    const rent = listingOf("blog-post-outliner");
    const subscribed = await runBin(["rent", rent.listing_id, "--duration", "30d", "--yes"]);
    expect(subscribed.code, subscribed.stderr).toBe(0);
    expect(subscribed.stdout).toMatch(/Rented lst_[0-9a-f]{64} \(subscription\) for 20 RENT, paid with one signature \(EIP-2612 permit\) and one transaction/);
    expect(await status(rent.listing_id)).toBe(1);

    // A second per-task purchase of the same listing is refused by the contract; nothing is paid.
    const again = await runBin(["rent", usdc.listing_id, "--runs", "1", "--yes"]);
    expect(again.code).not.toBe(0);
  }, 400_000);

  it("tops up the USDC balance and renews the RENT subscription in their tokens; credentials print the currency", async () => {
    const chain = createPublicClient({ chain: chainFor(stack.info.chain_id, stack.info.rpc_url), transport: http(stack.info.rpc_url) });
    const renter = stack.info.accounts.filter((a) => a.role === "renter")[1]!.address as Hex;
    const market = stack.info.contracts.token_marketplace as Hex;
    const held = (listingId: string) => chain.readContract({ address: market, abi: tokenMarketplaceAbi, functionName: "credentialOf", args: [`0x${listingId.slice(4)}` as Hex, renter] });
    const usdc = listingOf("sales-email-writer");
    const rent = listingOf("blog-post-outliner");

    const topped = await runBin(["topup", usdc.listing_id, "--runs", "2", "--yes", "--json"]);
    expect(topped.code, topped.stderr).toBe(0);
    expect(JSON.parse(topped.stdout)).toMatchObject({ action: "top_up", listing_id: usdc.listing_id, currency: { symbol: "USDC" }, paid_units: "500000", payment: "authorization", credential: { status: "active", balance_units: "1500000" } });
    expect((JSON.parse(topped.stdout) as { transactions: string[] }).transactions).toHaveLength(1);
    expect(topped.stderr).toMatch(/Top up lst_[0-9a-f]{64} \(per-task balance, 0\.25 USDC per run\) for 0\.5 USDC, paid with one signature \(EIP-3009/);
    expect((await held(usdc.listing_id))[4]).toBe(1_500_000n);

    const before = (await held(rent.listing_id))[3];
    const renewed = await runBin(["renew", rent.listing_id, "--duration", "30d", "--yes"]);
    expect(renewed.code, renewed.stderr).toBe(0);
    expect(renewed.stdout).toMatch(/Renewed lst_[0-9a-f]{64} \(subscription\) for 20 RENT, paid with one signature \(EIP-2612 permit\) and one transaction/);
    expect((await held(rent.listing_id))[3] - before).toBe(30 * 86_400);
    expect(renewed.stdout).toContain(new Date(((await held(rent.listing_id))[3]) * 1000).toISOString());

    // The wrong command for the model is refused before anything is signed.
    const wrong = await runBin(["renew", usdc.listing_id, "--yes"]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/only subscriptions are renewed \(use `agentrent topup`\)/);

    // The renter's own credentials (signed in with its wallet), each with its currency.
    const own = Object.fromEntries(Object.entries(renterEnv()).filter(([key]) => key !== "AGENTRENT_API_KEY"));
    const login = await runBin(["login"], own);
    expect(login.code, login.stderr).toBe(0);
    const listed = await runBin(["credentials"], own);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${usdc.listing_id}.*per_query\\s+active\\s+USDC\\s+balance \\d+(\\.\\d+)? USDC`));
    expect(listed.stdout).toMatch(new RegExp(`${rent.listing_id}.*subscription\\s+active\\s+RENT\\s+expires`));
  }, 400_000);

  it("runs a task on the USDC listing: execute, runs get and runs list print its cost in USDC", async () => {
    const own = Object.fromEntries(Object.entries(renterEnv()).filter(([key]) => key !== "AGENTRENT_API_KEY"));
    const login = await runBin(["login"], own);
    expect(login.code, login.stderr).toBe(0);
    const usdc = listingOf("sales-email-writer");
    const ran = await runBin(["execute", usdc.listing_id, "--task", "Write a cold email", "--input", '{"prospect":"Dana Reyes"}', "--no-stream"], own);
    expect(ran.code, ran.stderr).toBe(0);
    const runId = /run (run_[0-9a-f]+): completed, cost 0\.25 USDC, \d+ ms/.exec(ran.stderr)?.[1];
    expect(runId, ran.stderr).toBeDefined();
    const got = await runBin(["runs", "get", runId!], own);
    expect(got.stdout).toMatch(/cost\s+0\.25 USDC/);
    const listed = await runBin(["runs", "list", usdc.listing_id, "--limit", "5"], own);
    expect(listed.stdout).toMatch(new RegExp(`${runId}\\s+\\S+\\s+completed\\s+0\\.25 USDC`));
    expect(listed.stdout).not.toMatch(/ ETH /);
  }, 120_000);

  it("keys: a spending limit in USDC set at creation, kept when the ETH limits change, shown in USDC, removed by currency", async () => {
    const own = Object.fromEntries(Object.entries(renterEnv()).filter(([key]) => key !== "AGENTRENT_API_KEY"));
    const login = await runBin(["login"], own);
    expect(login.code, login.stderr).toBe(0);
    type Limits = { spend_limits: { currency: string; period: string; amount: string }[] };
    const limitsOf = (out: string) => (JSON.parse(out) as Limits).spend_limits.map(({ currency, period, amount }) => ({ currency, period, amount }));
    const created = await runBin(["keys", "create", "--label", "usdc agent", "--limit-day", "5", "--limit-currency", "usdc", "--json"], own);
    expect(created.code, created.stderr).toBe(0);
    const keyId = (JSON.parse(created.stdout) as { key_id: string }).key_id;
    expect(limitsOf(created.stdout)).toEqual([{ currency: "USDC", period: "day", amount: "5000000" }]);

    // ETH limits set beside it: the USDC limit is kept; each is shown in its own currency.
    const eth = await runBin(["keys", "limit", keyId, "--month", "0.1"], own);
    expect(eth.code, eth.stderr).toBe(0);
    expect(eth.stdout).toMatch(/limit 5 USDC per day: spent 0 USDC, 5 USDC left, resets \d{4}-/);
    expect(eth.stdout).toMatch(/limit 0\.1 ETH per month: spent 0 ETH, 0\.1 ETH left, resets \d{4}-/);
    const list = await runBin(["keys", "list"], own);
    expect(list.stdout).toMatch(new RegExp(`${keyId}[^\\n]*usdc agent[^\\n]*\\n    limit 5 USDC per day: spent 0 USDC, 5 USDC left`));

    // Refused before anything is sent: a currency the service does not take, more decimals than USDC has.
    const unknown = await runBin(["keys", "limit", keyId, "--day", "5", "--currency", "DOGE"], own);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--currency "DOGE" is not a currency the service takes \(ETH, USDC, RENT; GET \/v1\/currencies\)/);
    const fine = await runBin(["keys", "limit", keyId, "--day", "0.0000001", "--currency", "USDC"], own);
    expect(fine.code).toBe(2);
    expect(fine.stderr).toMatch(/--day must be an amount of USDC such as 0\.25, with at most 6 decimals/);
    const changed = await runBin(["keys", "limit", keyId, "--day", "7.5", "--currency", "USDC", "--json"], own);
    expect(changed.code, changed.stderr).toBe(0);
    expect(limitsOf(changed.stdout)).toEqual(expect.arrayContaining([{ currency: "ETH", period: "month", amount: "100000000000000000" }, { currency: "USDC", period: "day", amount: "7500000" }]));
    expect(limitsOf(changed.stdout)).toHaveLength(2);

    // --none with a currency removes that currency's limits only; alone, every limit.
    const noUsdc = await runBin(["keys", "limit", keyId, "--none", "--currency", "USDC", "--json"], own);
    expect(limitsOf(noUsdc.stdout)).toEqual([{ currency: "ETH", period: "month", amount: "100000000000000000" }]);
    const none = await runBin(["keys", "limit", keyId, "--none", "--json"], own);
    expect(limitsOf(none.stdout)).toEqual([]);
  }, 120_000);

  it("a creator registers an agent and lists it in USDC on the TokenMarketplace", async () => {
    const creator = stack.info.accounts.filter((a) => a.role === "creator")[0]!;
    const env = { ...Object.fromEntries(Object.entries(renterEnv()).filter(([key]) => key !== "AGENTRENT_API_KEY")), AGENTRENT_CONFIG_DIR: join(work, "creator-config"), AGENTRENT_PRIVATE_KEY: creator.private_key };
    const manifest = { name: "usdc-haiku-writer", category: "content", description: "Writes a haiku about a topic, in three lines.", model: { provider: "provider_a", model: "demo-model" }, system_prompt: "Write a haiku.", input_schema: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] }, output_schema: { type: "string", examples: ["an old silent pond"] } };
    writeFileSync(join(work, "usdc-agent.json"), JSON.stringify(manifest));
    expect((await runBin(["login"], env)).code).toBe(0);
    const listed = await runBin(["register", "usdc-agent.json", "--model", "per_query", "--price", "0.5", "--currency", "USDC", "--json"], env);
    expect(listed.code, listed.stderr).toBe(0);
    const out = JSON.parse(listed.stdout) as { listing_id: string; on_chain_id: Hex; tx_hash: Hex };
    expect(out).toMatchObject({ rental_model: "per_query", currency: { symbol: "USDC", decimals: 6, address: getAddress(stack.info.contracts.tokens.usdc.address) }, price_units: 500000 });
    const chain = createPublicClient({ chain: chainFor(stack.info.chain_id, stack.info.rpc_url), transport: http(stack.info.rpc_url) });
    const receipt = await chain.getTransactionReceipt({ hash: out.tx_hash });
    expect(receipt.to?.toLowerCase()).toBe((stack.info.contracts.token_marketplace as string).toLowerCase());
    const onChain = await chain.readContract({ address: stack.info.contracts.token_marketplace as Hex, abi: tokenMarketplaceAbi, functionName: "listings", args: [out.on_chain_id] });
    expect({ price: onChain[0], accessType: onChain[2], status: onChain[3], creator: onChain[4].toLowerCase(), token: onChain[6].toLowerCase() }).toEqual({ price: 500_000n, accessType: 2, status: 1, creator: creator.address.toLowerCase(), token: stack.info.contracts.tokens.usdc.address.toLowerCase() });
    // A currency that is no token is refused before anything is registered.
    const bad = await runBin(["register", "usdc-agent.json", "--model", "per_query", "--price", "0.5", "--currency", "DOGE"], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/neither ETH nor a token's address/);
  }, 240_000);

  it("a creator manages a USDC listing on the TokenMarketplace: earnings, pause and resume, a new price, a withdrawal, in USDC", async () => {
    const creator = stack.info.accounts.filter((a) => a.role === "creator")[0]!;
    const env = { ...Object.fromEntries(Object.entries(renterEnv()).filter(([key]) => key !== "AGENTRENT_API_KEY")), AGENTRENT_CONFIG_DIR: join(work, "creator-manage-config"), AGENTRENT_PRIVATE_KEY: creator.private_key };
    expect((await runBin(["login"], env)).code).toBe(0);
    const usdc = listingOf("sales-email-writer");
    const market = stack.info.contracts.token_marketplace as Hex;
    const chain = createPublicClient({ chain: chainFor(stack.info.chain_id, stack.info.rpc_url), transport: http(stack.info.rpc_url) });
    const onChain = () => chain.readContract({ address: market, abi: tokenMarketplaceAbi, functionName: "listings", args: [`0x${usdc.listing_id.slice(4)}` as Hex] });
    const escrow = (await onChain())[1];
    expect(escrow).toBeGreaterThan(0n);

    const earnings = await runBin(["earnings", usdc.listing_id, "--json"], env);
    expect(earnings.code, earnings.stderr).toBe(0);
    expect(JSON.parse(earnings.stdout)).toMatchObject({ listings: [{ listing_id: usdc.listing_id, status: "active", escrow_wei: Number(escrow), currency: { symbol: "USDC", decimals: 6 } }], total_wei: 0 });
    const all = await runBin(["earnings"], env);
    expect(all.stdout).toMatch(new RegExp(`${usdc.listing_id}  active  ${(Number(escrow) / 1e6).toString().replace(".", "\\.")} USDC`));
    expect(all.stdout).toMatch(/^total \d+(\.\d+)? ETH, \d+(\.\d+)? USDC /m);

    const paused = await runBin(["listing", "pause", usdc.listing_id], env);
    expect(paused.code, paused.stderr).toBe(0);
    expect((await onChain())[3]).toBe(2);
    expect((await runBin(["listing", "resume", usdc.listing_id], env)).code).toBe(0);
    expect((await onChain())[3]).toBe(1);
    const priced = await runBin(["listing", "update", usdc.listing_id, "--price", "0.3"], env);
    expect(priced.code, priced.stderr).toBe(0);
    expect((await onChain())[0]).toBe(300_000n);
    const tooFine = await runBin(["listing", "update", usdc.listing_id, "--price", "0.0000001"], env);
    expect(tooFine.code).toBe(2);
    expect(tooFine.stderr).toMatch(/--price must be an amount of USDC such as 0\.25, with at most 6 decimals/);
    expect((await runBin(["listing", "update", usdc.listing_id, "--price", "0.25"], env)).code).toBe(0);
    expect((await onChain())[0]).toBe(250_000n);

    const before = await chain.readContract({ address: stack.info.contracts.tokens.usdc.address as Hex, abi: localUsdcAbi, functionName: "balanceOf", args: [creator.address as Hex] });
    const withdrawn = await runBin(["withdraw", usdc.listing_id], env);
    expect(withdrawn.code, withdrawn.stderr).toBe(0);
    expect(withdrawn.stdout).toContain(`Withdrew ${(Number(escrow) / 1e6).toString()} USDC from ${usdc.listing_id}`);
    const after = await chain.readContract({ address: stack.info.contracts.tokens.usdc.address as Hex, abi: localUsdcAbi, functionName: "balanceOf", args: [creator.address as Hex] });
    expect(after - before).toBe(escrow);
    expect((await onChain())[1]).toBe(0n);
  }, 240_000);

  it("a creator with no stack file (as against the cloud) names the currency by its symbol: the service's GET /v1/currencies gives the token and the TokenMarketplace", async () => {
    const creator = stack.info.accounts.filter((a) => a.role === "creator")[0]!;
    // Only what a cloud user configures: the API, the chain and the Marketplace; no stack.json, no TokenMarketplace.
    const base = Object.fromEntries(Object.entries(renterEnv()).filter(([key]) => key !== "AGENTRENT_API_KEY" && key !== "AGENTRENT_STACK_FILE"));
    const env = { ...base, AGENTRENT_CONFIG_DIR: join(work, "cloud-creator-config"), AGENTRENT_PRIVATE_KEY: creator.private_key, AGENTRENT_API_URL: stack.info.api_url, AGENTRENT_RPC_URL: stack.info.rpc_url, AGENTRENT_CHAIN_ID: String(stack.info.chain_id), AGENTRENT_MARKETPLACE: stack.info.contracts.marketplace as string };
    const manifest = { name: "usdc-limerick-writer", category: "content", description: "Writes a limerick about a topic.", model: { provider: "provider_a", model: "demo-model" }, system_prompt: "Write a limerick.", input_schema: { type: "object", properties: { topic: { type: "string" } }, required: ["topic"] }, output_schema: { type: "string", examples: ["there once was a pond"] } };
    writeFileSync(join(work, "usdc-limerick.json"), JSON.stringify(manifest));
    expect((await runBin(["login"], env)).code).toBe(0);
    const listed = await runBin(["register", "usdc-limerick.json", "--model", "per_query", "--price", "0.1", "--currency", "usdc", "--json"], env);
    expect(listed.code, listed.stderr).toBe(0);
    const out = JSON.parse(listed.stdout) as { on_chain_id: Hex; tx_hash: Hex };
    expect(out).toMatchObject({ currency: { symbol: "USDC", decimals: 6, address: getAddress(stack.info.contracts.tokens.usdc.address) }, price_units: 100000 });
    const chain = createPublicClient({ chain: chainFor(stack.info.chain_id, stack.info.rpc_url), transport: http(stack.info.rpc_url) });
    expect((await chain.getTransactionReceipt({ hash: out.tx_hash })).to?.toLowerCase()).toBe((stack.info.contracts.token_marketplace as string).toLowerCase());
    const onChain = await chain.readContract({ address: stack.info.contracts.token_marketplace as Hex, abi: tokenMarketplaceAbi, functionName: "listings", args: [out.on_chain_id] });
    expect({ price: onChain[0], token: onChain[6].toLowerCase() }).toEqual({ price: 100_000n, token: stack.info.contracts.tokens.usdc.address.toLowerCase() });
    // A symbol the service does not take, with no TokenMarketplace set: refused before anything is registered.
    const bad = await runBin(["register", "usdc-limerick.json", "--model", "per_query", "--price", "0.1", "--currency", "DOGE"], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/the service names no currency "DOGE"/);
  }, 240_000);
});

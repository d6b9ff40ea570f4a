// The money a listing holds, in a real browser against the real local stack: a renter takes back an
// unspent per-task balance only as the contract allows (a request, then the withdrawal an hour later;
// the ETH returns exactly), rates a listing after a run, and a creator manages listings in the console
// (pause and resume, price and metadata, provider key, webhook secret shown once, vested earnings only,
// closing by the specification's rule, with the earnings withdrawn in the same transaction).
import { describe, expect, it } from "vitest";
import { createPublicClient, createTestClient, createWalletClient, formatEther, http, parseEther, parseEventLogs, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import { DEMO_PROVIDER_KEY } from "../../local/demo.ts";
import { chainFor } from "../../src/chain/client.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { connectAndSignIn, openDashboard, refusalLogged, seriousViolations, webSuite } from "./support.ts";
import { demoListings, type DemoListing } from "./seed.ts";

const web = webSuite();

const key = (i: number) => DEV_ACCOUNTS[i]!.privateKey as Hex;
const demo = (name: string) => demoListings(web.stack).find((l) => l.name === name)!;
const onChain = (l: DemoListing) => `0x${l.listing_id.slice(4)}` as Hex;

function chainClients(privateKey?: Hex) {
  const chain = chainFor(web.stack.info.chain_id, web.stack.info.rpc_url);
  const transport = http(web.stack.info.rpc_url);
  const pub = createPublicClient({ chain, transport });
  const marketplace = web.stack.info.contracts.marketplace as Hex;
  const write = async (functionName: "purchasePerQuery" | "updateListing", args: readonly unknown[], value?: bigint) => {
    const wallet = createWalletClient({ account: privateKeyToAccount(privateKey!), chain, transport });
    const hash = await wallet.writeContract({ address: marketplace, abi: marketplaceAbi, functionName, args: args as never, ...(value !== undefined ? { value } : {}) } as never);
    const receipt = await pub.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
  };
  const listing = (id: Hex) => pub.readContract({ address: marketplace, abi: marketplaceAbi, functionName: "listings", args: [id] });
  return { pub, marketplace, write, listing };
}

/** Registers a connected agent (its webhooks go to entrypoint_url) through the API as the creator and
 * lists it on-chain: the console then offers its webhook secret. */
async function registerConnectedAgent(token: string, creatorKey: Hex): Promise<string> {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const manifest = {
    name: "remote-writer",
    category: "coding",
    description: "Writes release notes on the creator's own servers.",
    model: { provider: "self_hosted", endpoint_url: "https://models.example.com/v1" },
    entrypoint_url: "https://agent.example.com/run",
    input_schema: { type: "object" },
    output_schema: { type: "object", examples: [{ notes: "Fixed the login bug." }] },
  };
  const submitted = (await (await fetch(`${web.stack.info.api_url}/v1/agents`, { method: "POST", headers, body: JSON.stringify(manifest) })).json()) as { job_id: string };
  let job: { status: string; result?: { listing_id: string; listing_seed: Hex; metadata_uri: string }; error?: unknown } = { status: "queued" };
  await expect
    .poll(async () => (job = (await (await fetch(`${web.stack.info.api_url}/v1/jobs/${submitted.job_id}`, { headers })).json()) as typeof job).status, { timeout: 30_000 })
    .not.toBe("queued");
  expect(job).toMatchObject({ status: "completed" });
  const { pub } = chainClients();
  const wallet = createWalletClient({ account: privateKeyToAccount(creatorKey), chain: chainFor(web.stack.info.chain_id, web.stack.info.rpc_url), transport: http(web.stack.info.rpc_url) });
  const hash = await wallet.writeContract({ address: web.stack.info.contracts.marketplace as Hex, abi: marketplaceAbi, functionName: "createListing", args: [job.result!.listing_seed, 0, parseEther("0.01"), job.result!.metadata_uri] });
  expect((await pub.waitForTransactionReceipt({ hash })).status).toBe("success");
  return job.result!.listing_id;
}

/** The signed-in page's own token, for calls the test makes as that renter. */
const tokenOf = (page: import("playwright-core").Page) => page.evaluate(() => (JSON.parse(sessionStorage.getItem("agent-market.session")!) as { token: string }).token);

describe("listings' money in the dashboard", () => {
  it("offers to take an unspent per-task balance back only as the contract allows: a request first, the withdrawal an hour later, the ETH returned exactly", async () => {
    const listing = demo("market-researcher");
    const renter = chainClients(key(6));
    const creator = chainClients(key(DEV_ACCOUNTS.findIndex((a) => a.address.toLowerCase() === listing.creator.toLowerCase())));
    const [price, , , , , , metadataUri] = await renter.listing(onChain(listing));
    await renter.write("purchasePerQuery", [onChain(listing)], price * 3n);

    const d = await openDashboard(web.browser, web.stack, key(6));
    const { page } = d;
    await page.goto(`${web.stack.info.dashboard_url}rentals`);
    await connectAndSignIn(d);
    const row = page.getByRole("article").filter({ hasText: "Market Researcher" });
    await expect.poll(() => row.getByTestId("runs-left").textContent(), { timeout: 30_000 }).toMatch(/^3 runs left/);
    // Prepaid credit at the price it was deposited at, covering a run: the contract refuses, so no button.
    expect(await row.getByRole("button", { name: "Withdraw unspent" }).count()).toBe(0);
    await d.shot("m1-01-balance-not-withdrawable");

    // The creator raises the price: a rise the renter did not agree to lets the renter leave, in two
    // steps (a run admitted before the request still settles in between).
    await creator.write("updateListing", [onChain(listing), price + price / 2n, metadataUri]);
    await page.reload();
    await row.getByRole("button", { name: "Request withdrawal" }).click();
    const ask = page.getByRole("alertdialog");
    await ask.getByText("You may leave now: the price rose above the price of your last deposit.", { exact: false }).waitFor();
    await ask.getByText(/withdrawn an hour after you ask/).waitFor();
    expect(await row.getByRole("button", { name: "Withdraw unspent" }).count()).toBe(0);
    await d.shot("m1-02-request-dialog");
    expect(await seriousViolations(page)).toEqual([]);
    await ask.getByRole("button", { name: "Request withdrawal" }).click();
    await ask.getByText(/Confirmed/).first().waitFor({ timeout: 30_000 });
    await ask.getByRole("button", { name: "Close" }).click();
    expect(d.wallet.sent).toHaveLength(1);
    await row.getByTestId("withdrawal-pending").getByText(/Requested: withdrawable from/).waitFor({ timeout: 15_000 });
    // No new run on a leaving balance: the row says so and offers none.
    expect(await row.getByRole("link", { name: "Run a task" }).count()).toBe(0);
    await row.getByText("low balance", { exact: true }).waitFor();
    expect(await row.getByRole("button", { name: "Withdraw unspent" }).count()).toBe(0);
    expect(await row.getByRole("button", { name: "Request withdrawal" }).count()).toBe(0);
    await d.shot("m1-03-withdrawal-pending");

    // An hour of chain time later the balance can be taken back.
    const admin = createTestClient({ mode: "hardhat", transport: http(web.stack.info.rpc_url) });
    await admin.increaseTime({ seconds: 3_600 });
    await admin.mine({ blocks: 1 });
    await page.reload();
    await row.getByRole("button", { name: "Withdraw unspent" }).click({ timeout: 30_000 });
    const dialog = page.getByRole("alertdialog");
    await dialog.getByText("The contract allows it now: the hour since your request has passed.", { exact: false }).waitFor();
    const deposit = price * 3n;
    const before = await renter.pub.getBalance({ address: d.wallet.address });
    await d.shot("m1-04-withdraw-dialog");
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole("button", { name: `Withdraw ${formatEther(deposit)} ETH` }).click();
    await dialog.getByText(/Confirmed/).first().waitFor({ timeout: 30_000 });
    await d.shot("m1-05-withdrawn");
    expect(d.wallet.sent).toHaveLength(2);
    const receipt = await renter.pub.getTransactionReceipt({ hash: d.wallet.sent[1]! });
    const after = await renter.pub.getBalance({ address: d.wallet.address });
    expect(after - before).toBe(deposit - receipt.gasUsed * receipt.effectiveGasPrice);
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => row.getByTestId("runs-left").textContent(), { timeout: 15_000 }).toMatch(/^0 runs left/);
    expect(await row.getByRole("button", { name: "Withdraw unspent" }).count()).toBe(0);
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 90_000);

  it("lets a renter rate a listing from its page once they completed a run, and says why before that", async () => {
    const listing = demo("unit-test-writer");
    const renter = chainClients(key(8));
    const [price] = await renter.listing(onChain(listing));
    await renter.write("purchasePerQuery", [onChain(listing)], price * 2n);
    const d = await openDashboard(web.browser, web.stack, key(8));
    const { page } = d;
    await page.goto(`${web.stack.info.dashboard_url}listings/${listing.listing_id}`);
    await connectAndSignIn(d);
    const form = page.getByRole("form", { name: "Your rating" });
    await form.waitFor({ timeout: 30_000 });
    await form.getByRole("radio", { name: "4 stars" }).check();
    await form.getByLabel("Comment (optional)").fill("Covered the edge cases I forgot.");
    await form.getByRole("button", { name: "Submit rating" }).click();
    await form.getByRole("alert").getByText(/completed run/).waitFor();
    await d.shot("m2-01-rating-refused");

    const token = await tokenOf(page);
    const run = await fetch(`${web.stack.info.api_url}/v1/execute`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ agent_id: listing.listing_id, task: "Write unit tests", input: { source: "export const one = () => 1;" } }),
    });
    expect(((await run.json()) as { status: string }).status).toBe("completed");
    await form.getByRole("button", { name: "Submit rating" }).click();
    await form.getByText("Thanks: your rating is saved.").waitFor();
    await page.getByRole("region", { name: "Ratings" }).getByRole("listitem").getByText("Covered the edge cases I forgot.").waitFor({ timeout: 15_000 });
    // The listing's own rating is its verified on-chain feedback; an off-chain rating is listed apart.
    await page.getByText("No ratings yet").waitFor({ timeout: 15_000 });
    await form.getByRole("button", { name: "Update rating" }).waitFor();
    await d.shot("m2-02-rated");
    expect(await seriousViolations(page)).toEqual([]);
    // The one refusal the journey provokes on purpose (a rating before any completed run), and no other.
    expect(d.errors).toEqual([refusalLogged(403, `${web.stack.info.api_url}/v1/listings/${listing.listing_id}/rating`)]);
    await d.context.close();
  }, 90_000);

  it("a creator pauses and resumes, updates price and metadata, sets the provider key, rotates the webhook secret, withdraws only vested earnings, and closes by the contract's rule", async () => {
    const subscription = demo("earnings-summarizer");
    const oneTime = demo("contract-reviewer");
    const creatorKey = key(DEV_ACCOUNTS.findIndex((a) => a.address.toLowerCase() === subscription.creator.toLowerCase()));
    const chain = chainClients(creatorKey);
    const d = await openDashboard(web.browser, web.stack, creatorKey);
    const { page } = d;
    await page.goto(`${web.stack.info.dashboard_url}creator`);
    await connectAndSignIn(d);

    // Subscription earnings: only the vested part is offered, never the whole escrow.
    const sub = page.getByRole("article").filter({ has: page.getByRole("heading", { name: "Earnings Summarizer" }) });
    await sub.getByText("Manage").click();
    const withdraw = sub.getByRole("button", { name: /^Withdraw \d/ });
    await withdraw.waitFor({ timeout: 15_000 });
    const [, escrowBefore] = await chain.listing(onChain(subscription));
    const offered = parseEther((await withdraw.textContent())!.replace(/^Withdraw | ETH$/g, ""));
    expect(offered).toBeGreaterThan(0n);
    expect(offered).toBeLessThan(escrowBefore);
    await d.shot("m3-01-manage");
    expect(await seriousViolations(page)).toEqual([]);
    await withdraw.click();
    await sub.getByText(/Confirmed/).first().waitFor({ timeout: 30_000 });
    const withdrawn = parseEventLogs({ abi: marketplaceAbi, eventName: "EarningsWithdrawn", logs: (await chain.pub.getTransactionReceipt({ hash: d.wallet.sent.at(-1)! })).logs });
    expect(withdrawn[0]!.args.amount).toBe(offered);
    const [, escrowAfter] = await chain.listing(onChain(subscription));
    expect(escrowAfter).toBe(escrowBefore - offered);

    // Pause; closing is not offered while part of the escrow is still vesting: the page says why and
    // sends nothing.
    await sub.getByRole("button", { name: "Pause listing" }).click();
    await sub.getByRole("button", { name: "Resume listing" }).waitFor({ timeout: 30_000 });
    expect((await chain.listing(onChain(subscription)))[3]).toBe(2);
    await expect.poll(() => sub.getByTestId("close-rule").textContent()).toMatch(/is still vesting: it can close once the periods its renters paid for have passed/);
    const sentBefore = d.wallet.sent.length;
    await sub.getByRole("button", { name: "Close listing" }).click();
    const refused = page.getByRole("alertdialog");
    await refused.getByText(/is still vesting: the periods this listing's subscribers paid for have not passed yet/).waitFor();
    expect(await refused.getByRole("button", { name: /Close for good|and close/ }).count()).toBe(0);
    await d.shot("m3-02-close-refused");
    await refused.getByRole("button", { name: "OK" }).click();
    expect(d.wallet.sent.length).toBe(sentBefore);
    await sub.getByRole("button", { name: "Resume listing" }).click();
    await sub.getByRole("button", { name: "Pause listing" }).waitFor({ timeout: 30_000 });
    expect((await chain.listing(onChain(subscription)))[3]).toBe(1);

    // Price and metadata, the provider key, the webhook secret: on the one-time listing.
    const one = page.getByRole("article").filter({ has: page.getByRole("heading", { name: "Contract Reviewer" }) });
    await one.getByText("Manage").click();
    const [, , , , , , uri] = await chain.listing(onChain(oneTime));
    await one.getByLabel("Price (ETH)").fill("0.0125");
    await one.getByLabel("Metadata URI").fill(`${uri}#v2`);
    await one.getByRole("button", { name: "Update listing" }).click();
    await one.getByText(/Confirmed/).first().waitFor({ timeout: 30_000 });
    const updated = await chain.listing(onChain(oneTime));
    expect(updated[0]).toBe(parseEther("0.0125"));
    expect(updated[6]).toBe(`${uri}#v2`);
    await one.getByText("Price 0.0125 ETH").waitFor();
    // Metadata other than what the service registered takes the listing out of the catalogue: the
    // page says so, and setting the registered URI back publishes it again.
    await one.getByText(/Not the metadata the service registered for this agent/).waitFor();
    await one.getByLabel("Metadata URI").fill(uri);
    await one.getByText("The metadata the service registered for this agent.").waitFor();
    await one.getByRole("button", { name: "Update listing" }).click();
    await expect.poll(async () => (await chain.listing(onChain(oneTime)))[6], { timeout: 30_000 }).toBe(uri);

    await one.getByLabel("Model-provider key").fill(DEMO_PROVIDER_KEY);
    await one.getByRole("button", { name: "Set provider key" }).click();
    await one.getByText("Provider key saved.").waitFor();
    expect(await one.getByLabel("Model-provider key").inputValue()).toBe("");

    // A declarative agent has no webhooks: the API's refusal is shown with its request id.
    await one.getByRole("button", { name: "Rotate webhook secret" }).click();
    await one.getByRole("alert").filter({ hasText: "Only a connected agent (entrypoint_url) receives signed webhooks." }).getByText(/Request id/).waitFor();

    // A connected agent's webhook secret: shown once, replaced by the next rotation, gone on reload.
    const connected = await registerConnectedAgent(await tokenOf(page), creatorKey);
    await page.reload();
    const remote = page.getByRole("article").filter({ has: page.getByRole("heading", { name: "Remote Writer" }) });
    await remote.getByText("Manage").click({ timeout: 30_000 });
    await remote.getByRole("button", { name: "Rotate webhook secret" }).click();
    const shown = remote.getByRole("alert").filter({ hasText: "shown once" }).locator("code");
    await shown.waitFor();
    const first = (await shown.textContent())!;
    expect(first).toMatch(/^whsec_/);
    await remote.getByRole("button", { name: "Copy secret" }).click();
    await remote.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate(() => (navigator as unknown as { clipboard: { readText(): Promise<string> } }).clipboard.readText())).toBe(first);
    await d.shot("m3-03-webhook-secret");
    await remote.getByRole("button", { name: "Rotate webhook secret" }).click();
    await expect.poll(() => shown.textContent()).not.toBe(first);
    await remote.getByRole("button", { name: "I stored it" }).click();
    await expect.poll(() => shown.count()).toBe(0);
    expect(connected).toMatch(/^lst_/);

    // Closing an active listing with an empty escrow: no pause needed, it closes as it is.
    await remote.getByRole("button", { name: "Close listing" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Close for good" }).click();
    await remote.getByText("closed", { exact: true }).waitFor({ timeout: 30_000 });
    expect((await chain.listing(`0x${connected.slice(4)}` as Hex))[3]).toBe(3);

    // Closing an active listing with earnings in escrow: the page offers to withdraw them and close in
    // one transaction; the earnings arrive, exactly, and the listing is closed.
    await one.getByText("Manage").click();
    const [, escrowOfOne] = await chain.listing(onChain(oneTime));
    expect(escrowOfOne).toBeGreaterThan(0n);
    await one.getByRole("button", { name: "Close listing" }).click();
    const ask = page.getByRole("alertdialog");
    await ask.getByText(/they are withdrawn to your wallet in the same transaction/).waitFor();
    await d.shot("m3-04-close-and-withdraw");
    expect(await seriousViolations(page)).toEqual([]);
    await ask.getByRole("button", { name: `Withdraw ${formatEther(escrowOfOne)} ETH and close` }).click();
    await one.getByText("closed", { exact: true }).waitFor({ timeout: 30_000 });
    const closing = parseEventLogs({ abi: marketplaceAbi, logs: (await chain.pub.getTransactionReceipt({ hash: d.wallet.sent.at(-1)! })).logs });
    expect(closing.map((e) => e.eventName)).toEqual(["EarningsWithdrawn", "ListingClosed"]);
    expect((closing[0]!.args as { amount: bigint }).amount).toBe(escrowOfOne);
    const closedOne = await chain.listing(onChain(oneTime));
    expect([closedOne[1], closedOne[3]]).toEqual([0n, 3]);
    expect(await one.getByText("Manage").count()).toBe(0);
    await d.shot("m3-05-closed");
    // The one refusal provoked on purpose (a webhook secret for a declarative agent), and no other.
    expect(d.errors).toEqual([refusalLogged(400, `${web.stack.info.api_url}/v1/listings/${oneTime.listing_id}/webhook-secret`)]);
    await d.context.close();
  }, 120_000);
});

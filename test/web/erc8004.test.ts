// ERC-8004 in the dashboard, in a real browser against the real local stack and its registries: a
// creator registers a listing as an agent from its page (one button; the wallet sends register, then
// setAgentURI), the console keeps the agent's registration file's `active` current after a pause, a
// resume and a close, and a renter rates a completed run from the run page (a receipt not yet logged is
// said and retried; the wallet sends giveFeedback; the verified rating follows).
import { describe, expect, it } from "vitest";
import { createPublicClient, decodeFunctionData, http, parseEventLogs, type Hex } from "viem";
import { identityRegistryAbi } from "@agent-rental/core/identity-registry";
import { reputationRegistryAbi } from "@agent-rental/core/reputation-registry";
import { until } from "../support/until.ts";
import { chainFor } from "../../src/chain/client.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { connectAndSignIn, openDashboard, refusalLogged, seriousViolations, webSuite } from "./support.ts";
import { apiAs, approvedCreator, chainAs, demoListings, fundedWallet, manifestOf, onChainId, registeredListing } from "./seed.ts";

const web = webSuite();

interface RegistrationFile {
  active: boolean;
  registrations: { agentId: number; agentRegistry: string }[];
  services: { name: string; endpoint: string }[];
}

const identity = () => web.stack.info.contracts.identity_registry as Hex;
const reputation = () => web.stack.info.contracts.reputation_registry as Hex;

/** The agent's registration file as the registry points at it: tokenURI, then the API's gateway. */
async function fileOf(agentId: bigint): Promise<RegistrationFile> {
  const pub = createPublicClient({ chain: chainFor(web.stack.info.chain_id, web.stack.info.rpc_url), transport: http(web.stack.info.rpc_url) });
  const uri = await pub.readContract({ address: identity(), abi: identityRegistryAbi, functionName: "tokenURI", args: [agentId] });
  const res = await fetch(`${web.stack.info.api_url}/v1/metadata/${uri.replace(/^ipfs:\/\//, "")}`);
  expect(res.status).toBe(200);
  return (await res.json()) as RegistrationFile;
}

/** A new approved creator's published listing (a fresh wallet, so nothing of the demo's is touched). */
async function creatorListing(name: string, model: "one_time" | "per_query" = "one_time") {
  const creatorKey = await fundedWallet(web.stack);
  await approvedCreator(web.stack, creatorKey, `${name} Labs`);
  const listingId = await registeredListing(web.stack, creatorKey, manifestOf(name), { model, priceEth: "0.001", approve: true });
  // Published once the service has indexed the listing's creation.
  const creator = await apiAs(web.stack, creatorKey);
  await until("the listing published", async () => (await creator.get<{ id: string }>(`/v1/listings/${listingId}`).catch(() => null)) !== null, 30_000, 250);
  return { creatorKey, listingId };
}

/** A fresh wallet that rented the demo's Contract Reviewer (one-time), once the service has indexed the
 * rental: its chain clients and its API client. */
async function contractReviewerRenter() {
  const listing = demoListings(web.stack).find((l) => l.name === "contract-reviewer")!;
  const renterKey = await fundedWallet(web.stack);
  const renter = chainAs(web.stack, renterKey);
  const [price] = await renter.pub.readContract({ address: renter.marketplace, abi: marketplaceAbi, functionName: "listings", args: [onChainId(listing.listing_id)] });
  await renter.write("purchaseOneTime", [onChainId(listing.listing_id)], price);
  const api = await apiAs(web.stack, renterKey);
  await until("the rental indexed", async () => (await api.get<{ valid: boolean }>(`/v1/credentials/${listing.listing_id}`)).valid, 30_000, 250);
  return { listing, renterKey, renter, api };
}

/** Registers a listing as its creator's agent the way a creator's own program does: the API's prepared
 * register, then setAgentURI with the Registered event's id, each sent by the creator's wallet. */
async function registerAsAgent(creatorKey: Hex, listingId: string): Promise<bigint> {
  const creator = await apiAs(web.stack, creatorKey);
  const { pub, wallet } = chainAs(web.stack, creatorKey);
  const send = async (tx: { to: Hex; data: Hex }) => {
    const receipt = await pub.waitForTransactionReceipt({ hash: await wallet.sendTransaction(tx) });
    expect(receipt.status).toBe("success");
    return receipt;
  };
  const first = await creator.post<{ transaction: { to: Hex; data: Hex } }>(`/v1/listings/${listingId}/erc8004`, {});
  const agentId = parseEventLogs({ abi: identityRegistryAbi, eventName: "Registered", logs: (await send(first.transaction)).logs })[0]!.args.agentId;
  await send((await creator.post<{ transaction: { to: Hex; data: Hex } }>(`/v1/listings/${listingId}/erc8004`, { agent_id: agentId.toString() })).transaction);
  return agentId;
}

describe("ERC-8004 in the dashboard", () => {
  it("registers a listing from its page with one button (register, then setAgentURI from the creator's wallet); a refused second transaction leaves an agent the page offers to complete; the identity shows once indexed", async () => {
    const { creatorKey, listingId } = await creatorListing("brief-writer");
    const d = await openDashboard(web.browser, web.stack, creatorKey);
    const { page } = d;
    await page.goto(`${web.stack.info.dashboard_url}listings/${listingId}`);
    await connectAndSignIn(d);
    const section = page.getByRole("region", { name: "ERC-8004 identity and reputation" });
    await section.getByText(/Not registered as an ERC-8004 agent yet/).waitFor({ timeout: 30_000 });
    await d.shot("e1-01-not-registered");
    expect(await seriousViolations(page)).toEqual([]);

    // The wallet confirms register and refuses setAgentURI: the agent exists, its file does not name it.
    d.wallet.rejectNext("eth_sendTransaction", { after: 1 });
    await section.getByRole("button", { name: "Register as an ERC-8004 agent" }).click();
    await section.getByText(/You rejected the request in your wallet/).waitFor({ timeout: 30_000 });
    expect(d.wallet.sent).toHaveLength(1);
    const { pub } = chainAs(web.stack, creatorKey);
    const registered = parseEventLogs({ abi: identityRegistryAbi, eventName: "Registered", logs: (await pub.getTransactionReceipt({ hash: d.wallet.sent[0]! })).logs })[0]!;
    const agentId = registered.args.agentId;
    expect(registered.args.owner.toLowerCase()).toBe(d.wallet.address.toLowerCase());
    expect((await fileOf(agentId)).registrations).toEqual([]);
    const offer = section.getByTestId("erc8004-file");
    await offer.getByText(`The agent's registration file does not name agent ${agentId} yet`, { exact: false }).waitFor({ timeout: 30_000 });
    await d.shot("e1-02-second-transaction-refused");

    await offer.getByRole("button", { name: "Update the registration file" }).click();
    await section.getByText(`Registration file up to date: it names agent ${agentId} and says active: true.`).waitFor({ timeout: 30_000 });
    expect(d.wallet.sent).toHaveLength(2);
    const setUri = await pub.getTransaction({ hash: d.wallet.sent[1]! });
    expect(setUri.to?.toLowerCase()).toBe(identity().toLowerCase());
    expect(decodeFunctionData({ abi: identityRegistryAbi, data: setUri.input }).functionName).toBe("setAgentURI");
    // The identity as the service indexed it, and the file the registry now resolves to.
    const shown = section.getByTestId("erc8004-identity");
    await shown.getByText(agentId.toString(), { exact: true }).waitFor({ timeout: 30_000 });
    await shown.getByText(`eip155:${web.stack.info.chain_id}:${identity().slice(0, 8)}`, { exact: false }).waitFor();
    const file = await fileOf(agentId);
    expect(file.registrations).toEqual([{ agentId: Number(agentId), agentRegistry: `eip155:${web.stack.info.chain_id}:${identity()}` }]);
    expect(file.active).toBe(true);
    const agent = await (await apiAs(web.stack, creatorKey)).get<{ erc8004: { agent_id: string } | null }>(`/v1/listings/${listingId}`);
    expect(agent.erc8004?.agent_id).toBe(agentId.toString());
    await section.getByTestId("verified-rating").getByText("No verified feedback yet").waitFor();
    await d.shot("e1-03-registered");
    expect(await seriousViolations(page)).toEqual([]);

    // On a new visit the button is gone and the file is said to be current.
    await page.reload();
    await section.getByText(`Registration file up to date: it names agent ${agentId} and says active: true.`).waitFor({ timeout: 30_000 });
    expect(await section.getByRole("button", { name: "Register as an ERC-8004 agent" }).count()).toBe(0);
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 150_000);

  it("after a registered listing is paused, resumed and closed in the creator console, offers the setAgentURI that keeps its file's active current", async () => {
    const { creatorKey, listingId } = await creatorListing("memo-drafter");
    const agentId = await registerAsAgent(creatorKey, listingId);
    const creator = await apiAs(web.stack, creatorKey);
    await until("the listing's agent indexed", async () => (await creator.get<{ erc8004: unknown }>(`/v1/listings/${listingId}`)).erc8004 !== null, 30_000, 250);

    const d = await openDashboard(web.browser, web.stack, creatorKey);
    const { page } = d;
    await page.goto(`${web.stack.info.dashboard_url}creator`);
    await connectAndSignIn(d);
    const row = page.getByRole("article").filter({ has: page.getByRole("heading", { name: "Memo Drafter" }) });
    const erc = row.getByRole("region", { name: "ERC-8004 registration of Memo Drafter" });
    await erc.getByText(`Registration file up to date: it names agent ${agentId} and says active: true.`).waitFor({ timeout: 30_000 });

    const updateAfter = async (action: string, active: boolean, status: string) => {
      await erc.getByText(`The agent's registration file says active: ${String(!active)}, but the listing is ${status}`, { exact: false }).waitFor({ timeout: 30_000 });
      const sent = d.wallet.sent.length;
      await erc.getByRole("button", { name: "Update the registration file" }).click();
      await erc.getByText(`Registration file up to date: it names agent ${agentId} and says active: ${String(active)}.`).waitFor({ timeout: 30_000 });
      expect(d.wallet.sent).toHaveLength(sent + 1);
      expect((await fileOf(agentId)).active).toBe(active);
      await d.shot(`e2-${action}`);
    };

    await row.getByText("Manage").click();
    await row.getByRole("button", { name: "Pause listing" }).click();
    await row.getByRole("button", { name: "Resume listing" }).waitFor({ timeout: 30_000 });
    await updateAfter("01-paused", false, "paused");
    expect(await seriousViolations(page)).toEqual([]);
    await row.getByRole("button", { name: "Resume listing" }).click();
    await row.getByRole("button", { name: "Pause listing" }).waitFor({ timeout: 30_000 });
    await updateAfter("02-resumed", true, "active");
    // Closing (paused first, as the contract asks): the file goes on saying the agent takes no work.
    await row.getByRole("button", { name: "Pause listing" }).click();
    await row.getByRole("button", { name: "Resume listing" }).waitFor({ timeout: 30_000 });
    await row.getByRole("button", { name: "Close listing" }).click();
    await page.getByRole("alertdialog").getByRole("button", { name: "Close for good" }).click();
    await row.getByText("closed", { exact: true }).waitFor({ timeout: 30_000 });
    await updateAfter("03-closed", false, "closed");
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 150_000);

  it("sets the agent's wallet back to the creator's payout address with the wallet's EIP-712 signature and setAgentWallet; a refused signature changes nothing", async () => {
    const { creatorKey, listingId } = await creatorListing("wallet-keeper");
    const agentId = await registerAsAgent(creatorKey, listingId);
    const creator = await apiAs(web.stack, creatorKey);
    const { pub, wallet } = chainAs(web.stack, creatorKey);
    // The owner clears the agent's wallet (as a transfer of the agent would).
    const cleared = await wallet.writeContract({ address: identity(), abi: identityRegistryAbi, functionName: "unsetAgentWallet", args: [agentId] });
    expect((await pub.waitForTransactionReceipt({ hash: cleared })).status).toBe("success");
    const agentWallet = () => pub.readContract({ address: identity(), abi: identityRegistryAbi, functionName: "getAgentWallet", args: [agentId] });
    expect(await agentWallet()).toBe("0x0000000000000000000000000000000000000000");
    await until("the listing's agent indexed", async () => (await creator.get<{ erc8004: unknown }>(`/v1/listings/${listingId}`)).erc8004 !== null, 30_000, 250);

    const d = await openDashboard(web.browser, web.stack, creatorKey);
    const { page } = d;
    await page.goto(`${web.stack.info.dashboard_url}listings/${listingId}`);
    await connectAndSignIn(d);
    const section = page.getByRole("region", { name: "ERC-8004 identity and reputation" });
    const shown = section.getByTestId("agent-wallet");
    await shown.getByText(/The agent has no wallet set \(a transfer of the agent clears it\)/).waitFor({ timeout: 30_000 });
    await d.shot("e5-01-agent-wallet-cleared");
    expect(await seriousViolations(page)).toEqual([]);

    d.wallet.rejectNext("eth_signTypedData_v4");
    await shown.getByRole("button", { name: "Set the agent's wallet to your payout address" }).click();
    await section.getByText(/You rejected the request in your wallet/).waitFor({ timeout: 30_000 });
    expect(d.wallet.sent).toHaveLength(0);
    expect(await agentWallet()).toBe("0x0000000000000000000000000000000000000000");

    await shown.getByRole("button", { name: "Set the agent's wallet to your payout address" }).click();
    await section.getByTestId("agent-wallet").getByText(/, your payout address\.$/).waitFor({ timeout: 30_000 });
    expect(d.wallet.calls.filter((m) => m === "eth_signTypedData_v4")).toHaveLength(2);
    expect(d.wallet.sent).toHaveLength(1);
    const call = decodeFunctionData({ abi: identityRegistryAbi, data: (await pub.getTransaction({ hash: d.wallet.sent[0]! })).input });
    expect(call.functionName).toBe("setAgentWallet");
    expect((await agentWallet()).toLowerCase()).toBe(d.wallet.address.toLowerCase());
    await d.shot("e5-02-agent-wallet-set");
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 150_000);

  it("rates a completed run from the run page: a receipt not yet logged is said and retried, the wallet sends giveFeedback, the hash and then the verified rating show; the listing page shows the identity and reputation", async () => {
    const { listing, renterKey, renter, api } = await contractReviewerRenter();
    const before = await api.get<{ erc8004: { agent_id: string; agent_registry: string }; review_count: number }>(`/v1/listings/${listing.listing_id}`);
    expect(before.erc8004).not.toBeNull();

    const d = await openDashboard(web.browser, web.stack, renterKey);
    const { page } = d;
    await page.goto(`${web.stack.info.dashboard_url}run?agent=${listing.listing_id}`);
    await connectAndSignIn(d);
    // The chain stops mining: the run log's batch waits unmined, so the run's receipt is not logged.
    await renter.pub.request({ method: "evm_setAutomine" as never, params: [false] as never });
    let mining = false;
    try {
      await page.getByLabel("Task").fill("Review this clause");
      await page.getByLabel("Input (JSON)").fill(JSON.stringify({ contract: "The supplier accepts unlimited liability." }));
      await page.getByRole("button", { name: "Run", exact: true }).click();
      await page.getByTestId("run-summary").getByText("completed").waitFor({ timeout: 60_000 });
      const runId = (await page.getByTestId("run-summary").locator("dd.mono").textContent())!.trim();
      const form = page.getByRole("form", { name: "Rate this run" });
      // Bad input: the page says what it takes and sends nothing.
      await form.getByLabel("Score (0 to 100)").fill("101");
      await form.getByText("A number from 0 to 100, with at most 2 decimals.").waitFor();
      expect(await form.getByRole("button", { name: "Rate this run" }).isDisabled()).toBe(true);
      await form.getByLabel("Score (0 to 100)").fill("90");
      await form.getByText("Shown as ★ 4.5 of 5.").waitFor();
      await form.getByLabel("Comment (optional)").fill("Found the liability clause at once.");
      await form.getByRole("button", { name: "Rate this run" }).click();
      const pending = form.getByTestId("receipt-pending");
      await pending.getByText(/not in the on-chain run log yet/).waitFor({ timeout: 30_000 });
      expect(d.wallet.sent).toHaveLength(0);
      await d.shot("e3-01-receipt-pending");
      expect(await seriousViolations(page)).toEqual([]);

      // Mining again: the batch lands and the run has its receipt; trying again sends the feedback.
      await renter.pub.request({ method: "evm_setAutomine" as never, params: [true] as never });
      await renter.pub.request({ method: "evm_mine" as never, params: [] as never });
      mining = true;
      await until("the run's receipt logged", async () => (await api.get<{ receipt: unknown }>(`/v1/runs/${runId}`)).receipt !== null, 60_000, 250);
      await pending.getByRole("button", { name: /^Try again/ }).click();
      const rated = page.getByTestId("run-rated");
      await rated.getByText(/Confirmed: transaction/).waitFor({ timeout: 30_000 });
      expect(d.wallet.sent).toHaveLength(1);
      const tx = await renter.pub.getTransaction({ hash: d.wallet.sent[0]! });
      expect(tx.to?.toLowerCase()).toBe(reputation().toLowerCase());
      const call = decodeFunctionData({ abi: reputationRegistryAbi, data: tx.input });
      expect(call.functionName).toBe("giveFeedback");
      expect(call.args.slice(0, 4)).toEqual([BigInt(before.erc8004.agent_id), 90n, 0, "starred"]);
      // Hash shown as the explorer-less page writes it (shortened), then the verdict once indexed.
      await rated.getByText(d.wallet.sent[0]!.slice(0, 10), { exact: false }).waitFor();
      const result = rated.getByTestId("rating-result");
      await result.waitFor({ timeout: 30_000 });
      const after = await api.get<{ rating: number; review_count: number }>(`/v1/listings/${listing.listing_id}/reputation`);
      expect(after.review_count).toBe(before.review_count + 1);
      expect(await result.textContent()).toBe(`Verified: your rating (★ 4.5) counts. The listing's verified rating is now ★ ${after.rating.toFixed(1)} from ${after.review_count === 1 ? "1 verified review" : `${after.review_count} verified reviews`}.`);
      await d.shot("e3-02-rated");
      expect(await seriousViolations(page)).toEqual([]);

      // The listing's page: its agent, and its reputation with this feedback verified and listed.
      await page.goto(`${web.stack.info.dashboard_url}listings/${listing.listing_id}`);
      const section = page.getByRole("region", { name: "ERC-8004 identity and reputation" });
      await section.getByTestId("erc8004-identity").getByText(before.erc8004.agent_id, { exact: true }).waitFor({ timeout: 30_000 });
      await section.getByTestId("verified-rating").getByText(`★ ${after.rating.toFixed(1)} from ${after.review_count === 1 ? "1 verified review" : `${after.review_count} verified reviews`}`).waitFor();
      await section.getByTestId("unverified-count").getByText("None").waitFor();
      await section.getByTestId("before-on-chain").getByText("No ratings").waitFor();
      const newest = section.getByRole("list", { name: "Newest on-chain feedback" }).getByRole("listitem").first();
      await newest.getByText("Found the liability clause at once.").waitFor();
      await newest.getByText("verified", { exact: true }).waitFor();
      // The listing's one run so far, counted in the singular.
      const { run_count: runCount } = await api.get<{ run_count: number }>(`/v1/listings/${listing.listing_id}`);
      expect(runCount).toBe(1);
      await page.getByTestId("listing-stats").getByText("1 run", { exact: true }).waitFor();
      await d.shot("e3-03-listing-reputation");
      expect(await seriousViolations(page)).toEqual([]);
      // The one refusal the journey provokes on purpose (feedback before the receipt), and no other.
      expect(d.errors).toEqual([refusalLogged(409, `${web.stack.info.api_url}/v1/runs/${runId}/feedback`)]);
    } finally {
      if (!mining) await renter.pub.request({ method: "evm_setAutomine" as never, params: [true] as never }).catch(() => undefined);
    }
    await d.context.close();
  }, 180_000);

  it("rates a run from the rentals' run history long after it ran (a dialog, the wallet's giveFeedback, the verdict); the same run again is refused in words", async () => {
    const { listing, renterKey, renter, api } = await contractReviewerRenter();
    const runs: string[] = [];
    for (const task of ["Review clause 1", "Review clause 2"]) {
      runs.push((await api.post<{ run_id: string; status: string }>("/v1/execute", { agent_id: listing.listing_id, task, input: { contract: "The supplier accepts unlimited liability." } })).run_id);
    }
    await until("both receipts logged", async () => (await Promise.all(runs.map((id) => api.get<{ receipt: unknown }>(`/v1/runs/${id}`)))).every((r) => r.receipt !== null), 60_000, 250);

    const d = await openDashboard(web.browser, web.stack, renterKey);
    const { page } = d;
    await page.goto(`${web.stack.info.dashboard_url}rentals`);
    await connectAndSignIn(d);
    const row = page.getByRole("article").filter({ has: page.getByRole("heading", { name: "Contract Reviewer" }) });
    await row.getByText("Your runs").click();
    const history = row.getByRole("list", { name: "Your runs of Contract Reviewer" });
    await expect.poll(() => history.getByRole("listitem").count(), { timeout: 30_000 }).toBe(2);
    await history.getByText(/receipt in run batch \d+/).first().waitFor();
    await d.shot("e4-01-run-history");
    expect(await seriousViolations(page)).toEqual([]);

    // The older run (listed second: newest first).
    const older = history.getByRole("listitem").nth(1);
    await older.getByRole("button", { name: /^Rate this run of / }).click();
    const dialog = page.getByRole("dialog", { name: "Rate this run of Contract Reviewer" });
    await dialog.getByText(runs[0]!).waitFor();
    await dialog.getByLabel("Score (0 to 100)").fill("70");
    await dialog.getByLabel("Comment (optional)").fill("Good, a little slow.");
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole("button", { name: "Rate this run" }).click();
    await dialog.getByText(/Confirmed: transaction/).waitFor({ timeout: 30_000 });
    await dialog.getByTestId("rating-result").getByText(/^Verified: your rating \(★ 3\.5\) counts\./).waitFor({ timeout: 30_000 });
    expect(d.wallet.sent).toHaveLength(1);
    const call = decodeFunctionData({ abi: reputationRegistryAbi, data: (await renter.pub.getTransaction({ hash: d.wallet.sent[0]! })).input });
    expect(call.args[1]).toBe(70n);
    await d.shot("e4-02-rated-from-history");
    await dialog.getByRole("button", { name: "Close" }).click();

    // The same run again: the API refuses (a run is rated once), the dialog says so, nothing is sent.
    await older.getByRole("button", { name: /^Rate this run of / }).click();
    await dialog.getByLabel("Score (0 to 100)").fill("100");
    await dialog.getByRole("button", { name: "Rate this run" }).click();
    await dialog.getByRole("alert").getByText(/a run is rated once/).waitFor({ timeout: 30_000 });
    expect(d.wallet.sent).toHaveLength(1);
    await d.shot("e4-03-rated-twice");
    expect(d.errors).toEqual([refusalLogged(409, `${web.stack.info.api_url}/v1/runs/${runs[0]}/feedback`)]);
    await d.context.close();
  }, 180_000);
});

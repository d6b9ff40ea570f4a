// Listings priced in tokens in a real browser: the demo's USDC per-task listing shows its price in USDC
// on its card (screenshot at 1280 px) and its page, and is rented with one EIP-3009 signature and one
// transaction (purchaseWithAuthorization): no approval. Checked on the TokenMarketplace and in the
// wallet's USDC balance. Then My rentals: the USDC per-task balance in runs and in USDC, topped up in
// USDC (one signature, one transaction), and a RENT subscription renewed in RENT with one EIP-2612
// permit and one transaction; each checked on the TokenMarketplace and in the wallet's balance. Last, a
// creator registers an agent for the token marketplace and lists it in USDC from the creator console.
import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { createPublicClient, createWalletClient, http, parseEventLogs, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import { chainFor } from "../../src/chain/client.ts";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { localUsdcAbi, purchaseInToken, viemTokenPurchasePort } from "@agent-rental/core/tokens";
import { connectAndSignIn, openDashboard, SCREENSHOTS, webSuite } from "./support.ts";
import { apiAs } from "./seed.ts";
import { pkce, registerClient } from "../support/oauth.ts";

const web = webSuite({ timeoutMs: 420_000 });

describe("token listings in the dashboard", () => {
  it("filters browse by currency: the currencies the service takes, price bounds in the one chosen", async () => {
    const key = DEV_ACCOUNTS[4]!.privateKey as Hex;
    const d = await openDashboard(web.browser, web.stack, key);
    const { page } = d;
    const api = await apiAs(web.stack, key);
    const titlesOf = async (query: string) => (await api.get<{ listings: { title: string }[] }>(`/v1/listings?${query}&limit=12&offset=0`)).listings.map((l) => l.title);
    const titles = () => page.getByTestId("listing-card").getByRole("heading").allTextContents();
    const params = () => Object.fromEntries(new URL(page.url()).searchParams);
    await page.goto(web.stack.info.dashboard_url);
    await connectAndSignIn(d);
    await page.getByTestId("listing-card").first().waitFor();
    await expect.poll(() => page.getByText(/^Agents that deliver finished work\./).textContent()).toBe("Agents that deliver finished work. Pay in ETH, USDC or RENT, run tasks from this page or the API.");
    expect(await page.getByLabel("Currency").locator("option").allTextContents()).toEqual(["Any", "ETH", "USDC", "RENT"]);

    // USDC: its listings only, and the bounds in USDC (0.25 USDC is within 0.2 to 0.3).
    await page.getByLabel("Currency").selectOption("USDC");
    await expect.poll(() => page.locator("fieldset legend").textContent()).toBe("Price (USDC)");
    await page.getByLabel("Min", { exact: true }).fill("0.2");
    await page.getByLabel("Max", { exact: true }).fill("0.3");
    await page.getByLabel("Max", { exact: true }).blur();
    await expect.poll(params).toEqual({ currency: "USDC", min_price: "0.2", max_price: "0.3" });
    const usdcTitles = await titlesOf("currency=USDC&min_price=0.2&max_price=0.3");
    expect(usdcTitles).toContain("Sales Email Writer");
    await expect.poll(titles).toEqual(usdcTitles);
    await d.shot("token-00-browse-usdc");

    // Back to any currency with the same bounds: they are in ETH and keep ETH listings only, as the page says.
    await page.getByLabel("Currency").selectOption("");
    await expect.poll(params).toEqual({ min_price: "0.2", max_price: "0.3" });
    await expect.poll(() => page.locator("fieldset legend").textContent()).toBe("Price (ETH)");
    await page.getByText("Bounds in ETH keep ETH listings only: pick a currency to bound prices in a token.").waitFor();
    await page.getByText("No agent matches this search.").waitFor();
    expect(await titlesOf("min_price=0.2&max_price=0.3")).toEqual([]);
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 120_000);

  it("keeps a key's spending limit in USDC in USDC: created, shown, edited beside an ETH limit, a bad amount refused", async () => {
    const key = DEV_ACCOUNTS[4]!.privateKey as Hex;
    const d = await openDashboard(web.browser, web.stack, key);
    const { page } = d;
    const api = await apiAs(web.stack, key);
    const stored = async (label: string) =>
      ((await api.get<{ keys: { label: string; spend_limits: { currency: string; period: string; amount: string }[] }[] }>("/v1/keys")).keys.find((k) => k.label === label)?.spend_limits ?? []).map(({ currency, period, amount }) => ({ currency, period, amount }));
    await page.goto(`${web.stack.info.dashboard_url.replace(/\/$/, "")}/keys`);
    await connectAndSignIn(d);
    await page.getByRole("button", { name: "New API Key" }).click();
    await page.getByLabel("Label").fill("usdc budget");
    const dialog = page.getByRole("dialog");
    // A field per currency the service takes, each in its own group.
    await expect.poll(async () => (await dialog.getByRole("group").locator("legend").allTextContents()).slice(1)).toEqual(["ETH", "USDC", "RENT"]);
    await dialog.getByRole("group", { name: "USDC", exact: true }).getByLabel("Per day (UTC)").fill("5");
    await dialog.getByRole("button", { name: "Create key" }).click();
    await page.getByTestId("new-api-key").waitFor();
    await page.getByRole("button", { name: "I stored it" }).click();
    const row = page.getByRole("row", { name: /usdc budget/ });
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toMatch(/5 USDC per day · spent 0 USDC · 5 USDC left · resets/);
    expect(await stored("usdc budget")).toEqual([{ currency: "USDC", period: "day", amount: "5000000" }]);

    // Edited: the USDC limit is in the USDC group (not read as ETH); more than six decimals is refused on the page.
    await row.getByRole("button", { name: "Edit limit of usdc budget" }).click();
    const usdcDay = dialog.getByRole("group", { name: "USDC", exact: true }).getByLabel("Per day (UTC)");
    expect(await usdcDay.inputValue()).toBe("5");
    expect(await dialog.getByRole("group", { name: "ETH", exact: true }).getByLabel("Per day (UTC)").inputValue()).toBe("");
    await usdcDay.fill("0.0000001");
    await dialog.getByRole("button", { name: "Save limit" }).click();
    await expect.poll(() => dialog.getByRole("alert").innerText()).toBe("Per day (UTC) in USDC: enter an amount of USDC such as 0.01.");
    expect(await stored("usdc budget")).toEqual([{ currency: "USDC", period: "day", amount: "5000000" }]);
    await usdcDay.fill("7.5");
    await dialog.getByRole("group", { name: "ETH", exact: true }).getByLabel("Per month (UTC)").fill("0.05");
    await d.shot("token-00-key-limits-dialog");
    await dialog.getByRole("button", { name: "Save limit" }).click();
    await dialog.waitFor({ state: "detached" });
    await expect.poll(() => row.innerText(), { timeout: 15_000 }).toMatch(/0\.05 ETH per month · spent 0 ETH · 0\.05 ETH left/);
    expect(await row.innerText()).toMatch(/7\.5 USDC per day · spent 0 USDC · 7\.5 USDC left/);
    expect(await stored("usdc budget")).toEqual(
      expect.arrayContaining([
        { currency: "USDC", period: "day", amount: "7500000" },
        { currency: "ETH", period: "month", amount: "50000000000000000" },
      ]),
    );
    expect(await stored("usdc budget")).toHaveLength(2);
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 120_000);

  it("shows an app's proposed limit in USDC on the consent page in USDC, and keeps it in USDC when approved", async () => {
    const key = DEV_ACCOUNTS[4]!.privateKey as Hex;
    const site = web.stack.info.dashboard_url.replace(/\/$/, "");
    const client = await registerClient(site, { client_name: "USDC budgeted agent", redirect_uris: [`${site}/callback-not-served`] });
    const verifier = pkce();
    const url = new URL(`${site}/oauth/authorize`);
    url.search = new URLSearchParams({ response_type: "code", client_id: client.client_id, redirect_uri: client.redirect_uri, code_challenge: verifier.challenge, code_challenge_method: "S256", state: "usdc", resource: site, scope: "tasks:run", spend_limit: "USDC:5000000:day" }).toString();
    const d = await openDashboard(web.browser, web.stack, key);
    const { page } = d;
    await page.goto(url.href);
    await page.getByLabel("Signed in").or(page.getByRole("button", { name: "Connect wallet" })).first().waitFor();
    if ((await page.getByLabel("Signed in").count()) === 0) await connectAndSignIn(d);
    await page.getByRole("heading", { name: /wants to use your account/ }).waitFor();
    await expect.poll(() => page.getByTestId("consent-proposed-limit").innerText()).toMatch(/proposes a limit of 5 USDC per day/);
    const limits = page.getByTestId("consent-spend-limit");
    await expect.poll(() => limits.getByRole("group", { name: "USDC", exact: true }).getByLabel("Per day (UTC)").inputValue()).toBe("5");
    expect(await limits.getByRole("group", { name: "ETH", exact: true }).getByLabel("Per day (UTC)").inputValue()).toBe("");
    await limits.getByRole("group", { name: "USDC", exact: true }).getByLabel("Per day (UTC)").fill("2.5");
    const decided = page.waitForResponse((res) => /\/v1\/oauth\/requests\/[^/]+\/approve$/.test(res.url()) && res.request().method() === "POST");
    await page.getByRole("button", { name: "Approve", exact: true }).click();
    expect((await decided).status()).toBe(200);
    await page.waitForURL(/\/callback-not-served\?code=/);
    const api = await apiAs(web.stack, key);
    const apps = await api.get<{ apps: { name: string | null; spend_limits: { currency: string; period: string; amount: string }[] }[] }>("/v1/oauth/apps");
    const app = Object.values(apps)[0]!.find((a) => a.name === "USDC budgeted agent")!;
    expect(app.spend_limits.map(({ currency, period, amount }) => ({ currency, period, amount }))).toEqual([{ currency: "USDC", period: "day", amount: "2500000" }]);
    await d.context.close();
  }, 120_000);

  it("shows the USDC listing's price in USDC and rents it with one signature and one transaction", async () => {
    // The second demo renter: it holds both tokens and rents nothing at start.
    const d = await openDashboard(web.browser, web.stack, DEV_ACCOUNTS[5]!.privateKey as Hex);
    const { page } = d;
    const listing = (web.stack.info.demo.listings as { listing_id: string; name: string }[]).find((l) => l.name === "sales-email-writer")!;
    const usdc = web.stack.info.contracts.tokens.usdc.address as Hex;
    const market = web.stack.info.contracts.token_marketplace as Hex;
    const chain = createPublicClient({ chain: chainFor(web.stack.info.chain_id, web.stack.info.rpc_url), transport: http(web.stack.info.rpc_url) });

    await page.goto(web.stack.info.dashboard_url);
    await connectAndSignIn(d);
    const card = page.getByTestId("listing-card").filter({ hasText: "Sales Email Writer" });
    await expect.poll(() => card.locator(".price").textContent()).toMatch(/^0\.25 USDC/);
    await card.screenshot({ path: join(SCREENSHOTS, "token-01-usdc-card.png") });

    await card.getByRole("link", { name: "Sales Email Writer" }).click();
    await page.waitForURL(`**/listings/${listing.listing_id}`);
    await expect.poll(() => page.locator("aside .price").first().textContent()).toBe("0.25 USDC");
    await expect.poll(() => page.getByTestId("exact-cost").textContent()).toBe("0.75 USDC");
    await expect.poll(() => page.getByTestId("payment-path").textContent()).toMatch(/^One signature \(EIP-3009\) and one transaction/);
    const before = await chain.readContract({ address: usdc, abi: localUsdcAbi, functionName: "balanceOf", args: [d.wallet.address] });
    const sentBefore = d.wallet.sent.length;
    await page.getByRole("button", { name: "Rent for 0.75 USDC" }).click();
    // Once the API reports the credential, the listing page shows it in place of the purchase panel.
    await page.getByText("✓ Credential active").waitFor({ timeout: 60_000 });
    await d.shot("token-02-usdc-rented");

    expect(d.wallet.sent.length - sentBefore).toBe(1);
    expect(d.wallet.calls.filter((m) => m === "eth_signTypedData_v4")).toHaveLength(1);
    const receipt = await chain.getTransactionReceipt({ hash: d.wallet.sent.at(-1)! });
    expect(receipt.to?.toLowerCase()).toBe(market.toLowerCase());
    expect(await chain.readContract({ address: market, abi: tokenMarketplaceAbi, functionName: "credentialStatus", args: [`0x${listing.listing_id.slice(4)}` as Hex, d.wallet.address] })).toBe(1);
    expect(before - (await chain.readContract({ address: usdc, abi: localUsdcAbi, functionName: "balanceOf", args: [d.wallet.address] }))).toBe(750_000n);
  }, 240_000);

  it("tops up the USDC balance and renews the RENT subscription from My rentals, amounts in the token", async () => {
    const d = await openDashboard(web.browser, web.stack, DEV_ACCOUNTS[5]!.privateKey as Hex);
    const { page } = d;
    const listings = web.stack.info.demo.listings as { listing_id: string; name: string }[];
    const usdcListing = listings.find((l) => l.name === "sales-email-writer")!;
    const rentListing = listings.find((l) => l.name === "blog-post-outliner")!;
    const rent = web.stack.info.contracts.tokens.utility!.address as Hex;
    const usdc = web.stack.info.contracts.tokens.usdc.address as Hex;
    const market = web.stack.info.contracts.token_marketplace as Hex;
    const chainInfo = chainFor(web.stack.info.chain_id, web.stack.info.rpc_url);
    const chain = createPublicClient({ chain: chainInfo, transport: http(web.stack.info.rpc_url) });
    const idOf = (listingId: string) => `0x${listingId.slice(4)}` as Hex;
    // The RENT subscription, bought beforehand with the same wallet's key (the purchase itself is the listing page's, tested above).
    const wallet = createWalletClient({ account: privateKeyToAccount(DEV_ACCOUNTS[5]!.privateKey as Hex), chain: chainInfo, transport: http(web.stack.info.rpc_url) });
    await purchaseInToken(viemTokenPurchasePort(wallet as never, chain as never), { tokenMarketplace: market, listingId: idOf(rentListing.listing_id), kind: "subscription", arg: 30n * 86_400n });
    const expiresAt = async () => (await chain.readContract({ address: market, abi: tokenMarketplaceAbi, functionName: "credentialOf", args: [idOf(rentListing.listing_id), d.wallet.address] }))[3];
    const expiryBefore = await expiresAt();

    await page.goto(web.stack.info.dashboard_url);
    await connectAndSignIn(d);
    await page.goto(`${web.stack.info.dashboard_url.replace(/\/$/, "")}/rentals`);
    const usdcRow = page.locator("article").filter({ has: page.getByRole("heading", { name: "Sales Email Writer" }) });
    const rentRow = page.locator("article").filter({ has: page.getByRole("heading", { name: "Blog Post Outliner" }) });
    // The three runs bought on the listing page, in runs and in USDC.
    await expect.poll(() => usdcRow.getByTestId("runs-left").textContent(), { timeout: 30_000 }).toBe("3 runs left (0.75 USDC)");
    await rentRow.waitFor();
    await d.shot("token-03-rentals");

    // Top up in USDC: five runs, 1.25 USDC, one signature and one transaction.
    await usdcRow.getByRole("button", { name: "Top up" }).click();
    const topUp = page.getByRole("dialog");
    await expect.poll(() => topUp.getByTestId("exact-cost").textContent()).toBe("1.25 USDC");
    await expect.poll(() => topUp.getByTestId("payment-path").textContent()).toMatch(/^One signature \(EIP-3009\) and one transaction/);
    await topUp.screenshot({ path: join(SCREENSHOTS, "token-04-top-up-dialog.png") });
    let sent = d.wallet.sent.length;
    let signed = d.wallet.calls.filter((m) => m === "eth_signTypedData_v4").length;
    const usdcBefore = await chain.readContract({ address: usdc, abi: localUsdcAbi, functionName: "balanceOf", args: [d.wallet.address] });
    await topUp.getByRole("button", { name: "Top up for 1.25 USDC" }).click();
    await topUp.getByText("✓ Balance updated").waitFor({ timeout: 60_000 });
    expect(d.wallet.sent.length - sent).toBe(1);
    expect(d.wallet.calls.filter((m) => m === "eth_signTypedData_v4").length - signed).toBe(1);
    expect(usdcBefore - (await chain.readContract({ address: usdc, abi: localUsdcAbi, functionName: "balanceOf", args: [d.wallet.address] }))).toBe(1_250_000n);
    expect((await chain.readContract({ address: market, abi: tokenMarketplaceAbi, functionName: "perQueryBalances", args: [idOf(usdcListing.listing_id), d.wallet.address] }))[0]).toBe(2_000_000n);
    await topUp.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => usdcRow.getByTestId("runs-left").textContent(), { timeout: 30_000 }).toBe("8 runs left (2 USDC)");

    // Renew in RENT: 30 days, 20 RENT, one permit and one transaction; the expiry moves 30 days on.
    await rentRow.getByRole("button", { name: "Renew" }).click();
    const renew = page.getByRole("dialog");
    await expect.poll(() => renew.getByTestId("exact-cost").textContent()).toBe("20 RENT");
    await expect.poll(() => renew.getByTestId("payment-path").textContent()).toMatch(/^One signature \(EIP-2612 permit\) and one transaction/);
    await renew.screenshot({ path: join(SCREENSHOTS, "token-05-renew-dialog.png") });
    sent = d.wallet.sent.length;
    signed = d.wallet.calls.filter((m) => m === "eth_signTypedData_v4").length;
    const rentBefore = await chain.readContract({ address: rent, abi: localUsdcAbi, functionName: "balanceOf", args: [d.wallet.address] });
    await renew.getByRole("button", { name: "Renew for 20 RENT" }).click();
    await renew.getByText("✓ Credential active").waitFor({ timeout: 60_000 });
    expect(d.wallet.sent.length - sent).toBe(1);
    expect(d.wallet.calls.filter((m) => m === "eth_signTypedData_v4").length - signed).toBe(1);
    expect(rentBefore - (await chain.readContract({ address: rent, abi: localUsdcAbi, functionName: "balanceOf", args: [d.wallet.address] }))).toBe(20n * 10n ** 18n);
    expect((await expiresAt()) - expiryBefore).toBe(30 * 86_400);
    await d.shot("token-06-renewed");
  }, 240_000);

  it("runs a task on the USDC listing from the playground: its input form, the cost in USDC, the run listed in USDC", async () => {
    // The renter of the tests above: it holds a USDC per-task balance.
    const d = await openDashboard(web.browser, web.stack, DEV_ACCOUNTS[5]!.privateKey as Hex);
    const { page } = d;
    const listing = (web.stack.info.demo.listings as { listing_id: string; name: string }[]).find((l) => l.name === "sales-email-writer")!;
    await page.goto(`${web.stack.info.dashboard_url.replace(/\/$/, "")}/run?agent=${listing.listing_id}`);
    await connectAndSignIn(d);
    await page.getByLabel("Task").fill("Write a cold email");
    // The form from the agent's input schema, read from the TokenMarketplace's listing: {prospect: string}.
    await page.getByLabel("prospect").fill("Dana Reyes, Head of Finance at Acme Logistics");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const summary = page.getByTestId("run-summary");
    await expect.poll(() => summary.textContent(), { timeout: 30_000 }).toMatch(/completed/);
    expect(await summary.textContent()).toContain("Cost0.25 USDC");
    await d.shot("token-02b-usdc-run");

    await page.getByRole("link", { name: "My rentals", exact: true }).click();
    const row = page.getByRole("article").filter({ hasText: "Sales Email Writer" });
    await row.getByText("Your runs").click();
    await expect.poll(() => row.textContent(), { timeout: 30_000 }).toMatch(/0\.25 USDC/);
    expect(await row.textContent()).not.toMatch(/\bETH\b/);
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 120_000);

  it("a creator lists an agent in USDC from the creator console, on the TokenMarketplace", async () => {
    const creator = web.stack.info.accounts.filter((a) => a.role === "creator")[0]!;
    const d = await openDashboard(web.browser, web.stack, creator.private_key as Hex);
    const { page } = d;
    const usdc = web.stack.info.contracts.tokens.usdc.address as Hex;
    const market = web.stack.info.contracts.token_marketplace as Hex;
    const chain = createPublicClient({ chain: chainFor(web.stack.info.chain_id, web.stack.info.rpc_url), transport: http(web.stack.info.rpc_url) });
    const manifest = { name: "usdc-slogan-writer", category: "content", description: "Writes five slogans for a product from its one-line pitch.", model: { provider: "provider_a", model: "demo-model" }, system_prompt: "Write five slogans.", input_schema: { type: "object", properties: { pitch: { type: "string" } }, required: ["pitch"] }, output_schema: { type: "string", examples: ["Invoices, handled."] } };

    await page.goto(`${web.stack.info.dashboard_url.replace(/\/$/, "")}/creator`);
    await connectAndSignIn(d);
    await page.getByLabel("Manifest (JSON)").fill(JSON.stringify(manifest, null, 2));
    await page.getByText("The manifest is valid.").waitFor();
    // The allowlist's tokens are offered by symbol (GET /v1/currencies); another token goes by address.
    const currencySelect = page.getByLabel("Listing currency");
    await expect.poll(() => currencySelect.locator("option").allTextContents()).toEqual(["ETH", "USDC (USD Coin)", "RENT (Rental Credit)", "Another token of the allowlist, by address"]);
    await currencySelect.selectOption({ label: "Another token of the allowlist, by address" });
    await page.getByLabel("Token address").fill("0x1234");
    await expect.poll(() => page.getByRole("button", { name: "Submit for registration" }).isDisabled()).toBe(true);
    await currencySelect.selectOption({ label: "USDC (USD Coin)" });
    expect(await page.getByLabel("Token address").count()).toBe(0);
    await page.getByRole("button", { name: "Submit for registration" }).click();
    await page.getByText(/Registered as .* for the token marketplace/).waitFor({ timeout: 30_000 });
    await page.getByLabel("Rental model").last().selectOption("per_query");
    // The new listing's price field (My listings below has a "Price (USDC)" field per USDC listing too).
    await page.locator("#new-token-price").fill("0.4");
    await d.shot("token-07-creator-lists-in-usdc");
    await page.getByRole("button", { name: "Create listing" }).click();
    await page.getByText(/Confirmed: transaction/).waitFor({ timeout: 30_000 });
    await d.shot("token-08-creator-listed");

    const receipt = await chain.getTransactionReceipt({ hash: d.wallet.sent.at(-1)! });
    expect(receipt.to?.toLowerCase()).toBe(market.toLowerCase());
    const created = parseEventLogs({ abi: tokenMarketplaceAbi, logs: receipt.logs, eventName: "TokenListingCreated" });
    expect(created).toHaveLength(1);
    const listing = await chain.readContract({ address: market, abi: tokenMarketplaceAbi, functionName: "listings", args: [created[0]!.args.listingId] });
    expect({ price: listing[0], accessType: listing[2], token: listing[6].toLowerCase(), creator: listing[4].toLowerCase() }).toEqual({ price: 400_000n, accessType: 2, token: usdc.toLowerCase(), creator: creator.address.toLowerCase() });
    expect(d.errors, d.errors.join("\n")).toEqual([]);

    // The authority reviews it from the TokenMarketplace's listing: its creator, model and price in USDC,
    // its samples; approved, it is in search at its USDC price.
    const authority = web.stack.info.accounts.find((a) => a.role === "authority")!;
    const r = await openDashboard(web.browser, web.stack, authority.private_key as Hex);
    await r.page.goto(`${web.stack.info.dashboard_url.replace(/\/$/, "")}/review`);
    await connectAndSignIn(r);
    const pending = r.page.getByRole("article", { name: "Usdc Slogan Writer" });
    await pending.getByTestId("review-creator-name").waitFor({ timeout: 15_000 });
    expect(await pending.textContent()).toMatch(/Per-Task at 0\.4 USDC/);
    await pending.getByTestId("review-samples").getByText("Invoices, handled.").waitFor();
    await r.shot("token-09-review-usdc-listing");
    await pending.getByRole("button", { name: "Approve" }).click();
    await pending.waitFor({ state: "detached" });
    await page.goto(`${web.stack.info.dashboard_url.replace(/\/$/, "")}/?q=slogan`);
    const card = page.getByTestId("listing-card").filter({ hasText: "Usdc Slogan Writer" });
    await card.waitFor({ timeout: 15_000 });
    expect(await card.locator(".price").textContent()).toMatch(/^0\.4 USDC/);
    expect(r.errors, r.errors.join("\n")).toEqual([]);
    await r.context.close();
  }, 240_000);
});

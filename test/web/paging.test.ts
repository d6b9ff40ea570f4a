// Long lists in a real browser against the real local stack: browse's filters, sort and pages live in
// the URL and a shared link restores them; a listing's ratings page past the first five; My rentals and
// the playground reach every credential of a wallet that holds more than the API's page of 100.
import { describe, expect, it } from "vitest";
import { encodePacked, keccak256, parseEther, toHex, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import { connectAndSignIn, openDashboard, webSuite } from "./support.ts";
import { apiAs, chainAs, fundedWallet, manifestOf, onChainId, registeredListing } from "./seed.ts";

/** Per-task research listings published for these journeys (Brief Writer A to M). With the demo's own
 * (Market Researcher, 0.002 ETH), 13 of them cost 0.0012 ETH or more: two pages of 12. */
const RESEARCH_PRICES = ["0.0011", "0.0012", "0.0013", "0.0014", "0.0015", "0.0016", "0.0017", "0.0018", "0.0019", "0.0021", "0.0022", "0.0023", "0.0024"];
/** A demo creator: already approved, so it registers agents straight away. */
const CREATOR_KEY = DEV_ACCOUNTS[2]!.privateKey as Hex;
let rated: string;

const web = webSuite({
  timeoutMs: 300_000,
  seed: async (stack) => {
    for (const [i, price] of RESEARCH_PRICES.entries()) {
      const id = await registeredListing(stack, CREATOR_KEY, manifestOf(`brief-writer-${String.fromCharCode(97 + i)}`), { model: "per_query", priceEth: price, approve: true });
      if (i === 0) rated = id;
    }
  },
});

interface Search {
  listings: { id: string; title: string }[];
  total: number;
}

describe("long lists", () => {
  it("keeps browse's filters, sort and page in the URL, and a shared link opens the same search", async () => {
    const d = await openDashboard(web.browser, web.stack, DEV_ACCOUNTS[4]!.privateKey as Hex);
    const { page } = d;
    await page.goto(web.stack.info.dashboard_url);
    await connectAndSignIn(d);
    await page.getByTestId("listing-card").first().waitFor();

    await page.getByLabel("Category").selectOption("research");
    await page.getByLabel("Rental model").selectOption("per_query");
    await page.getByLabel("Sort by").selectOption("price_asc");
    await page.getByLabel("Min", { exact: true }).fill("0.0012");
    await page.getByLabel("Max", { exact: true }).fill("0.01");
    await page.getByLabel("Max", { exact: true }).blur();
    const params = () => Object.fromEntries(new URL(page.url()).searchParams);
    await expect.poll(params).toEqual({ category: "research", rental_model: "per_query", sort: "price_asc", min_price: "0.0012", max_price: "0.01" });
    await page.getByText("Page 1 of 2").waitFor();
    await page.getByRole("navigation", { name: "Pages" }).getByRole("button", { name: "Next" }).click();
    await expect.poll(params).toEqual({ category: "research", rental_model: "per_query", sort: "price_asc", min_price: "0.0012", max_price: "0.01", page: "2" });
    await page.getByText("Page 2 of 2").waitFor();

    // The page shows what the API answers for the same search, page 2 of 12 per page.
    const api = await apiAs(web.stack, DEV_ACCOUNTS[4]!.privateKey as Hex);
    const expected = await api.get<Search>("/v1/listings?category=research&rental_model=per_query&sort=price_asc&min_price=0.0012&max_price=0.01&limit=12&offset=12");
    expect(expected.total).toBe(13);
    const titles = () => page.getByTestId("listing-card").getByRole("heading").allTextContents();
    await expect.poll(titles).toEqual(expected.listings.map((l) => l.title));
    await d.shot("p1-01-page-two");

    // The link, opened by someone else: the same filters in the controls, the same page of results.
    const shared = page.url();
    const other = await openDashboard(web.browser, web.stack, DEV_ACCOUNTS[5]!.privateKey as Hex);
    await other.page.goto(shared);
    await connectAndSignIn(other);
    await other.page.getByText("Page 2 of 2").waitFor();
    expect(await other.page.getByLabel("Category").inputValue()).toBe("research");
    expect(await other.page.getByLabel("Rental model").inputValue()).toBe("per_query");
    expect(await other.page.getByLabel("Sort by").inputValue()).toBe("price_asc");
    expect(await other.page.getByLabel("Min", { exact: true }).inputValue()).toBe("0.0012");
    expect(await other.page.getByLabel("Max", { exact: true }).inputValue()).toBe("0.01");
    expect(await other.page.getByTestId("listing-card").getByRole("heading").allTextContents()).toEqual(expected.listings.map((l) => l.title));
    await other.shot("p1-02-shared-link");

    // Back in the first tab: the previous page comes back with the browser's Back.
    await page.goBack();
    await page.getByText("Page 1 of 2").waitFor();
    const first = await api.get<Search>("/v1/listings?category=research&rental_model=per_query&sort=price_asc&min_price=0.0012&max_price=0.01&limit=12&offset=0");
    await expect.poll(titles).toEqual(first.listings.map((l) => l.title));

    // A minimum rating no listing reaches: the empty state, and the filter in the URL.
    await page.getByLabel("Minimum rating").selectOption("4");
    await expect.poll(() => params().min_rating).toBe("4");
    await page.getByText("No agent matches this search.").waitFor();
    await d.shot("p1-03-no-match");
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    expect(other.errors, other.errors.join("\n")).toEqual([]);
    await Promise.all([d.context.close(), other.context.close()]);
  }, 120_000);

  it("keeps both of two filters chosen before the page re-renders", async () => {
    const d = await openDashboard(web.browser, web.stack, DEV_ACCOUNTS[4]!.privateKey as Hex);
    const { page } = d;
    await page.goto(web.stack.info.dashboard_url);
    await connectAndSignIn(d);
    await page.getByTestId("listing-card").first().waitFor();
    // Both choices in one task, as a quick hand on a busy machine makes them: React renders once, after
    // both change handlers ran.
    await page.evaluate(() => {
      type Select = { value: string; dispatchEvent(event: unknown): boolean };
      const w = globalThis as unknown as { document: { getElementById(id: string): Select }; Event: new (type: string, init: { bubbles: boolean }) => unknown };
      for (const [id, value] of [["category", "research"], ["rental_model", "per_query"]] as const) {
        const select = w.document.getElementById(id);
        select.value = value;
        select.dispatchEvent(new w.Event("change", { bubbles: true }));
      }
    });
    await expect.poll(() => Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ category: "research", rental_model: "per_query" });
    await expect.poll(() => page.getByLabel("Category").inputValue()).toBe("research");
    await expect.poll(() => page.getByLabel("Rental model").inputValue()).toBe("per_query");
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 60_000);

  it("shows a listing's ratings five at a time, and says No ratings yet where there are none", async () => {
    // Six renters each complete a run and rate the listing.
    const comments: string[] = [];
    for (let i = 0; i < 6; i++) {
      const key = await fundedWallet(web.stack);
      await chainAs(web.stack, key).write("purchasePerQuery", [onChainId(rated)], parseEther("0.0011"));
      const renter = await apiAs(web.stack, key);
      await expect.poll(async () => (await renter.get<{ valid: boolean }>(`/v1/credentials/${rated}`)).valid, { timeout: 30_000, interval: 500 }).toBe(true);
      const run = await renter.post<{ status: string }>("/v1/execute", { agent_id: rated, task: "A brief on tidal power", input: { topic: "tidal power" } });
      expect(run.status).toBe("completed");
      comments.push(`Renter ${i + 1}: useful brief.`);
      await renter.put(`/v1/listings/${rated}/rating`, { rating: 1 + (i % 5), comment: comments[i] });
    }

    const d = await openDashboard(web.browser, web.stack, DEV_ACCOUNTS[4]!.privateKey as Hex);
    const { page } = d;
    await page.goto(`${web.stack.info.dashboard_url}listings/${rated}`);
    await connectAndSignIn(d);
    const list = page.getByTestId("ratings").getByRole("listitem");
    await expect.poll(() => list.count(), { timeout: 15_000 }).toBe(5);
    // The six are off-chain ratings: shown apart as before on-chain feedback, not as the listing's
    // verified rating (which no on-chain feedback has moved).
    await expect.poll(() => page.getByTestId("before-on-chain").textContent(), { timeout: 15_000 }).toMatch(/from 6 ratings/);
    expect(await page.getByTestId("verified-rating").textContent()).toBe("No verified feedback yet");
    await page.getByRole("button", { name: "Show more ratings" }).click();
    await expect.poll(() => list.count()).toBe(6);
    expect(await page.getByRole("button", { name: "Show more ratings" }).count()).toBe(0);
    // Newest first: the last rating written leads, the first closes the list.
    const texts = await list.allTextContents();
    expect(texts[0]).toContain(comments[5]);
    expect(texts[5]).toContain(comments[0]);
    await d.shot("p2-01-ratings-paged");

    // A listing nobody rated: "No ratings yet", on its card and on its page.
    const unrated = (await (await apiAs(web.stack, DEV_ACCOUNTS[4]!.privateKey as Hex)).get<Search>("/v1/listings?category=research&sort=price_asc&limit=100")).listings.find((l) => l.title === "Brief Writer B")!;
    await page.goto(`${web.stack.info.dashboard_url}?category=research&sort=price_asc`);
    const card = page.getByTestId("listing-card").filter({ hasText: "Brief Writer B" });
    await card.getByText("No ratings yet").waitFor();
    await page.goto(`${web.stack.info.dashboard_url}listings/${unrated.id}`);
    await page.getByRole("heading", { name: "Brief Writer B", level: 1 }).waitFor();
    await page.getByText("No ratings yet").first().waitFor();
    expect(await page.getByText("★ 0.0").count()).toBe(0);
    await d.shot("p2-02-no-ratings");
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 180_000);

  it("pages My rentals and the playground's agents past the API's 100 credentials", async () => {
    // 101 listings on-chain (the contract is permissionless) and a renter who rents every one.
    const creator = chainAs(web.stack, DEV_ACCOUNTS[3]!.privateKey as Hex);
    const renterKey = await fundedWallet(web.stack, "5");
    const renter = chainAs(web.stack, renterKey);
    const creatorAddress = privateKeyToAccount(DEV_ACCOUNTS[3]!.privateKey as Hex).address;
    const price = parseEther("0.00001");
    const ids: Hex[] = [];
    for (let i = 0; i < 101; i++) {
      const seed = keccak256(toHex(`paging-${i}`));
      await creator.write("createListing", [seed, 0, price, `ipfs://paging-${i}`]);
      // The spec's listing id: keccak256 of the creator and the seed, packed.
      ids.push(keccak256(encodePacked(["address", "bytes32"], [creatorAddress, seed])));
    }
    for (const id of ids) await renter.write("purchaseOneTime", [id], price);
    const api = await apiAs(web.stack, renterKey);
    // Once a second: the renter's 100 requests a minute are the dashboard's too, below (a 429 would be an
    // error in the browser's console).
    await expect.poll(async () => (await api.get<{ total: number }>("/v1/credentials?limit=1")).total, { timeout: 60_000, interval: 1_000 }).toBe(101);

    const d = await openDashboard(web.browser, web.stack, renterKey);
    const { page } = d;
    await page.goto(`${web.stack.info.dashboard_url}rentals`);
    await connectAndSignIn(d);
    const count = page.getByTestId("rentals-count");
    await count.getByText("Showing 50 of 101 rentals").waitFor({ timeout: 30_000 });
    expect(await page.getByRole("article").count()).toBe(50);
    await page.getByRole("button", { name: "Show more rentals" }).click();
    await count.getByText("Showing 100 of 101 rentals").waitFor();
    await page.getByRole("button", { name: "Show more rentals" }).click();
    // Exactly: "Showing 100 of 101 rentals" also holds the words "101 rentals".
    await count.getByText("101 rentals", { exact: true }).waitFor();
    expect(await page.getByRole("article").count()).toBe(101);
    expect(await page.getByRole("button", { name: "Show more rentals" }).count()).toBe(0);
    await d.shot("p3-01-rentals-all");

    // The playground offers every active rental, the 101st included.
    await page.goto(`${web.stack.info.dashboard_url}run`);
    const options = page.getByLabel("Agent").locator("option");
    await expect.poll(() => options.count(), { timeout: 30_000 }).toBe(101);
    const oldest = `lst_${ids[0]!.slice(2)}`;
    expect(await options.evaluateAll((all) => all.map((o) => (o as unknown as { value: string }).value))).toContain(oldest);
    expect(d.errors, d.errors.join("\n")).toEqual([]);
    await d.context.close();
  }, 240_000);
});

// The dashboard waits out a 429 by its Retry-After (as the SDK's retryOn429 does) instead of leaving an
// error box: in real Chromium against the server `npm start` runs (`listenSite` on the test world), the
// listing page's Input and output card reads a public route (the agent's metadata), whose limit counts
// per address. With this address's budget spent by the test, the page says it is waiting and when it
// asks again, shows no refusal, and fills the card once the window has passed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import type { PublishedAgent, World } from "../support/world.ts";
import type { Account } from "../support/chain-actions.ts";
import { type WorldSite, connectAndSignIn, openDashboard, startWorldSite } from "./support.ts";


let world: World;
let site: WorldSite;
let siteUrl: string;
let browser: Browser;
let renter: Account;
let agent: PublishedAgent;
let other: PublishedAgent;

beforeAll(async () => {
  site = await startWorldSite();
  ({ world, siteUrl, browser } = site);
  agent = await world.publishConnected("patient-researcher", { rental: "one_time" });
  other = await world.publishConnected("patient-summarizer", { rental: "one_time" });
  renter = await world.account();
  await world.rent(renter, agent);
}, 240_000);

afterAll(async () => {
  await site?.close();
});

describe("a 429 on the dashboard", () => {
  it("is waited out by its Retry-After: the page says it is waiting, shows no error, and fills the card once allowed", async () => {
    const d = await openDashboard(browser, site.stack, renter.privateKey);
    const page = d.page;
    await page.goto(`${siteUrl}/listings/${agent.listing_id}`);
    await connectAndSignIn(d);
    const card = page.locator("section", { has: page.getByRole("heading", { name: "Input and output" }) });
    await card.getByRole("heading", { name: "Input schema" }).waitFor();
    const metadataPath = `/v1/metadata/${agent.metadata_uri.replace("ipfs://", "")}`;

    // This address's budget for public reads, spent (a real limit of the service, counted per address).
    let refused: Response | undefined;
    for (let i = 0; i < 200 && !refused; i++) {
      const res = await fetch(`${siteUrl}${metadataPath}`);
      if (res.status === 429) refused = res;
      else await res.arrayBuffer();
    }
    expect(refused?.status).toBe(429);
    const retryAfter = Number(refused!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);

    // Another agent's page (the tab stays signed in; its metadata is not in the browser's cache yet):
    // the card's read is refused, and the page waits it out.
    await page.goto(`${siteUrl}/listings/${other.listing_id}`);
    const banner = page.getByTestId("rate-limit-wait");
    await banner.waitFor();
    expect(await banner.innerText()).toMatch(/slow down: trying again (in \d+ s|now)/);
    expect(await card.getByRole("alert").count()).toBe(0);
    expect(await card.innerText()).not.toMatch(/Rate limit|Retry after/i);
    // Once the window has passed, the read succeeds: the card is filled and the banner gone.
    await card.getByRole("heading", { name: "Input schema" }).waitFor({ timeout: (retryAfter + 60) * 1000 });
    await banner.waitFor({ state: "detached" });
    expect(await card.innerText()).not.toMatch(/Rate limit|Retry after/i);
    await d.context.close();
  }, 240_000);
});

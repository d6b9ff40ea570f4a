// The dashboard in headless Chromium against the local stack, beside the same API calls made from Node
// in the same run (the ratio is what to read: absolute times on these machines are noisy).
//  - first listing: navigation start → the first listing card on screen (a cold page: new browser
//    context, empty cache; signed in beforehand), against GET /v1/listings from Node;
//  - first token: the click on "Run" → the first streamed output on screen, against POST
//    /v1/execute/stream from Node → its first `output` event.
// The demo renter's subscription to the demo earnings summarizer is used for the runs (its output is
// text, streamed token by token).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { privateKeyToAccount } from "viem/accounts";
import type { Hex } from "viem";
import { startStack } from "../local/stack.ts";
import { freePort } from "../local/ports.ts";
import { DEV_ACCOUNTS } from "../local/chain.ts";

const TRANSCRIPT = "Revenue grew 12% year on year; guidance raised; gross margin 61%, down one point; FX headwinds.";
const ROUNDS = Number(process.env.DASHBOARD_BENCH_ROUNDS ?? 8);
const FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** Records when the first listing card, and after a click on Run the first output, appear. */
const PROBES = `
new MutationObserver(() => {
  if (window.__firstListing === undefined && document.querySelector('[data-testid="listing-card"]')) window.__firstListing = performance.now();
  const out = document.querySelector('[data-testid="run-output"]');
  if (window.__runClicked !== undefined && window.__firstToken === undefined && out && out.textContent) window.__firstToken = performance.now();
}).observe(document, { childList: true, subtree: true, characterData: true });`;
/** The output area shows a placeholder until the run starts: timing starts at the click itself. */
const ARM_RUN_PROBE = `
const button = [...document.querySelectorAll("button")].find((b) => b.textContent === "Run");
button.addEventListener("click", () => { window.__firstToken = undefined; window.__runClicked = performance.now(); }, { capture: true });`;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
}

async function signIn(apiUrl: string, privateKey: Hex): Promise<{ token: string; expires_at: number; wallet: string }> {
  const account = privateKeyToAccount(privateKey);
  const challenge = (await (await fetch(`${apiUrl}/v1/auth/challenge?wallet=${account.address}`)).json()) as { challenge: string };
  const signature = await account.signMessage({ message: challenge.challenge });
  const res = await fetch(`${apiUrl}/v1/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ wallet: account.address, challenge: challenge.challenge, signature }) });
  return { ...((await res.json()) as { token: string; expires_at: number }), wallet: account.address };
}

/** Each run starts after the same pause, so both sides find the sandbox pool refilled after the run
 * before (a run takes a pre-started sandbox; the pool starts another in the background). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 1500));

async function nodeFirstToken(apiUrl: string, token: string, agentId: string): Promise<number> {
  await settle();
  const began = performance.now();
  const res = await fetch(`${apiUrl}/v1/execute/stream`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ agent_id: agentId, task: "Summarize this call", input: { transcript: TRANSCRIPT } }),
  });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  let first = Number.NaN;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
    if (Number.isNaN(first) && /event: ?output/.test(text)) first = performance.now() - began;
  }
  return first;
}

export async function runDashboardBench(): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "dashboard-bench-"));
  const stack = await startStack({ dataDir, apiPort: await freePort(), chainPort: await freePort(), dynamoPort: await freePort(), awsPort: await freePort(), logLevel: "silent" });
  const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: FLAGS });
  try {
    const renter = DEV_ACCOUNTS[4]!.privateKey as Hex;
    const session = await signIn(stack.info.api_url, renter);
    const stored = JSON.stringify({ wallet: session.wallet, token: session.token, expiresAt: session.expires_at });
    const agent = (stack.info.demo.listings as { listing_id: string; rental_model: string }[]).find((l) => l.rental_model === "subscription")!.listing_id;

    const browserListing: number[] = [];
    const nodeListing: number[] = [];
    const browserToken: number[] = [];
    const nodeToken: number[] = [];
    const fromNode = async () => {
      // The browse page's API call, and a streamed run, made directly.
      const began = performance.now();
      await (await fetch(`${stack.info.api_url}/v1/listings?limit=12&offset=0`, { headers: { authorization: `Bearer ${session.token}` } })).json();
      nodeListing.push(performance.now() - began);
      nodeToken.push(await nodeFirstToken(stack.info.api_url, session.token, agent));
    };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which side goes first, so neither always meets a warmer service.
      if (round % 2 === 0) await fromNode();

      // Browser: a cold page, signed in (the session a sign-in leaves in sessionStorage).
      const context = await browser.newContext();
      // In-page probes (plain script text: this file compiles without the DOM library).
      await context.addInitScript({ content: `${PROBES}\nsessionStorage.setItem("agent-market.session", ${JSON.stringify(stored)});` });
      const page = await context.newPage();
      await page.goto(stack.info.dashboard_url);
      await page.waitForFunction(() => (globalThis as unknown as { __firstListing?: number }).__firstListing !== undefined, null, { timeout: 30_000 });
      browserListing.push(await page.evaluate(() => (globalThis as unknown as { __firstListing: number }).__firstListing));

      await page.goto(`${stack.info.dashboard_url}run?agent=${agent}`);
      await page.getByLabel("Task").fill("Summarize this call");
      await page.getByLabel("transcript").fill(TRANSCRIPT);
      await page.evaluate(ARM_RUN_PROBE);
      await settle();
      await page.getByRole("button", { name: "Run", exact: true }).click();
      await page.getByTestId("run-summary").waitFor({ timeout: 30_000 });
      const t = await page.evaluate(() => {
        const w = globalThis as unknown as { __runClicked: number; __firstToken?: number };
        return (w.__firstToken ?? Number.NaN) - w.__runClicked;
      });
      browserToken.push(t);
      await context.close();
      if (round % 2 === 1) await fromNode();
    }
    const row = (name: string, b: number[], n: number[]) =>
      `${name.padEnd(36)} browser median ${median(b).toFixed(1).padStart(7)} ms (max ${Math.max(...b).toFixed(1)})   node median ${median(n).toFixed(1).padStart(7)} ms (max ${Math.max(...n).toFixed(1)})   ratio ${(median(b) / median(n)).toFixed(2)}x`;
    return [
      `rounds: ${ROUNDS} (each browser round a fresh context: cold cache, signed-in session)`,
      row("navigation → first listing on screen", browserListing, nodeListing),
      row("run → first streamed token on screen", browserToken, nodeToken),
    ];
  } finally {
    await browser.close();
    await stack.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// The browser suites' world: the whole local stack (API + dashboard, chain, emulators, model server)
// started in-process on free ports, Debian's Chromium driven headless by playwright-core, and in the
// page a real EIP-1193 wallet announced by EIP-6963: the page's requests are bridged to a viem wallet
// client in Node that signs with a development account and sends real transactions to the local chain.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll } from "vitest";
import { chromium, type Browser, type BrowserContext, type ConsoleMessage, type Page } from "playwright-core";
import AxeBuilder from "@axe-core/playwright";
import { createPublicClient, createWalletClient, http, toHex, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startStack, type RunningStack } from "../../local/stack.ts";
import { listenSite } from "../../local/dashboard.ts";
import { startWorld, type World, type WorldOptions } from "../support/world.ts";
import { freePort } from "../../local/ports.ts";
import { chainFor } from "../../src/chain/client.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
export const CHROMIUM = "/usr/bin/chromium";
export const SCREENSHOTS = join(root, ".build/screenshots");
const CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** The whole local stack on free ports and a fresh data folder. */
export type WebStack = RunningStack & { dataDir: string };

/** The whole local stack on free ports and a fresh data folder; `stop()` removes both. */
export async function startWebStack(): Promise<WebStack> {
  if (!existsSync(join(root, "web/dist/index.html"))) throw new Error("web/dist is missing: run `npm run build:web` (npm test builds it first).");
  const dataDir = mkdtempSync(join(tmpdir(), "web-stack-"));
  const stack = await startStack({ dataDir, apiPort: await freePort(), chainPort: await freePort(), dynamoPort: await freePort(), awsPort: await freePort(), logLevel: "silent" });
  return {
    ...stack,
    dataDir,
    stop: async () => {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** What the browser suites on the whole local stack run against, there from the file's first test on. */
export interface WebSuite {
  stack: WebStack;
  browser: Browser;
}

/**
 * The setup of a browser suite on the whole local stack: the stack (startWebStack) and a headless
 * Chromium started before the file's tests, then `seed` on the stack, all within `timeoutMs`; the
 * browser closed and the stack stopped after the tests.
 *
 * @example
 * const web = webSuite();
 * it("…", async () => {
 *   const d = await openDashboard(web.browser, web.stack, privateKey);
 *   await d.page.goto(web.stack.info.dashboard_url);
 * });
 */
export function webSuite({ timeoutMs = 120_000, seed }: { timeoutMs?: number; seed?: (stack: WebStack) => Promise<void> } = {}): WebSuite {
  const suite = {} as WebSuite;
  beforeAll(async () => {
    [suite.stack, suite.browser] = await Promise.all([startWebStack(), launchBrowser()]);
    await seed?.(suite.stack);
  }, timeoutMs);
  afterAll(async () => {
    await suite.browser?.close();
    await suite.stack?.stop();
  });
  return suite;
}

/** The server `npm start` runs (the dashboard's build in front of the API) over a test world, on `port`,
 * the address the world was told it has (its API_URL). */
export function listenWorldSite(world: World, port: number, siteUrl: string): ReturnType<typeof listenSite> {
  const config = world.services.config;
  return listenSite(world.services, {
    port,
    distDir: join(root, "web/dist"),
    config: { api_url: siteUrl, chain_id: config.CHAIN_ID, chain_name: "Local", rpc_url: world.rpcUrl, marketplace_address: config.MARKETPLACE_ADDRESS, explorer_url: null, allow_private_agent_hosts: true },
  });
}

/** A test world served as `npm start` serves it (the dashboard's build in front of its API) on a free
 * port it knows as its API_URL, a headless Chromium, and the stack description `openDashboard` takes:
 * the setup of the browser suites that need a world of their own. `close()` ends all three. */
export interface WorldSite {
  world: World;
  siteUrl: string;
  browser: Browser;
  stack: RunningStack;
  close(): Promise<void>;
}

export async function startWorldSite(options: WorldOptions = {}): Promise<WorldSite> {
  const port = await freePort();
  const siteUrl = `http://127.0.0.1:${port}`;
  const world = await startWorld({ agent: true, ...options, env: { ...options.env, API_URL: siteUrl } });
  const site = await listenWorldSite(world, port, siteUrl);
  const browser = await launchBrowser();
  const stack = { info: { chain_id: world.services.config.CHAIN_ID, rpc_url: world.rpcUrl } } as unknown as RunningStack;
  return {
    world,
    siteUrl,
    browser,
    stack,
    close: async () => {
      await browser.close();
      await new Promise((resolve) => site.close(resolve));
      site.closeAllConnections();
      await world.close();
    },
  };
}

/** Chromium, headless. Fails loudly when it is not installed: the browser suites never pass silently. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing. Install Debian's chromium package (scripts/bootstrap.sh does so: apt-get install -y chromium).`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS });
}

export interface TestWallet {
  address: Hex;
  /** The next request of this method is refused as a user would (EIP-1193 4001); with `after`, the
   * request after that many more of the method have been answered. */
  rejectNext(method: "personal_sign" | "eth_sendTransaction" | "eth_signTypedData_v4", options?: { after?: number }): void;
  /** The next personal_sign is answered with another key's signature (a faulty wallet). */
  signWithOtherKeyNext(): void;
  /** Methods the page asked the wallet for, in order. */
  calls: string[];
  /** Chains the page asked the wallet to add (wallet_addEthereumChain). */
  addedChains: { chainId: number; rpcUrls: string[] }[];
  /** Hashes of the transactions the wallet sent, in order. */
  sent: Hex[];
  /** The user picks another account in the wallet: it signs as that one and emits accountsChanged. */
  switchAccount(privateKey: Hex): Promise<void>;
  /** The user disconnects the site in the wallet: no account is shared any more (accountsChanged []). */
  disconnectSite(): Promise<void>;
}

export interface DashboardPage {
  page: Page;
  context: BrowserContext;
  wallet: TestWallet;
  /** Every console error and uncaught page error seen so far, each with where it came from. */
  errors: string[];
  shot(name: string): Promise<void>;
}

/** How Chromium logs a response the API refused (a console error naming the request's URL), for
 * journeys that provoke a refusal on purpose and expect exactly that one. */
export function refusalLogged(status: 400 | 401 | 403 | 404 | 409, url: string): string {
  const text = { 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 409: "Conflict" }[status];
  return `Failed to load resource: the server responded with a status of ${status} (${text}) (${url})`;
}

/** A wallet as it announces itself by EIP-6963. */
export interface WalletInfo {
  uuid: string;
  name: string;
  icon: string;
  rdns: string;
}

/** A small square icon of one colour, as wallets announce theirs (a data URI). */
export function walletIcon(colour: string): string {
  return "data:image/svg+xml;base64," + Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="8" fill="${colour}"/><circle cx="16" cy="16" r="7" fill="#fff"/></svg>`).toString("base64");
}

export const TEST_WALLET: WalletInfo = { uuid: "8b3f2c1e-0a4d-4f6e-9c2b-7d5e1a9f3c40", name: "Test Wallet", icon: walletIcon("#0e9f6e"), rdns: "dev.agents.test-wallet" };

/** The provider injected into the page before any of its scripts: EIP-1193 `request`, events, and the
 * EIP-6963 announcement of each wallet in `announce` (on load and on every `eip6963:requestProvider`),
 * all of them the same provider; with none, it is `window.ethereum` only, as older wallets do. Runs
 * in the browser. */
function injectWallet({ announce: wallets }: { announce: { uuid: string; name: string; icon: string; rdns: string }[] }) {
  type Listener = (...args: unknown[]) => void;
  // The page's window, typed for what this script uses (the suite compiles without the DOM library).
  const window = globalThis as unknown as {
    __walletRequest(method: string, params: string): Promise<string>;
    __testWallet: unknown;
    ethereum?: unknown;
    dispatchEvent(event: Event): boolean;
    addEventListener(type: string, listener: () => void): void;
  };
  const listeners = new Map<string, Set<Listener>>();
  const provider = {
    isTestWallet: true,
    async request({ method, params }: { method: string; params?: unknown[] }) {
      const answer = JSON.parse(await window.__walletRequest(method, JSON.stringify(params ?? []))) as { result?: unknown; error?: { code: number; message: string }; chainChanged?: string };
      if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
      // A switch the wallet made is announced the way wallets do, with a chainChanged event.
      if (answer.chainChanged) provider.emit("chainChanged", answer.chainChanged);
      return answer.result;
    },
    on(event: string, listener: Listener) {
      if (!listeners.has(event)) listeners.set(event, new Set());
      listeners.get(event)!.add(listener);
      return provider;
    },
    removeListener(event: string, listener: Listener) {
      listeners.get(event)?.delete(listener);
      return provider;
    },
    emit(event: string, ...args: unknown[]) {
      for (const l of listeners.get(event) ?? []) l(...args);
    },
  };
  window.__testWallet = provider;
  if (wallets.length === 0) {
    window.ethereum = provider;
    return;
  }
  const announce = () => {
    for (const info of wallets) window.dispatchEvent(new CustomEvent("eip6963:announceProvider", { detail: Object.freeze({ info, provider }) }));
  };
  window.addEventListener("eip6963:requestProvider", announce);
  announce();
}

export async function openDashboard(browser: Browser, stack: RunningStack, privateKey: Hex, options: { viewport?: { width: number; height: number }; colorScheme?: "light" | "dark"; walletChainId?: number; wallets?: WalletInfo[] } = {}): Promise<DashboardPage> {
  let account = privateKeyToAccount(privateKey);
  const chain = chainFor(stack.info.chain_id, stack.info.rpc_url);
  const transport = http(stack.info.rpc_url);
  const publicClient = createPublicClient({ chain, transport });
  let walletClient = createWalletClient({ account, chain, transport });
  const sent: Hex[] = [];
  // Per method: how many more requests are answered before the next is refused.
  const rejections = new Map<string, number>();
  let signWithOtherKey = false;
  const calls: string[] = [];
  let connected = false;
  // The wallet starts on the stack's chain unless told otherwise (then it does not know the stack's).
  let walletChain = options.walletChainId ?? stack.info.chain_id;
  const knownChains = new Set([walletChain]);
  const addedChains: { chainId: number; rpcUrls: string[] }[] = [];

  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1280, height: 860 }, colorScheme: options.colorScheme ?? "light", permissions: ["clipboard-read", "clipboard-write"] });
  await context.exposeFunction("__walletRequest", async (method: string, paramsJson: string) => {
    const params = JSON.parse(paramsJson) as unknown[];
    calls.push(method);
    try {
      const answerFirst = rejections.get(method);
      if (answerFirst === 0) {
        rejections.delete(method);
        return JSON.stringify({ error: { code: 4001, message: "User rejected the request." } });
      }
      if (answerFirst !== undefined) rejections.set(method, answerFirst - 1);
      switch (method) {
        // Like a real wallet, it shares the account only once the user connected the site.
        case "eth_requestAccounts":
          connected = true;
          return JSON.stringify({ result: [account.address] });
        case "eth_accounts":
          return JSON.stringify({ result: connected ? [account.address] : [] });
        case "eth_chainId":
          return JSON.stringify({ result: toHex(walletChain) });
        // Like a real wallet: it switches only to chains it knows (4902 otherwise) and, once asked to
        // add one, adds it and switches to it.
        case "wallet_switchEthereumChain": {
          const target = Number((params[0] as { chainId: string }).chainId);
          if (!knownChains.has(target)) return JSON.stringify({ error: { code: 4902, message: `Unrecognized chain ID ${toHex(target)}.` } });
          walletChain = target;
          return JSON.stringify({ result: null, chainChanged: toHex(target) });
        }
        case "wallet_addEthereumChain": {
          const added = params[0] as { chainId: string; rpcUrls?: string[] };
          const target = Number(added.chainId);
          addedChains.push({ chainId: target, rpcUrls: added.rpcUrls ?? [] });
          knownChains.add(target);
          walletChain = target;
          return JSON.stringify({ result: null, chainChanged: toHex(target) });
        }
        case "wallet_watchAsset":
          return JSON.stringify({ result: null });
        case "wallet_requestPermissions":
          connected = true;
          return JSON.stringify({ result: [{ parentCapability: "eth_accounts" }] });
        case "wallet_getPermissions":
          return JSON.stringify({ result: connected ? [{ parentCapability: "eth_accounts" }] : [] });
        case "wallet_revokePermissions":
          connected = false;
          return JSON.stringify({ result: null });
        case "personal_sign": {
          const signer = signWithOtherKey ? privateKeyToAccount(generatePrivateKey()) : account;
          signWithOtherKey = false;
          return JSON.stringify({ result: await signer.signMessage({ message: { raw: params[0] as Hex } }) });
        }
        // EIP-712: the typed data as the page sent it (JSON; integers as strings or numbers), signed by the account.
        case "eth_signTypedData_v4": {
          const typed = JSON.parse(params[1] as string) as { domain: Record<string, unknown>; types: Record<string, { name: string; type: string }[]>; primaryType: string; message: Record<string, unknown> };
          const { EIP712Domain: _domain, ...types } = typed.types;
          const fields = types[typed.primaryType] ?? [];
          const message = Object.fromEntries(Object.entries(typed.message).map(([k, v]) => [k, /^u?int\d*$/.test(fields.find((f) => f.name === k)?.type ?? "") ? BigInt(v as string) : v]));
          const domain = { ...typed.domain, ...(typed.domain.chainId !== undefined ? { chainId: Number(typed.domain.chainId) } : {}) };
          return JSON.stringify({ result: await account.signTypedData({ domain, types, primaryType: typed.primaryType, message } as never) });
        }
        case "eth_sendTransaction": {
          const tx = params[0] as { to: Hex; data?: Hex; value?: Hex; gas?: Hex };
          const hash = await walletClient.sendTransaction({ to: tx.to, data: tx.data, value: tx.value ? BigInt(tx.value) : 0n, ...(tx.gas ? { gas: BigInt(tx.gas) } : {}) });
          sent.push(hash);
          return JSON.stringify({ result: hash });
        }
        default:
          return JSON.stringify({ result: await publicClient.request({ method: method as "eth_blockNumber", params: params as never }) });
      }
    } catch (error) {
      const e = error as { code?: number; shortMessage?: string; message?: string };
      return JSON.stringify({ error: { code: typeof e.code === "number" ? e.code : -32603, message: e.shortMessage ?? e.message ?? String(error) } });
    }
  });
  await context.addInitScript(injectWallet, { announce: options.wallets ?? [TEST_WALLET] });

  const page = await context.newPage();
  const errors: string[] = [];
  page.on("console", (message: ConsoleMessage) => {
    if (message.type() === "error") errors.push(`${message.text()} (${message.location().url})`);
  });
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    page,
    context,
    errors,
    wallet: {
      get address() {
        return account.address;
      },
      rejectNext: (m, o = {}) => void rejections.set(m, o.after ?? 0),
      signWithOtherKeyNext: () => void (signWithOtherKey = true),
      calls,
      addedChains,
      sent,
      switchAccount: async (next) => {
        account = privateKeyToAccount(next);
        walletClient = createWalletClient({ account, chain, transport });
        await page.evaluate((address) => (globalThis as unknown as { __testWallet: { emit(e: string, a: string[]): void } }).__testWallet.emit("accountsChanged", [address]), account.address);
      },
      disconnectSite: async () => {
        connected = false;
        await page.evaluate(() => (globalThis as unknown as { __testWallet: { emit(e: string, a: string[]): void } }).__testWallet.emit("accountsChanged", []));
      },
    },
    // From the top: a full-page shot of a scrolled page draws the sticky header midway down.
    shot: async (name) => {
      await page.evaluate(() => (globalThis as unknown as { scrollTo(x: number, y: number): void }).scrollTo(0, 0));
      await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
    },
  };
}

/** Connects the injected wallet and signs in through the page, as a user does. */
export async function connectAndSignIn(d: DashboardPage): Promise<void> {
  const { page } = d;
  await page.getByRole("button", { name: "Connect wallet" }).first().click();
  await page.getByRole("dialog").getByRole("button", { name: "Test Wallet" }).click();
  await page.getByRole("button", { name: "Sign in" }).first().click();
  await page.getByLabel("Signed in").waitFor();
}

/** axe-core on the page as it is: the serious and critical violations, described. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Every rule runs; axe only skips listing the nodes that passed (its documented option for speed).
  const result = await new AxeBuilder({ page }).options({ resultTypes: ["violations"] }).analyze();
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join("; ")}`);
}

// Startup figures of the local stack, each beside a baseline measured in the same run:
//  1. `npm start` (warm install) to a ready stack (stack.json written and /v1/health answering 200),
//     beside a Hardhat node alone becoming ready (the slowest part the stack must wait for).
//     Target: under 15 s.
//  2. API process start to its first served request (GET /v1/health, which reads a table and the
//     chain), beside a bare Node HTTP server process to its first response. Both the development entry
//     (TypeScript through tsx) and the bundle Lambda runs (esbuild) are measured. Target: under 1.5 s.
// Run: npm run bench -- startup   (or: node --import tsx bench/startup.ts)
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { freePort } from "../local/ports.ts";
import { startChain } from "../local/chain.ts";
import { startStack } from "../local/stack.ts";
import { summarize, ms } from "./stats.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const node = join(root, "node_modules/.bin/node");
const env = { ...process.env, PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH ?? ""}`, NODE_OPTIONS: "--disable-warning=ExperimentalWarning" };

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 5));
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

function stopGroup(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    process.kill(-child.pid!, "SIGTERM");
  });
}

async function stackStart(runs: number) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = mkdtempSync(join(tmpdir(), "bench-stack-"));
    const ports = { PORT: await freePort(), CHAIN_PORT: await freePort(), DYNAMODB_PORT: await freePort(), AWS_EMULATOR_PORT: await freePort() };
    const began = performance.now();
    const child = spawn("npm", ["start", "--silent"], { cwd: root, detached: true, stdio: "ignore", env: { ...env, ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), LOCAL_DATA_DIR: dir, LOG_LEVEL: "warn" } });
    await until(() => existsSync(join(dir, "stack.json")), 120_000);
    const { api_url } = JSON.parse(readFileSync(join(dir, "stack.json"), "utf8")) as { api_url: string };
    await until(() => answers(`${api_url}/v1/health`), 10_000);
    times.push(performance.now() - began);
    await stopGroup(child);
    rmSync(dir, { recursive: true, force: true });
  }
  return times;
}

async function chainAlone(runs: number) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const began = performance.now();
    const chain = await startChain({ port: await freePort() });
    times.push(performance.now() - began);
    await chain.stop();
  }
  return times;
}

async function processToFirstResponse(args: string[], port: number, path: string, extraEnv: Record<string, string>) {
  const began = performance.now();
  const child = spawn(node, args, { cwd: root, detached: true, stdio: ["ignore", "ignore", "pipe"], env: { ...env, ...extraEnv, PORT: String(port) } });
  let stderr = "";
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  await until(() => {
    if (child.exitCode !== null) throw new Error(`the server exited before answering: ${stderr}`);
    return answers(`http://127.0.0.1:${port}${path}`);
  }, 20_000);
  const elapsed = performance.now() - began;
  await stopGroup(child);
  return elapsed;
}

export async function runStartupBench(options: { stackRuns?: number; apiRuns?: number } = {}) {
  const stackRuns = options.stackRuns ?? 3;
  const apiRuns = options.apiRuns ?? 10;
  const rows: string[] = [];

  const stack = summarize(await stackStart(stackRuns));
  const chain = summarize(await chainAlone(stackRuns));
  rows.push(`stack start (npm start → ready), n=${stack.n}: p50 ${ms(stack.p50)}, max ${ms(stack.max)}; target < 15000 ms: ${stack.max < 15_000 ? "met" : "MISSED"}`);
  rows.push(`  baseline: Hardhat node alone → ready, n=${chain.n}: p50 ${ms(chain.p50)}; ratio stack/baseline ${(stack.p50 / chain.p50).toFixed(2)}x`);

  // The API against a running stack's stores.
  const dir = mkdtempSync(join(tmpdir(), "bench-api-"));
  const running = await startStack({ dataDir: dir, apiPort: await freePort(), chainPort: await freePort(), dynamoPort: await freePort(), awsPort: await freePort(), logLevel: "warn" });
  const c = running.services.config;
  const apiEnv: Record<string, string> = {
    STAGE: "local", TABLE_PREFIX: c.TABLE_PREFIX, DYNAMODB_ENDPOINT: c.DYNAMODB_ENDPOINT!, AWS_ENDPOINT: c.AWS_ENDPOINT!, REGISTRATION_QUEUE_URL: c.REGISTRATION_QUEUE_URL,
    REGISTRATION_DLQ_URL: c.REGISTRATION_DLQ_URL, SETTLEMENT_QUEUE_URL: c.SETTLEMENT_QUEUE_URL, BLOB_BUCKET: c.BLOB_BUCKET, RPC_URL: c.RPC_URL, CHAIN_ID: String(c.CHAIN_ID), MARKETPLACE_ADDRESS: c.MARKETPLACE_ADDRESS, LOG_LEVEL: "warn",
    JWT_SIGNING_KEYS: JSON.stringify(c.JWT_SIGNING_KEYS), LOCAL_MASTER_KEY: c.LOCAL_MASTER_KEY!, MARKETPLACE_DEPLOY_BLOCK: String(c.MARKETPLACE_DEPLOY_BLOCK), INDEXER_CONFIRMATIONS: "0",
  };
  const bundle = join(root, ".build/bench/api-server.mjs");
  await build({ entryPoints: [join(root, "local/api-server.ts")], bundle: true, platform: "node", format: "esm", target: "node22", outfile: bundle, logLevel: "error", banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" } });
  const bare = `require("node:http").createServer((q, s) => s.end("ok")).listen(Number(process.env.PORT), "127.0.0.1")`;
  const tsxTimes: number[] = [];
  const bundleTimes: number[] = [];
  const bareTimes: number[] = [];
  for (let i = 0; i < apiRuns; i++) {
    bareTimes.push(await processToFirstResponse(["-e", bare], await freePort(), "/", {}));
    bundleTimes.push(await processToFirstResponse([bundle], await freePort(), "/v1/health", apiEnv));
    tsxTimes.push(await processToFirstResponse(["--import", "tsx", "local/api-server.ts"], await freePort(), "/v1/health", apiEnv));
  }
  await running.stop();
  rmSync(dir, { recursive: true, force: true });
  const bareS = summarize(bareTimes);
  const bundleS = summarize(bundleTimes);
  const tsxS = summarize(tsxTimes);
  rows.push(`API start → first served request (bundle, as Lambda runs it), n=${bundleS.n}: p50 ${ms(bundleS.p50)}, p95 ${ms(bundleS.p95)}; target < 1500 ms: ${bundleS.p95 < 1500 ? "met" : "MISSED"}`);
  rows.push(`API start → first served request (TypeScript via tsx), n=${tsxS.n}: p50 ${ms(tsxS.p50)}, p95 ${ms(tsxS.p95)}; target < 1500 ms: ${tsxS.p95 < 1500 ? "met" : "MISSED"}`);
  rows.push(`  baseline: bare node HTTP server → first response, n=${bareS.n}: p50 ${ms(bareS.p50)}, p95 ${ms(bareS.p95)}; ratio bundle/baseline ${(bundleS.p50 / bareS.p50).toFixed(2)}x, tsx/baseline ${(tsxS.p50 / bareS.p50).toFixed(2)}x`);
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await runStartupBench()) console.log(row);
}

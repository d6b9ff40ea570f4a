// Memory under load: the local stack (`local/start.ts`, what `npm start` runs once its builds are done)
// in a process of its own, driven over HTTP by this one with POST /v1/execute, RUNS runs at CONCURRENCY
// in flight, spread over RENTERS renters of the demo's one-time listing (each renter its own credential,
// so the per-credential execution limit of 60 a minute is not what paces the load; a 429 is waited out
// by its Retry-After). The stack process's resident set (VmRSS of /proc/<pid>/status) is sampled every
// SAMPLE_EVERY runs, and once more after IDLE_MS without load; its child processes (the chain, the
// emulators, the sandboxes) are summed apart. The question is whether the API's RSS levels off: the
// figure printed is the growth over each quarter of the runs.
// Run: npm run bench -- memory   (or: node --import tsx bench/memory.ts; RUNS, CONCURRENCY, RENTERS,
// SAMPLE_EVERY, IDLE_MS in the environment). HEAP_SNAPSHOTS=<directory> also writes a heap snapshot of
// the stack process after the warm-up and after the idle wait (each after a full collection), for
// `node --import tsx bench/heap-diff.ts <first> <second>`.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, existsSync, statSync } from "node:fs";
import { tmpdir, loadavg } from "node:os";
import { join } from "node:path";
import { createPublicClient, createWalletClient, http, parseEther, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { DynamoDBClient, ListTablesCommand, ScanCommand } from "@aws-sdk/client-dynamodb";
import { DEV_ACCOUNTS } from "../local/chain.ts";
import { freePort } from "../local/ports.ts";

const RUNS = Number(process.env.RUNS ?? 3_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 20);
const RENTERS = Number(process.env.RENTERS ?? 20);
const SAMPLE_EVERY = Number(process.env.SAMPLE_EVERY ?? 250);
const IDLE_MS = Number(process.env.IDLE_MS ?? 15_000);
const HEAP_SNAPSHOTS = process.env.HEAP_SNAPSHOTS;
const root = join(import.meta.dirname, "..");

const mib = (kb: number) => (kb / 1024).toFixed(0);

function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** The resident set split: anonymous memory (the JS heap, native allocations) and the pages of the
 * embedded DynamoDB emulator's LevelDB table files (.ldb), which LevelDB maps into the process: they
 * grow with the data stored, are file-backed and reclaimable, and are no part of the API. */
function residentKb(pid: number): { rss: number; anon: number; ldb: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  let ldb = 0;
  let mapping = "";
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) mapping = header[1] ?? "";
    else if (line.startsWith("Rss:") && mapping.endsWith(".ldb")) ldb += Number(/(\d+)/.exec(line)?.[1] ?? 0);
  }
  return { rss: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0), anon: Number(/RssAnon:\s+(\d+)/.exec(status)?.[1] ?? 0), ldb };
}

/** Every descendant of `pid` (from /proc's parent links). */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parentOf) if (parent === p) (found.push(child), walk(child));
  };
  walk(pid);
  return found;
}

/** Whether `pid` is the DynamoDB emulator's own process (DYNAMODB_PROCESS=true). */
function isDynamo(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes('require("dynalite")');
  } catch {
    return false;
  }
}

/** The resident memory of the stack's children (the chain, the sandboxes; the DynamoDB emulator's
 * process apart, as `dynamo`). */
function childrenRssKb(pid: number): { others: number; dynamo: number } {
  return descendants(pid).reduce((sum, p) => {
    try {
      const kb = rssKb(p);
      return isDynamo(p) ? { ...sum, dynamo: sum.dynamo + kb } : { ...sum, others: sum.others + kb };
    } catch {
      return sum;
    }
  }, { others: 0, dynamo: 0 });
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

interface Collected {
  /** VmRSS right after a full collection. */
  rss: number;
  /** process.memoryUsage() inside the stack after the collection: the JS heap's live objects, the heap
   * V8 holds, and the memory outside the heap its objects own (Buffers and ArrayBuffers among it). */
  heapUsed: number;
  heapTotal: number;
  external: number;
}

/** The stack's inspector (it runs with --inspect on a port of its own choosing, named on its stderr):
 * a full collection on demand, and process.memoryUsage() read inside the process after it. */
async function inspectorOf(url: string) {
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => ((socket.onopen = resolve), (socket.onerror = reject)));
  let last = 0;
  const waiting = new Map<number, (result: unknown) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown; error?: unknown };
    if (message.id !== undefined) waiting.get(message.id)?.(message.result ?? message.error), waiting.delete(message.id);
  };
  const call = (method: string, params: object = {}) =>
    new Promise<unknown>((resolve) => {
      const id = ++last;
      waiting.set(id, resolve);
      socket.send(JSON.stringify({ id, method, params }));
    });
  await call("HeapProfiler.enable");
  return {
    async collected(pid: number): Promise<Collected> {
      await call("HeapProfiler.collectGarbage");
      const answer = (await call("Runtime.evaluate", { expression: "JSON.stringify(process.memoryUsage())", returnByValue: true })) as { result: { value: string } };
      const usage = JSON.parse(answer.result.value) as NodeJS.MemoryUsage;
      return { rss: rssKb(pid), heapUsed: usage.heapUsed / 1024, heapTotal: usage.heapTotal / 1024, external: usage.external / 1024 };
    },
    close: () => socket.close(),
  };
}

/** Has the stack process (started with --heapsnapshot-signal) write a heap snapshot into `dir`; resolves
 * with its path once written (the process writes it on its main thread, so it answers HTTP again only
 * after). */
async function heapSnapshot(pid: number, dir: string, api: string): Promise<string> {
  const before = new Set(readdirSync(dir));
  process.kill(pid, "SIGUSR2");
  const file = await until("the heap snapshot to start", () => readdirSync(dir).find((name) => name.endsWith(".heapsnapshot") && !before.has(name)), 300_000);
  await until("the heap snapshot to be written", async () => (await fetch(`${api}/v1/health`).then((res) => res.status > 0, () => false)) || undefined, 600_000);
  return join(dir, file);
}

/** Bytes of the files under `dir` (0 when it does not exist). */
function diskBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { withFileTypes: true, recursive: true }).reduce((sum, entry) => (entry.isFile() ? sum + statSync(join(entry.parentPath, entry.name)).size : sum), 0);
}

/**
 * What the embedded DynamoDB emulator holds after the load: per table, its items and their bytes (as
 * DynamoDB sizes them, roughly: the JSON of each item), and per kind of item (the partition key's first
 * word) the largest; and the emulator's files on disk. Says what each run leaves behind.
 */
async function storageReport(endpoint: string, dataDir: string, runs: number): Promise<string[]> {
  const dynamo = new DynamoDBClient({ region: "us-east-1", endpoint, credentials: { accessKeyId: "local", secretAccessKey: "local" } });
  try {
    const tables = (await dynamo.send(new ListTablesCommand({}))).TableNames ?? [];
    const kinds = new Map<string, { items: number; bytes: number; largest: number }>();
    const lines: string[] = [];
    for (const table of tables) {
      let items = 0;
      let bytes = 0;
      let start: Record<string, unknown> | undefined;
      do {
        const page = await dynamo.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start as never }));
        for (const item of page.Items ?? []) {
          const size = JSON.stringify(item).length;
          items++;
          bytes += size;
          const pk = Object.values(item.pk ?? {})[0];
          const kind = `${table.replace(/^.*?-/, "")} ${typeof pk === "string" ? pk.split("#")[0]!.replace(/_[0-9a-f]{8,}$/, "_…") : "?"}`;
          const entry = kinds.get(kind) ?? { items: 0, bytes: 0, largest: 0 };
          entry.items++;
          entry.bytes += size;
          entry.largest = Math.max(entry.largest, size);
          kinds.set(kind, entry);
        }
        start = page.LastEvaluatedKey;
      } while (start);
      lines.push(`  ${table}: ${items} items, ${(bytes / 1024).toFixed(0)} KiB`);
    }
    const top = [...kinds].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 8);
    return [
      `what the DynamoDB emulator holds after ${runs} runs: ${(diskBytes(join(dataDir, "dynamodb")) / 1_048_576).toFixed(0)} MiB of files on disk`,
      ...lines,
      `  the largest kinds (table, partition key's first word: items, KiB, largest item's bytes): ${top.map(([k, v]) => `${k}: ${v.items}, ${(v.bytes / 1024).toFixed(0)}, ${v.largest}`).join("; ")}`,
    ];
  } finally {
    dynamo.destroy();
  }
}

/** Runs the load and returns the figures (see the file's opening comment). */
export async function runMemoryBench(): Promise<string[]> {
  const dataDir = mkdtempSync(join(tmpdir(), "memory-bench-"));
  const ports = { PORT: await freePort(), CHAIN_PORT: await freePort(), DYNAMODB_PORT: await freePort(), AWS_EMULATOR_PORT: await freePort() };
  // MALLOC_ARENA_MAX as `npm start` sets it (package.json), unless the environment says otherwise.
  const env = { ...process.env, MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? "2", ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])), LOCAL_DATA_DIR: dataDir, LOG_LEVEL: "warn" };
  let stack: ChildProcess | undefined;
  try {
    if (HEAP_SNAPSHOTS) mkdirSync(HEAP_SNAPSHOTS, { recursive: true });
    const snapshotFlags = HEAP_SNAPSHOTS ? ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${HEAP_SNAPSHOTS}`] : [];
    stack = spawn(process.execPath, ["--inspect=127.0.0.1:0", ...snapshotFlags, "--disable-warning=ExperimentalWarning", "--import", "tsx", "local/start.ts"], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    stack.stdout!.on("data", (chunk: Buffer) => void (output += chunk.toString()));
    let inspectorUrl: string | undefined;
    stack.stderr!.on("data", (chunk: Buffer) => {
      inspectorUrl ??= /Debugger listening on (ws:\/\/\S+)/.exec(chunk.toString())?.[1];
      output = (output + chunk.toString()).slice(-8_000);
    });
    const exited = new Promise<number | null>((resolve) => stack!.on("exit", resolve));
    await until("the stack to start", () => (output.includes("is running") ? true : stack!.exitCode !== null ? (() => { throw new Error(`the stack exited:\n${output}`); })() : undefined), 300_000);
    const info = JSON.parse(readFileSync(join(dataDir, "stack.json"), "utf8")) as { api_url: string; rpc_url: string; chain_id: number; contracts: { marketplace: Hex }; demo: { listings: { listing_id: string; rental_model: string; price_eth: string }[] } };
    const pid = stack.pid!;
    const api = info.api_url;
    if (!inspectorUrl) throw new Error(`the stack named no inspector:\n${output}`);
    const inspector = await inspectorOf(inspectorUrl);
    const listing = info.demo.listings.find((l) => l.rental_model === "one_time")!;
    const onChainId = `0x${listing.listing_id.slice(4)}` as Hex;
    const chain = { id: info.chain_id, name: "local", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [info.rpc_url] } } } as const;
    const client = createPublicClient({ chain, transport: http(info.rpc_url) });
    const funder = createWalletClient({ account: privateKeyToAccount(DEV_ACCOUNTS[8]!.privateKey as Hex), chain, transport: http(info.rpc_url) });

    // Renters: funded, each buys the one-time listing, signs in.
    const tokens: string[] = [];
    for (let i = 0; i < RENTERS; i++) {
      const account = privateKeyToAccount(generatePrivateKey());
      await client.waitForTransactionReceipt({ hash: await funder.sendTransaction({ to: account.address, value: parseEther("1") }) });
      const wallet = createWalletClient({ account, chain, transport: http(info.rpc_url) });
      const hash = await wallet.writeContract({ address: info.contracts.marketplace, abi: marketplaceAbi, functionName: "purchaseOneTime", args: [onChainId], value: parseEther(listing.price_eth) });
      await client.waitForTransactionReceipt({ hash });
      const challenge = (await (await fetch(`${api}/v1/auth/challenge?wallet=${account.address}`)).json()) as { challenge: string };
      const signature = await account.signMessage({ message: challenge.challenge });
      const res = await fetch(`${api}/v1/auth/token`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ wallet: account.address, challenge: challenge.challenge, signature }) });
      tokens.push(((await res.json()) as { token: string }).token);
    }
    // The credentials are read from the chain through the indexer: wait until a run is admitted.
    await until("the rentals to be indexed", async () => {
      const res = await fetch(`${api}/v1/execute`, { method: "POST", headers: { authorization: `Bearer ${tokens[0]}`, "content-type": "application/json" }, body: JSON.stringify({ agent_id: listing.listing_id, task: "warm up", input: { transcript: "warm up" } }) });
      await res.arrayBuffer();
      return res.status === 200 ? true : undefined;
    }, 120_000);

    // Each sample: the resident set as the load left it, then after a full collection (what is held).
    const samples: { runs: number; rss: number; anon: number; ldb: number; children: number; dynamo: number; at: number; collected: Collected }[] = [];
    const sample = async (runs: number) => {
      const kids = childrenRssKb(pid);
      const now = { runs, ...residentKb(pid), children: kids.others, dynamo: kids.dynamo, at: Date.now() };
      samples.push({ ...now, collected: await inspector.collected(pid) });
      const c = samples.at(-1)!.collected;
      process.stderr.write(`  · ${runs} runs: RSS ${mib(now.rss)} MiB; after a full collection RSS ${mib(c.rss)}, heap used ${mib(c.heapUsed)} of ${mib(c.heapTotal)}, external ${mib(c.external)} MiB\n`);
    };
    const snapshots: string[] = [];
    if (HEAP_SNAPSHOTS) snapshots.push(await heapSnapshot(pid, HEAP_SNAPSHOTS, api));
    await sample(0);
    const statuses = new Map<number, number>();
    let started = 0;
    let done = 0;
    let retries = 0;
    const began = Date.now();
    const loadBefore = loadavg();
    const worker = async (w: number) => {
      for (;;) {
        const n = started++;
        if (n >= RUNS) return;
        const token = tokens[(n + w) % tokens.length]!;
        for (;;) {
          const res = await fetch(`${api}/v1/execute`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ agent_id: listing.listing_id, task: `Summarize call ${n}`, input: { transcript: `Revenue grew ${n % 50}% year on year; guidance raised.` } }),
          });
          await res.arrayBuffer();
          if (res.status === 429 || res.status === 503) {
            retries++;
            await new Promise((resolve) => setTimeout(resolve, 1000 * Math.max(1, Number(res.headers.get("retry-after") ?? 1))));
            continue;
          }
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          break;
        }
        done++;
        if (done % SAMPLE_EVERY === 0) await sample(done);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
    const seconds = (Date.now() - began) / 1000;
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    await sample(done);
    inspector.close();
    const gc = samples.at(-1)!;
    if (HEAP_SNAPSHOTS) snapshots.push(await heapSnapshot(pid, HEAP_SNAPSHOTS, api));

    const dynamoApart = samples.some((s) => s.dynamo > 0);
    const lines = [
      ...(dynamoApart ? ["the DynamoDB emulator in a process of its own (DYNAMODB_PROCESS=true): the stack's process is the API, the jobs and the SQS/S3 emulator"] : []),
      `runs: ${RUNS} at concurrency ${CONCURRENCY}, ${RENTERS} renters of the demo one-time listing, ${seconds.toFixed(0)} s (${(RUNS / seconds).toFixed(1)} runs/s); answers ${[...statuses].map(([s, c]) => `${s}: ${c}`).join(", ")}; 429/503 waited out: ${retries}`,
      `load average (1, 5, 15 min) at the start: ${loadBefore.map((l) => l.toFixed(2)).join(" ")}; at the end: ${loadavg().map((l) => l.toFixed(2)).join(" ")} (2 cores)`,
      `runs   stack RSS MiB   of it anonymous   of it LevelDB files   RSS less LevelDB   its children MiB   ${dynamoApart ? "DynamoDB emulator's process MiB   " : ""}after a full collection: RSS   heap used   heap total   external`,
      ...samples.map((s, i) => `${String(s.runs).padStart(5)}   ${mib(s.rss).padStart(13)}   ${mib(s.anon).padStart(15)}   ${mib(s.ldb).padStart(19)}   ${mib(s.rss - s.ldb).padStart(16)}   ${mib(s.children).padStart(16)}   ${dynamoApart ? `${mib(s.dynamo).padStart(32)}   ` : ""}${mib(s.collected.rss).padStart(28)}   ${mib(s.collected.heapUsed).padStart(9)}   ${mib(s.collected.heapTotal).padStart(10)}   ${mib(s.collected.external).padStart(8)}${i === samples.length - 1 ? `   (after ${IDLE_MS / 1000} s idle)` : ""}`),
    ];
    const quarter = Math.floor(RUNS / 4);
    const at = (runs: number) => samples.reduce((best, s) => (Math.abs(s.runs - runs) < Math.abs(best.runs - runs) ? s : best));
    const growth = (of: (s: (typeof samples)[number]) => number) => [1, 2, 3, 4].map((q) => ((of(at(q * quarter)) - of(at((q - 1) * quarter))) / 1024).toFixed(0)).join(", ");
    lines.push(`growth per quarter of the runs (MiB): RSS ${growth((s) => s.rss)}; anonymous ${growth((s) => s.anon)}; LevelDB files ${growth((s) => s.ldb)};${dynamoApart ? ` the DynamoDB emulator's process ${growth((s) => s.dynamo)};` : ""} after a full collection: RSS ${growth((s) => s.collected.rss)}, heap used ${growth((s) => s.collected.heapUsed)}; idle after: RSS ${mib(gc.rss)} MiB, anonymous ${mib(gc.anon)} MiB`);
    if (snapshots.length > 0) lines.push(`heap snapshots (after the warm-up, after the idle wait): ${snapshots.join(" ")}`);
    lines.push(...(await storageReport(`http://127.0.0.1:${ports.DYNAMODB_PORT}`, dataDir, done)));
    stack.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 30_000))]);
    return lines;
  } finally {
    if (stack && stack.exitCode === null) stack.kill("SIGKILL");
    if (existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await runMemoryBench()) console.log(line);
  process.exit(0);
}

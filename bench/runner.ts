// Cloud runner figures (docs/benchmarks/runner.md):
//  1. Size of the runner's bundle as Lambda loads it: functions/runner.ts bundled by esbuild into one
//     file (ESM, minified, platform node, target node22, the runtime bundle's externals), the way SST
//     packages the function. Target: under 1 MB. The largest inputs (esbuild metafile) are listed.
//  2. Import time of that bundle in a fresh `node` process (what a cold start pays on top of Node's own
//     start), median of 15 processes, beside a bare `node -e 0` measured in the same run (alternating).
//     Target: under 150 ms.
//  3. Memory per idle pre-started local sandbox (VmRSS and RssAnon from /proc/<pid>/status), with the
//     agent runtime preloaded as the service starts them, beside sandboxes that preload nothing.
// Run: npm run bench -- runner   (or: node --import tsx bench/runner.ts)
import { runtimeTrimPlugin } from "../scripts/runtime-trim-plugin.mjs";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build, type Metafile } from "esbuild";
import { createLocalSandboxPool, type LocalSandboxPool } from "../src/adapters/sandbox/local.ts";
import { buildRuntime } from "../scripts/build-runtime.ts";
import { ms, summarize } from "./stats.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
/** The runtime bundle's externals (scripts/build-runtime.ts): native addons esbuild cannot bundle. */
const EXTERNALS = ["isolated-vm"];
const SIZE_TARGET_BYTES = 1_000_000;
const IMPORT_TARGET_MS = 150;
const IMPORT_RUNS = 15;
const IDLE_SANDBOXES = 4;

const sleep = (millis: number) => new Promise((r) => setTimeout(r, millis));
const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
const median = (values: number[]) => summarize(values).p50;

async function bundleRunner(outDir: string): Promise<{ file: string; bytes: number; metafile: Metafile }> {
  const file = join(outDir, "runner.mjs");
  const { metafile } = await build({
    entryPoints: [join(root, "functions/runner.ts")],
    outfile: file,
    bundle: true,
    platform: "node",
    target: "node22",
    format: "esm",
    minify: true,
    legalComments: "none",
    external: EXTERNALS,
    banner: { js: 'import { createRequire as __runnerRequire } from "node:module"; const require = __runnerRequire(import.meta.url);' },
    plugins: [runtimeTrimPlugin(root)],
    metafile: true,
    logLevel: "error",
  });
  return { file, bytes: statSync(file).size, metafile };
}

/** The inputs that weigh most in the output, grouped by package (or by directory for our own code). */
function largestInputs(metafile: Metafile, count: number): string[] {
  const groups = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const path = relative(root, join(root, input));
      const at = path.lastIndexOf("node_modules/");
      let group: string;
      if (at >= 0) {
        const rest = path.slice(at + "node_modules/".length).split("/");
        group = rest[0]!.startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0]!;
      } else {
        group = dirname(path);
      }
      groups.set(group, (groups.get(group) ?? 0) + bytesInOutput);
    }
  }
  return [...groups.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([group, bytes]) => `${group} ${kib(bytes)}`);
}

/** Runs `node <args>` and returns its wall time (spawn → exit) and what it printed. */
function timeNode(args: string[]): Promise<{ wallMs: number; stdout: string }> {
  return new Promise((resolveRun, rejectRun) => {
    const started = performance.now();
    let stdout = "";
    const child = spawn(process.execPath, args, { cwd: "/", env: {}, stdio: ["ignore", "pipe", "inherit"] });
    child.stdout.on("data", (chunk: Buffer) => void (stdout += chunk.toString("utf8")));
    child.once("error", rejectRun);
    child.once("close", (code) => {
      if (code !== 0) rejectRun(new Error(`node ${args.join(" ")} exited with code ${code}`));
      else resolveRun({ wallMs: performance.now() - started, stdout });
    });
  });
}

async function importTime(bundle: string, dir: string): Promise<{ importMs: number[]; wallMs: number[]; bareMs: number[] }> {
  // Lambda's Node.js runtime provides `awslambda`; a stand-in lets the bundle load outside Lambda.
  const loader = join(dir, "load-runner.mjs");
  writeFileSync(
    loader,
    `globalThis.awslambda = { streamifyResponse: (handler) => handler };\n` +
      `const started = performance.now();\n` +
      `const mod = await import(${JSON.stringify(pathToFileURL(bundle).href)});\n` +
      `if (typeof mod.handler !== "function") throw new Error("no handler");\n` +
      `process.stdout.write(String(performance.now() - started));\n`,
  );
  await timeNode([loader]); // page cache, not counted
  await timeNode(["-e", "0"]);
  const importMs: number[] = [];
  const wallMs: number[] = [];
  const bareMs: number[] = [];
  for (let i = 0; i < IMPORT_RUNS; i++) {
    const loaded = await timeNode([loader]);
    importMs.push(Number(loaded.stdout));
    wallMs.push(loaded.wallMs);
    bareMs.push((await timeNode(["-e", "0"])).wallMs);
  }
  return { importMs, wallMs, bareMs };
}

function status(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8").split("\n").find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? NaN) / 1024;
}

async function idleMemory(pool: LocalSandboxPool): Promise<{ rss: number[]; anon: number[] }> {
  const deadline = Date.now() + 30_000;
  while (pool.stats().idle < IDLE_SANDBOXES && Date.now() < deadline) await sleep(10);
  await sleep(500);
  const pids = pool.idlePids();
  if (pids.length < IDLE_SANDBOXES) throw new Error(`only ${pids.length} of ${IDLE_SANDBOXES} sandboxes started`);
  return { rss: pids.map((pid) => status(pid, "VmRSS")), anon: pids.map((pid) => status(pid, "RssAnon")) };
}

export async function runRunnerBench(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), "runner-bench-"));
  try {
    const rows: string[] = [];
    const { file, bytes, metafile } = await bundleRunner(dir);
    rows.push(`runner bundle (functions/runner.ts, one file, ESM, minified, node22, external ${EXTERNALS.join(", ")}): ${kib(bytes)} (${bytes} bytes); target < 1 MB: ${bytes < SIZE_TARGET_BYTES ? "met" : "MISSED"}`);
    rows.push(`  largest inputs: ${largestInputs(metafile, 8).join(", ")}`);

    const { importMs, wallMs, bareMs } = await importTime(file, dir);
    const imported = summarize(importMs);
    rows.push(`import of the bundle in a fresh node process, n=${imported.n}: p50 ${ms(imported.p50)}, max ${ms(imported.max)}; target < ${IMPORT_TARGET_MS} ms: ${imported.p50 < IMPORT_TARGET_MS ? "met" : "MISSED"}`);
    rows.push(`  process wall time (spawn → exit) with the import p50 ${ms(median(wallMs))}; bare \`node -e 0\` in the same run p50 ${ms(median(bareMs))}; difference ${ms(median(wallMs) - median(bareMs))}`);

    const runtime = await buildRuntime({ outDir: join(dir, "runtime") });
    for (const [label, options] of [
      ["agent runtime preloaded (as the service starts them)", { preload: runtime.entry }],
      ["nothing preloaded", {}],
    ] as const) {
      const pool = createLocalSandboxPool({ warm: IDLE_SANDBOXES, allowFsRead: [runtime.dir], ...options });
      try {
        const { rss, anon } = await idleMemory(pool);
        const r = summarize(rss);
        const a = summarize(anon);
        rows.push(`memory per idle pre-started local sandbox, ${label}, n=${r.n}: VmRSS p50 ${r.p50.toFixed(1)} MiB (max ${r.max.toFixed(1)}), RssAnon p50 ${a.p50.toFixed(1)} MiB (max ${a.max.toFixed(1)})`);
      } finally {
        await pool.close();
      }
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  console.log(`# runner  (${new Date().toISOString()}, node ${process.version})`);
  for (const row of await runRunnerBench()) console.log(row);
}

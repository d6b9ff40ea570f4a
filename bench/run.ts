// `npm run bench [-- name ...] [--write]`: runs the benchmarks (all by default) and prints their figures;
// with --write, each benchmark's figures also go into its page, docs/benchmarks/<name>.md (bench/write.ts).
import { runStartupBench } from "./startup.ts";
import { runRateLimitBench } from "./ratelimit.ts";
import { runAuthBench } from "./auth.ts";
import { runGasBench } from "./gas.ts";
import { runIndexerBench } from "./indexer.ts";
import { runSearchBench } from "./search.ts";
import { runRegistrationBench } from "./registration.ts";
import { runSandboxBench } from "./sandbox.ts";
import { runExecutionStartBench } from "./execution-start.ts";
import { machineNow, writeBenchRuns, type BenchRun } from "./write.ts";

const benches: Record<string, () => Promise<string[]>> = {
  startup: () => runStartupBench(),
  ratelimit: () => runRateLimitBench(),
  auth: () => runAuthBench(),
  indexer: () => runIndexerBench(),
  search: () => runSearchBench(),
  registration: () => runRegistrationBench(),
  sandbox: () => runSandboxBench(),
  "execution-start": () => runExecutionStartBench(),
  runner: async () => (await import("./runner.ts")).runRunnerBench(),
  execute: async () => (await import("./execute.ts")).runExecuteBench(),
  mcp: async () => (await import("./mcp.ts")).runMcpBench(),
  "cli-start": async () => (await import("./cli-start.ts")).runCliStartBench(),
  "sdk-bundle": async () => (await import("./sdk-bundle.ts")).runSdkBundleBench(),
  dashboard: async () => (await import("./dashboard.ts")).runDashboardBench(),
  settlement: async () => (await import("./settlement.ts")).runSettlementBench(),
  "settlement-reorg": async () => (await import("./settlement-reorg.ts")).runSettlementReorgBench(),
  memory: async () => (await import("./memory.ts")).runMemoryBench(),
  analytics: async () => (await import("./analytics.ts")).runAnalyticsBench(),
  x402: async () => (await import("./x402.ts")).runX402Bench(),
  gas: async () =>
    (await runGasBench()).map(
      (r) =>
        `${r.operation.padEnd(28)} gas ${String(r.gasUsed).padStart(7)}  bound ${String(r.lowerBound).padStart(7)}  ratio ${r.ratio.toFixed(3)}` +
        (r.target === undefined
          ? ""
          : r.perRun !== undefined
            ? `  target <= ${r.target} gas/run: ${r.perRun.toFixed(0)} ${r.met ? "met" : "MISSED"}`
            : r.operation.includes("capped renter")
              ? `  target <= +${r.target} gas: ${r.met ? "met" : "MISSED"}`
              : `  target <= ${r.target}x: ${r.met ? "met" : "MISSED"}`),
    ),
};
const args = process.argv.slice(2).filter((a) => a !== "--");
const write = args.includes("--write");
const unknownFlags = args.filter((a) => a.startsWith("--") && a !== "--write");
if (unknownFlags.length) {
  console.error(`unknown option ${unknownFlags.join(", ")}; the only option is --write`);
  process.exit(2);
}
const wanted = args.filter((a) => !a.startsWith("--"));
const names = wanted.length ? wanted : Object.keys(benches);
const unknown = names.filter((name) => !benches[name]);
if (unknown.length) {
  console.error(`unknown benchmark "${unknown.join('", "')}"; choose from: ${Object.keys(benches).join(", ")}`);
  process.exit(2);
}
const runs: BenchRun[] = [];
for (const name of names) {
  const startedAt = new Date();
  const machine = machineNow();
  console.log(`\n# ${name}  (${startedAt.toISOString()}, node ${machine.node}, ${machine.cpus} cores, load ${machine.load.toFixed(1)})`);
  const rows = await benches[name]!();
  for (const row of rows) console.log(row);
  runs.push({ name, startedAt, ...machine, rows });
}
if (write) for (const file of writeBenchRuns(runs)) console.log(`wrote ${file}`);

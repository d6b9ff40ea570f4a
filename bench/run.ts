// `npm run bench [-- name ...]`: runs the benchmarks (all by default) and prints their figures.
import { runStartupBench } from "./startup.ts";
import { runRateLimitBench } from "./ratelimit.ts";
import { runAuthBench } from "./auth.ts";
import { runGasBench } from "./gas.ts";
import { runIndexerBench } from "./indexer.ts";
import { runSearchBench } from "./search.ts";
import { runRegistrationBench } from "./registration.ts";
import { runSandboxBench } from "./sandbox.ts";
import { runExecutionStartBench } from "./execution-start.ts";

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
  gas: async () =>
    (await runGasBench()).map(
      (r) =>
        `${r.operation.padEnd(28)} gas ${String(r.gasUsed).padStart(7)}  bound ${String(r.lowerBound).padStart(7)}  ratio ${r.ratio.toFixed(3)}` +
        (r.target === undefined ? "" : r.perRun !== undefined ? `  target <= ${r.target} gas/run: ${r.perRun.toFixed(0)} ${r.met ? "met" : "MISSED"}` : `  target <= ${r.target}x: ${r.met ? "met" : "MISSED"}`),
    ),
};
const wanted = process.argv.slice(2).filter((a) => a !== "--");
const names = wanted.length ? wanted : Object.keys(benches);
for (const name of names) {
  const bench = benches[name];
  if (!bench) {
    console.error(`unknown benchmark "${name}"; choose from: ${Object.keys(benches).join(", ")}`);
    process.exit(2);
  }
  console.log(`\n# ${name}  (${new Date().toISOString()}, node ${process.version})`);
  for (const row of await bench()) console.log(row);
}

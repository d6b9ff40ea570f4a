// `npm run bench [-- name ...]`: runs the benchmarks (all by default) and prints their figures.
import { runStartupBench } from "./startup.ts";
import { runRateLimitBench } from "./ratelimit.ts";

const benches: Record<string, () => Promise<string[]>> = {
  startup: () => runStartupBench(),
  ratelimit: () => runRateLimitBench(),
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

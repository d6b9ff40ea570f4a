// How fast the installed CLI starts: `agentrent --help` and `agentrent --version` from the packed
// tarball installed into an empty folder, beside a bare `node -e 0`, alternating in one run (the
// machine's load moves all three alike). Target: each at most 2.5x node's own start (median).
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { percentile } from "./stats.ts";

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const ROUNDS = 40;


async function timed(file: string, args: string[]): Promise<number> {
  const started = performance.now();
  await run(file, args, { timeout: 30_000 });
  return performance.now() - started;
}

export async function runCliStartBench(): Promise<string[]> {
  const work = mkdtempSync(join(tmpdir(), "agentrent-start-"));
  try {
    const packs = join(work, "packs");
    mkdirSync(packs);
    execFileSync("npm", ["pack", "--silent", "--pack-destination", packs], { cwd: join(ROOT, "cli"), stdio: "ignore" });
    writeFileSync(join(work, "package.json"), JSON.stringify({ name: "bench", version: "1.0.0", private: true }));
    execFileSync("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...readdirSync(packs).map((f) => join(packs, f))], { cwd: work, stdio: "ignore" });
    const bin = join(work, "node_modules/.bin/agentrent");
    const samples = { node: [] as number[], help: [] as number[], version: [] as number[] };
    await timed(bin, ["--version"]); // the first start fills Node's compile cache
    for (let i = 0; i < ROUNDS; i++) {
      samples.node.push(await timed(process.execPath, ["-e", "0"]));
      samples.help.push(await timed(bin, ["--help"]));
      samples.version.push(await timed(bin, ["--version"]));
    }
    const base = percentile(samples.node, 50);
    return Object.entries(samples).map(([name, values]) => {
      const median = percentile(values, 50);
      const label = name === "node" ? "node -e 0" : `agentrent --${name}`;
      return `${label.padEnd(20)} median ${median.toFixed(1)} ms  p95 ${percentile(values, 95).toFixed(1)} ms  ratio ${(median / base).toFixed(2)}x${name === "node" ? "" : `  target <= 2.5x: ${median / base <= 2.5 ? "met" : "MISSED"}`}`;
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

// `npm test`: every suite of the project, then one closing line with the totals:
// "N passed, N failed" (", N skipped" when any were skipped).
//  - checks: the TypeScript type check (strict), the shared core's type check without Node's types,
//    the infrastructure type check (SST), the import boundaries (scripts/check-imports.ts), the import
//    circles (scripts/check-circles.ts), the Solidity linter, the OpenAPI linter
//  - the contract's Solidity tests (Hardhat: unit, fuzz, invariant), after the Python lane
//  - the vitest lanes (vitest.config.ts): unit, then integration (real emulators and a real chain),
//    then e2e (the whole local stack, the dashboard in Chromium, the packed packages)
//  - the Python SDK's pytest suite (scripts/test-python.ts), after the integration lane
// The checks run one at a time, then the e2e lane, beside the unit and integration lanes; the output of
// the checks and of the e2e lane is held and printed as each ends (the live lanes' output stays readable).
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bin = (name: string) => join(root, "node_modules/.bin", name);
const env = {
  ...process.env,
  PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH ?? ""}`,
  NODE_OPTIONS: [process.env.NODE_OPTIONS, "--disable-warning=ExperimentalWarning"].filter(Boolean).join(" "),
  FORCE_COLOR: process.env.CI ? "0" : (process.env.FORCE_COLOR ?? "1"),
};

interface Tally { passed: number; failed: number; skipped: number }
const rows: { name: string; tally: Tally; seconds: number }[] = [];
/** Every failed test of the vitest lanes, with the opening lines of its failure, printed again beside
 * the totals: a lane's output scrolls past long before the end, and the end is what a reader sees. */
const failures: string[] = [];
const started = Date.now();

/** Runs a command; its output goes to the terminal as it comes (`live`) or is returned to print later. */
function run(command: string, args: string[], live: boolean): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const collect = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
      output += chunk.toString();
      if (live) stream.write(chunk);
    };
    child.stdout.on("data", collect(process.stdout));
    child.stderr.on("data", collect(process.stderr));
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

function record(name: string, tally: Tally, since: number) {
  rows.push({ name, tally, seconds: (Date.now() - since) / 1000 });
}

const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "");

interface Check {
  name: string;
  command: string;
  args: string[];
  /** Counts the tests a check ran from its output (default: the check passes or fails as one). */
  tally?: (output: string, code: number) => Tally;
}

const CHECKS: Check[] = [
  { name: "type check (tsc, strict)", command: bin("tsc"), args: ["-p", "tsconfig.json", "--noEmit"] },
  // The shared core as a browser sees it: no Node types, so a Node built-in in its sources fails.
  { name: "core type check (no Node)", command: bin("tsc"), args: ["-p", "packages/core/tsconfig.json"] },
  { name: "infrastructure type check", command: "bash", args: ["scripts/check-infra.sh"] },
  // Storage calls only in adapters and stores, contract actions only under src/chain/ (docs/design/data-model.md);
  // packages import each other by name and only downwards; the shared core imports no Node built-in.
  { name: "import boundaries", command: "node", args: ["--import", "tsx", "scripts/check-imports.ts"] },
  // No module of src/ imports itself back through others.
  { name: "import circles", command: "node", args: ["--import", "tsx", "scripts/check-circles.ts"] },
  { name: "Solidity lint (solhint)", command: bin("solhint"), args: ["-c", "contracts/.solhint.json", "--max-warnings", "0", "contracts/src/**/*.sol"] },
  // The OpenAPI document, rendered in-process, linted offline (no telemetry, no update check).
  {
    name: "OpenAPI lint (Redocly)",
    command: "bash",
    args: ["-c", `node --import tsx scripts/openapi-write.ts && REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true "${bin("redocly")}" lint .build/openapi.json --format=stylish`],
  },
];

/** The contract's Solidity tests (Hardhat: unit, fuzz, invariant): a check, run on the other track after
 * the Python lane, where the e2e lane's longer track has no room for it. */
const CONTRACT_TESTS: Check = {
  name: "contract tests (Solidity)",
  command: bin("hardhat"),
  args: ["--config", "contracts/hardhat.config.ts", "test", "solidity"],
  tally(output, code) {
    const text = stripAnsi(output);
    // The summary lines are the last "N passing" / "N failing" / "N skipped" lines of the report.
    const count = (word: string) => Number([...text.matchAll(new RegExp(`^\\s*(\\d+) ${word}\\s*$`, "gm"))].at(-1)?.[1] ?? 0);
    const tally = { passed: count("passing"), failed: count("failing"), skipped: count("skipped") };
    // A crash before any test ran still counts as a failure.
    if (code !== 0 && tally.failed === 0) tally.failed = 1;
    return tally;
  },
};

/** The Python SDK (python/): its pytest suite against a world of its own (scripts/test-python.ts), the
 * wheel installed into a fresh venv; skipped with its reason without Python, a failure under CI=true.
 * It runs after the integration lane, whose track ends well before the e2e lane's. */
const PYTHON: Check = { name: "Python SDK (pytest)", command: "node", args: ["--import", "tsx", "scripts/test-python.ts"], tally: pythonTally };

/** The Python lane, its output printed in one block when it ends (or live, when it runs alone). */
async function pythonLane(live: boolean): Promise<void> {
  const since = Date.now();
  const { code, output } = await run(PYTHON.command, PYTHON.args, live);
  if (!live) process.stdout.write(`\n── ${PYTHON.name} ──\n${output}`);
  record(PYTHON.name, pythonTally(output, code), since);
}

/** The closing "python: N passed, N failed, N skipped" line of scripts/test-python.ts. */
function pythonTally(output: string, code: number): Tally {
  const match = /^python: (\d+) passed, (\d+) failed, (\d+) skipped/m.exec(stripAnsi(output));
  if (!match) return { passed: 0, failed: 1, skipped: 0 };
  const tally = { passed: Number(match[1]), failed: Number(match[2]), skipped: Number(match[3]) };
  if (code !== 0 && tally.failed === 0) tally.failed = 1;
  return tally;
}

/** The checks, one after another; each one's output printed in one block when it ends. */
async function checks(list: Check[] = CHECKS): Promise<void> {
  for (const check of list) {
    const since = Date.now();
    const { code, output } = await run(check.command, check.args, false);
    process.stdout.write(`\n── ${check.name} ──\n${output}`);
    record(check.name, check.tally ? check.tally(output, code) : code === 0 ? { passed: 1, failed: 0, skipped: 0 } : { passed: 0, failed: 1, skipped: 0 }, since);
  }
}

interface VitestReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numFailedTestSuites: number;
  testResults: { name: string; status: string; message?: string; assertionResults: { fullName: string; status: string; failureMessages?: string[] }[] }[];
}

/** The failed tests of one lane's report (a file that failed to load counts as one), each with the first
 * lines of its first failure message. */
function failedTests(project: string, report: VitestReport): string[] {
  // The test's own lines: vitest's and Node's stack frames say nothing about what failed.
  const opening = (message = "") =>
    stripAnsi(message)
      .split("\n")
      .filter((line) => !/node_modules|^\s+at (new Promise|process\.|node:)/.test(line))
      .slice(0, 6)
      .map((line) => `      ${line}`)
      .join("\n");
  return report.testResults.flatMap((file) => {
    const path = file.name.startsWith(root) ? file.name.slice(root.length + 1) : file.name;
    const failed = file.assertionResults.filter((test) => test.status === "failed");
    if (failed.length === 0 && file.status === "failed") return [`  ${project}  ${path}\n${opening(file.message)}`];
    return failed.map((test) => `  ${project}  ${path} > ${test.fullName}\n${opening(test.failureMessages?.[0])}`);
  });
}

/** vitest's report of errors outside any test ("Unhandled Errors", a hook's failure), its first lines. */
function outsideErrors(output: string): string {
  const lines = stripAnsi(output).split("\n");
  const start = lines.findIndex((line) => /Unhandled (Errors?|Rejection)|Error: .*(hook|afterAll|beforeAll)|Errors? occurred/i.test(line));
  if (start < 0) return "      (vitest printed no unhandled error: see the lane's output above)";
  return lines
    .slice(start, start + 40)
    .filter((line) => !/node_modules|^\s+at (new Promise|process\.|node:)/.test(line))
    .slice(0, 24)
    .map((line) => `      ${line}`)
    .join("\n");
}

/** One vitest lane (a project of vitest.config.ts), its output live or (`live` false) printed in one
 * block when it ends. */
async function lane(project: "unit" | "integration" | "e2e", live = true): Promise<void> {
  const name = `${project} tests (vitest)`;
  const since = Date.now();
  if (live) process.stdout.write(`\n── ${name} ──\n`);
  const report = join(root, `.build/vitest-${project}.json`);
  mkdirSync(dirname(report), { recursive: true });
  rmSync(report, { force: true });
  const { code, output } = await run(bin("vitest"), ["run", "--project", project, "--reporter=default", "--reporter=json", `--outputFile.json=${report}`], live);
  if (!live) process.stdout.write(`\n── ${name} ──\n${output}`);
  if (!existsSync(report)) return record(name, { passed: 0, failed: 1, skipped: 0 }, since);
  const result = JSON.parse(readFileSync(report, "utf8")) as VitestReport;
  const before = failures.length;
  failures.push(...failedTests(project, result));
  const tally = { passed: result.numPassedTests, failed: result.numFailedTests, skipped: result.numPendingTests + result.numTodoTests };
  // A suite that failed to load (or an error outside any test) counts as a failure; an error outside any
  // test (an unhandled rejection, a hook's) is named in the failures with vitest's own account of it.
  if (code !== 0 && tally.failed === 0) {
    tally.failed = Math.max(1, result.numFailedTestSuites);
    if (failures.length === before) failures.push(`  ${project}  (no failed test; vitest exited ${code})\n${outsideErrors(output)}`);
  }
  record(name, tally, since);
}

// `node --import tsx scripts/test.ts --only python`: the Python SDK's lane alone, with the totals line.
if (process.argv.includes("--only") && process.argv[process.argv.indexOf("--only") + 1] === "python") {
  await pythonLane(true);
  const t = rows[0]!.tally;
  process.stdout.write(`\n${t.passed} passed, ${t.failed} failed${t.skipped ? `, ${t.skipped} skipped` : ""}\n`);
  process.exit(t.failed > 0 ? 1 : 0);
}

// Two tracks share the machine: the checks then the e2e lane (its output held), beside the unit then
// the integration lanes (live), the Python lane and the contract tests. The checks end well before the
// integration lane, so the e2e lane's browser and stacks overlap only its second half.
await Promise.all([
  (async () => {
    await checks();
    await lane("e2e", false);
  })(),
  (async () => {
    await lane("unit");
    await lane("integration");
    await pythonLane(false);
    await checks([CONTRACT_TESTS]);
  })(),
]);

const total = rows.reduce((sum, { tally }) => ({ passed: sum.passed + tally.passed, failed: sum.failed + tally.failed, skipped: sum.skipped + tally.skipped }), { passed: 0, failed: 0, skipped: 0 });
const line = (t: Tally) => `${t.passed} passed, ${t.failed} failed${t.skipped ? `, ${t.skipped} skipped` : ""}`;
if (failures.length > 0) process.stdout.write(`\n── failed tests ──\n${failures.join("\n")}\n`);
process.stdout.write(
  `\n── totals (${Math.round((Date.now() - started) / 1000)} s) ──\n${rows.map((r) => `  ${r.name.padEnd(28)} ${line(r.tally).padEnd(30)} ${r.seconds.toFixed(0).padStart(4)} s`).join("\n")}\n\n`,
);
process.stdout.write(`${line(total)}\n`);
process.exit(total.failed > 0 ? 1 : 0);

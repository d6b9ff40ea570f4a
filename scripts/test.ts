// `npm test`: every suite of the project, then one closing line with the totals:
// "N passed, N failed" (", N skipped" when any were skipped).
//  - checks: the TypeScript type check (strict), the infrastructure type check (SST), the import
//    boundaries (scripts/check-imports.ts), the Solidity linter
//  - the contract's Solidity tests (Hardhat: unit, fuzz, invariant)
//  - the vitest suites (integration and end-to-end, on real emulators and a real chain)
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
const total: Tally = { passed: 0, failed: 0, skipped: 0 };
const summary: string[] = [];

function run(command: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const tee = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
      output += chunk.toString();
      stream.write(chunk);
    };
    child.stdout.on("data", tee(process.stdout));
    child.stderr.on("data", tee(process.stderr));
    child.on("close", (code) => resolve({ code: code ?? 1, output }));
  });
}

function record(name: string, tally: Tally) {
  total.passed += tally.passed;
  total.failed += tally.failed;
  total.skipped += tally.skipped;
  summary.push(`  ${name.padEnd(28)} ${tally.passed} passed, ${tally.failed} failed${tally.skipped ? `, ${tally.skipped} skipped` : ""}`);
}

async function check(name: string, command: string, args: string[]) {
  process.stdout.write(`\n── ${name} ──\n`);
  const { code } = await run(command, args);
  record(name, code === 0 ? { passed: 1, failed: 0, skipped: 0 } : { passed: 0, failed: 1, skipped: 0 });
}

const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, "");

async function solidityTests() {
  process.stdout.write("\n── contract tests (Solidity) ──\n");
  const { code, output } = await run(bin("hardhat"), ["--config", "contracts/hardhat.config.ts", "test", "solidity"]);
  const text = stripAnsi(output);
  // The summary lines are the last "N passing" / "N failing" / "N skipped" lines of the report.
  const count = (word: string) => Number([...text.matchAll(new RegExp(`^\\s*(\\d+) ${word}\\s*$`, "gm"))].at(-1)?.[1] ?? 0);
  const tally = { passed: count("passing"), failed: count("failing"), skipped: count("skipped") };
  // A crash before any test ran still counts as a failure.
  if (code !== 0 && tally.failed === 0) tally.failed = 1;
  record("contract tests (Solidity)", tally);
}

async function vitest() {
  process.stdout.write("\n── integration tests (vitest) ──\n");
  const report = join(root, ".build/vitest-report.json");
  mkdirSync(dirname(report), { recursive: true });
  rmSync(report, { force: true });
  const { code } = await run(bin("vitest"), ["run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`]);
  if (!existsSync(report)) {
    record("integration tests (vitest)", { passed: 0, failed: 1, skipped: 0 });
    return;
  }
  const result = JSON.parse(readFileSync(report, "utf8")) as { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number; numFailedTestSuites: number };
  const tally = { passed: result.numPassedTests, failed: result.numFailedTests, skipped: result.numPendingTests + result.numTodoTests };
  // A suite that failed to load (or an error outside any test) counts as a failure.
  if (code !== 0 && tally.failed === 0) tally.failed = Math.max(1, result.numFailedTestSuites);
  record("integration tests (vitest)", tally);
}

await check("type check (tsc, strict)", bin("tsc"), ["-p", "tsconfig.json", "--noEmit"]);
await check("infrastructure type check", "bash", ["scripts/check-infra.sh"]);
// Storage calls only in adapters and stores, contract actions only under src/chain/ (docs/design/data-model.md).
await check("import boundaries", "node", ["--import", "tsx", "scripts/check-imports.ts"]);
await check("Solidity lint (solhint)", bin("solhint"), ["-c", "contracts/.solhint.json", "--max-warnings", "0", "contracts/src/**/*.sol"]);
// The OpenAPI document, rendered in-process, linted offline (no telemetry, no update check).
await check("OpenAPI lint (Redocly)", "bash", ["-c", `node --import tsx scripts/openapi-write.ts && REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true "${bin("redocly")}" lint .build/openapi.json --format=stylish`]);
await solidityTests();
await vitest();

process.stdout.write(`\n── totals ──\n${summary.join("\n")}\n\n`);
process.stdout.write(`${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ""}\n`);
process.exit(total.failed > 0 ? 1 : 0);

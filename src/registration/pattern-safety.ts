// The registration-time safety check of a manifest's regular expressions, on the server only: recheck
// (the ReDoS checker) runs on a worker thread, off the event loop, within a bounded time. The patterns
// themselves, their linear-time engine and the caps are the shared core's (packages/core/src/manifest/
// patterns.ts), which the dashboard and the CLI load too; this part needs Node (worker threads).
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import { capErrors, schemaPatterns, PATTERN_LIMITS, type AgentManifest, type ManifestError, type SchemaPattern } from "@agent-rental/core/manifest";

const requireHere = createRequire(import.meta.url);

export interface PatternCheckOptions {
  /** Stops the checks early (the job's own deadline); patterns not reached are refused. */
  signal?: AbortSignal;
}

/** A pattern refused by the safety check, with why. */
export interface UnsafePattern extends SchemaPattern {
  reason: "vulnerable" | "not_shown_safe" | "too_many";
  message: string;
}

/** The pattern checker's thread: loads recheck there (its 3 MB bundle never parses on the service's
 * event loop), checks each pattern with recheck's pure-JavaScript backend (no Java, no native binary)
 * and posts each verdict as it is found. CommonJS source, so it needs no file of its own in a bundle. */
const CHECKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
process.env.RECHECK_SYNC_BACKEND = "pure";
const { checkSync } = require(workerData.recheck);
for (const pattern of workerData.patterns) {
  let d;
  try { d = checkSync(pattern, "u", { timeout: workerData.timeoutMs }); }
  catch (e) { d = { status: "unknown", error: { kind: "unexpected" } }; }
  parentPort.postMessage({
    pattern,
    status: d.status,
    complexity: d.status === "vulnerable" ? d.complexity.type : undefined,
    attack: d.status === "vulnerable" ? String(d.attack.string).slice(0, 40) : undefined,
    error: d.status === "unknown" ? d.error.kind : undefined,
  });
}
`;

interface CheckerVerdict {
  pattern: string;
  status: "safe" | "vulnerable" | "unknown";
  complexity?: "exponential" | "polynomial";
  attack?: string;
  error?: string;
}

/**
 * Runs recheck (the ReDoS checker: automata theory plus fuzzing) on each distinct pattern and lists
 * those that backtrack catastrophically (exponential time), or that could not be shown safe within the
 * time budget. The checks run on a worker thread that is terminated when the manifest's budget is
 * spent, so neither a hostile pattern nor the checker itself can hold the event loop or run unbounded.
 */
export async function findUnsafePatterns(patterns: readonly SchemaPattern[], options: PatternCheckOptions = {}): Promise<UnsafePattern[]> {
  if (patterns.length === 0) return [];
  const distinct = [...new Set(patterns.map((entry) => entry.pattern))];
  const checked = distinct.slice(0, PATTERN_LIMITS.maxPatterns);
  const verdicts = await runChecker(checked, options.signal);
  const unsafe: UnsafePattern[] = [];
  for (const entry of patterns) {
    const found = judge(entry.pattern, checked.includes(entry.pattern), verdicts.get(entry.pattern));
    if (found) unsafe.push({ ...entry, ...found });
  }
  return unsafe;
}

function runChecker(patterns: string[], signal: AbortSignal | undefined): Promise<Map<string, CheckerVerdict>> {
  const verdicts = new Map<string, CheckerVerdict>();
  return new Promise((resolve) => {
    const worker = new Worker(CHECKER_SOURCE, {
      eval: true,
      workerData: { patterns, timeoutMs: PATTERN_LIMITS.checkTimeoutMs, recheck: requireHere.resolve("recheck") },
      env: {},
      stdout: true,
      stderr: true,
    });
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(budget);
      signal?.removeEventListener("abort", finish);
      void worker.terminate();
      resolve(verdicts);
    };
    const budget = setTimeout(finish, PATTERN_LIMITS.manifestBudgetMs);
    signal?.addEventListener("abort", finish, { once: true });
    worker.on("message", (verdict: CheckerVerdict) => {
      verdicts.set(verdict.pattern, verdict);
      if (verdicts.size === patterns.length) finish();
    });
    // a checker that dies leaves its unchecked patterns without a verdict: they are refused, not passed
    worker.on("error", finish);
    worker.on("exit", finish);
  });
}

function judge(pattern: string, checked: boolean, verdict: CheckerVerdict | undefined): Omit<UnsafePattern, "pointer" | "pattern"> | null {
  if (!checked) return { reason: "too_many", message: `The schemas hold more than ${PATTERN_LIMITS.maxPatterns} distinct patterns; use fewer.` };
  if (verdict === undefined) {
    return { reason: "not_shown_safe", message: `The pattern "${clip(pattern)}" could not be checked in the time this manifest's patterns may take; use simpler or fewer patterns.` };
  }
  if (verdict.status === "safe") return null;
  if (verdict.status === "vulnerable") {
    // Polynomial patterns (`\d+\.\d+`, `^\S+@\S+\.\S+$`) are everyday ones and run in linear time
    // here (RE2); only exponential backtracking, where each extra character doubles the time, is refused.
    if (verdict.complexity !== "exponential") return null;
    return {
      reason: "vulnerable",
      message: `The pattern "${clip(pattern)}" backtracks catastrophically (exponential time on inputs such as ${JSON.stringify(verdict.attack ?? "")}); rewrite it without nested or overlapping repetition.`,
    };
  }
  return { reason: "not_shown_safe", message: `The pattern "${clip(pattern)}" could not be shown free of catastrophic backtracking (${verdict.error ?? "unknown"}); simplify it.` };
}

/**
 * The patterns of a manifest that passed {@link validateManifest}, checked for catastrophic
 * backtracking (see the core's patterns.ts): one `unsafe_pattern` error per refused pattern, none when all are
 * safe. Asynchronous: the checks run off the event loop, within a bounded time.
 */
export async function checkManifestPatterns(manifest: AgentManifest, options: PatternCheckOptions = {}): Promise<ManifestError[]> {
  const patterns = [...schemaPatterns(manifest.input_schema, "/input_schema"), ...schemaPatterns(manifest.output_schema, "/output_schema")];
  const unsafe = await findUnsafePatterns(patterns, options);
  return capErrors(unsafe.map((entry) => ({ pointer: entry.pointer, code: "unsafe_pattern" as const, message: entry.message })));
}

function clip(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

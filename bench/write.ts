// `npm run bench -- <names> --write`: each benchmark's printed figures go into its page,
// docs/benchmarks/<name>.md, between two markers, with when and where they were measured; the rest of
// the page (what it measures, its target, its history) is written by hand and never touched. The
// index, docs/benchmarks/README.md, gets each page's target and latest status in a marked block of its
// own (also rebuilt by `npm run generate:docs`, so a hand edit of a page's target reaches it).
import { cpus, loadavg } from "node:os";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const BENCH_DOCS_DIR = join(dirname(fileURLToPath(import.meta.url)), "../docs/benchmarks");

export const FIGURES_START = "<!-- bench-figures:start";
export const FIGURES_END = "<!-- bench-figures:end -->";
export const INDEX_START = "<!-- bench-index:start";
export const INDEX_END = "<!-- bench-index:end -->";

/** One benchmark's run, as printed. */
export interface BenchRun {
  name: string;
  /** When the benchmark started. */
  startedAt: Date;
  /** `process.version`. */
  node: string;
  cpus: number;
  /** The one-minute load average when the benchmark started (other work on the machine). */
  load: number;
  /** The rows the benchmark printed, figures and ratios, as printed. */
  rows: string[];
}

/** The machine as a run saw it: how many cores and how busy. */
export function machineNow(): Pick<BenchRun, "node" | "cpus" | "load"> {
  return { node: process.version, cpus: cpus().length, load: loadavg()[0] ?? 0 };
}

/** A printed row that calibrates the machine (how fast it starts a bare process), if the bench prints one. */
export function calibrationOf(rows: readonly string[]): string | undefined {
  return rows.find((row) => /^\s*this machine now:/i.test(row))?.trim();
}

/** The generated block of a benchmark's page: when, where, and the figures as printed. */
export function renderFigures(run: BenchRun): string {
  const calibration = calibrationOf(run.rows);
  const where = [`${run.startedAt.toISOString().slice(0, 16).replace("T", " ")} UTC`, `Node ${run.node}`, `${run.cpus} cores, load average ${run.load.toFixed(1)}`];
  return [
    `${FIGURES_START}: written by \`npm run bench -- ${run.name} --write\`; edit the page outside these markers -->`,
    "## Latest run",
    "",
    `${where.join(" · ")}${calibration ? `; calibration: ${calibration.replace(/^this machine now:\s*/i, "")}` : ""}`,
    "",
    "```",
    ...run.rows.map((row) => row.replace(/\s+$/, "")),
    "```",
    FIGURES_END,
  ].join("\n");
}

/** Replaces the text between `start` (a marker's opening) and `end` (a whole marker) with `block`
 * (which carries both markers); when the page has none, `block` goes before its first `## History`
 * heading, or at its end. The hand-written text around it is left exactly as it was. */
export function replaceBlock(page: string, block: string, start: string, end: string): string {
  const from = page.indexOf(start);
  if (from >= 0) {
    const to = page.indexOf(end, from);
    if (to < 0) throw new Error(`the page has "${start}" without its end marker "${end}"`);
    return page.slice(0, from) + block + page.slice(to + end.length);
  }
  const history = page.search(/^## History\b/m);
  if (history >= 0) return `${page.slice(0, history)}${block}\n\n${page.slice(history)}`;
  return `${page.replace(/\s*$/, "")}\n\n${block}\n`;
}

/** A page with its figures block replaced by this run's. */
export function withFigures(page: string, run: BenchRun): string {
  return replaceBlock(page, renderFigures(run), FIGURES_START, FIGURES_END);
}

interface PageFacts {
  name: string;
  title: string;
  target: string;
  status: string;
}

/** The paragraph that starts with `label` on a line of its own, as one line, without its final period. */
function paragraphAfter(page: string, label: string): string | undefined {
  const from = page.split("\n").findIndex((line) => line.startsWith(label));
  if (from < 0) return undefined;
  const lines = page.split("\n").slice(from);
  const end = lines.findIndex((line) => !line.trim());
  const text = (end < 0 ? lines : lines.slice(0, end)).join(" ").slice(label.length);
  return text.replace(/\s+/g, " ").trim().replace(/\.$/, "");
}

/** A page's title, its hand-written target and its latest status: the written run's verdicts when the
 * page has one, else its hand-written `**Status:**` line. */
export function factsOf(name: string, page: string): PageFacts {
  const title = /^# (.+)$/m.exec(page)?.[1]?.trim() ?? name;
  const target = paragraphAfter(page, "**Target:**") ?? "none";
  const handWritten = paragraphAfter(page, "**Status:**") ?? "not measured yet";
  const from = page.indexOf(FIGURES_START);
  if (from < 0) return { name, title, target, status: handWritten };
  const block = page.slice(from, page.indexOf(FIGURES_END, from));
  const date = /^(\d{4}-\d{2}-\d{2}) \d{2}:\d{2} UTC/m.exec(block)?.[1] ?? "";
  // Rows state a verdict as "target <what>: met" (or "MISSED"), sometimes with the figure before it.
  const verdicts = [...block.matchAll(/target[^\n]*?:\s*(?:[\d.,]+\s+)?(met|missed|not met)\b/gi)].map((match) => (match[1]!.toLowerCase() === "met" ? "met" : "missed"));
  const missed = verdicts.filter((verdict) => verdict === "missed").length;
  const verdict = !verdicts.length ? "figures recorded" : missed ? `missed (${missed} of ${verdicts.length})` : verdicts.length === 1 ? "met" : `met (all ${verdicts.length})`;
  return { name, title, target, status: `${verdict}, ${date} (written by --write)` };
}

/** The index's generated block: one row per benchmark page. */
export function renderIndex(pages: readonly PageFacts[]): string {
  const cell = (text: string) => text.replace(/\|/g, "\\|");
  return [
    `${INDEX_START}: rebuilt by \`npm run bench -- <names> --write\` and \`npm run generate:docs\` from the pages below -->`,
    "| benchmark | command | target | latest status |",
    "|---|---|---|---|",
    ...pages.map((page) => `| [${cell(page.title)}](${page.name}.md) | \`npm run bench -- ${page.name}\` | ${cell(page.target)} | ${cell(page.status)} |`),
    INDEX_END,
  ].join("\n");
}

/** The benchmark pages of a folder (every `<name>.md` but the index), by name. */
export function benchPages(dir = BENCH_DOCS_DIR): { name: string; file: string }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((file) => file.endsWith(".md") && file !== "README.md")
    .sort()
    .map((file) => ({ name: basename(file, ".md"), file: join(dir, file) }));
}

/** The index page's text with its generated block rebuilt from the pages as they are. */
export function indexText(dir = BENCH_DOCS_DIR): string {
  const file = join(dir, "README.md");
  const page = readFileSync(file, "utf8");
  const facts = benchPages(dir).map(({ name, file: path }) => factsOf(name, readFileSync(path, "utf8")));
  return replaceBlock(page, renderIndex(facts), INDEX_START, INDEX_END);
}

/** Writes each run into its page (a new page gets a title and the block), then rebuilds the index.
 * Returns the files written. */
export function writeBenchRuns(runs: readonly BenchRun[], dir = BENCH_DOCS_DIR): string[] {
  const written: string[] = [];
  for (const run of runs) {
    const file = join(dir, `${run.name}.md`);
    const page = existsSync(file) ? readFileSync(file, "utf8") : `# ${run.name}\n\n**Target:** none\n`;
    writeFileSync(file, withFigures(page, run));
    written.push(file);
  }
  if (existsSync(join(dir, "README.md"))) {
    writeFileSync(join(dir, "README.md"), indexText(dir));
    written.push(join(dir, "README.md"));
  }
  return written;
}

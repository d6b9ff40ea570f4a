// `npm run bench -- <names> --write` puts each benchmark's printed figures into its page between two
// markers and rebuilds the index's table; everything written by hand around them must survive untouched.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { FIGURES_END, FIGURES_START, INDEX_END, INDEX_START, calibrationOf, factsOf, renderFigures, withFigures, writeBenchRuns, type BenchRun } from "../../bench/write.ts";

const run = (rows: string[], startedAt = "2030-01-02T03:04:05Z"): BenchRun => ({ name: "search", startedAt: new Date(startedAt), node: "v22.23.3", cpus: 2, load: 1.25, rows });

const PAGE = [
  "# Catalogue search",
  "",
  "What it measures, by hand.",
  "",
  "**Target:** p95 under 10 ms",
  "in every class.",
  "",
  "**Status:** met, 2026-11-22.",
  "",
  "## History",
  "",
  "2026-11-22: a table written by hand.",
  "",
].join("\n");

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("bench --write", () => {
  it("inserts the figures block before the History of a page that has none, leaving the rest as it was", () => {
    const written = withFigures(PAGE, run(["text query: p50 0.35 ms, p95 1.34 ms; target p95 < 10 ms: met"]));
    const [before, after] = [written.slice(0, written.indexOf(FIGURES_START)), written.slice(written.indexOf(FIGURES_END) + FIGURES_END.length)];
    expect(before).toBe(PAGE.slice(0, PAGE.indexOf("## History")));
    expect(after).toBe(`\n\n${PAGE.slice(PAGE.indexOf("## History"))}`);
    expect(written).toContain("2030-01-02 03:04 UTC · Node v22.23.3 · 2 cores, load average 1.3");
    expect(written).toContain("text query: p50 0.35 ms, p95 1.34 ms; target p95 < 10 ms: met");
  });

  it("replaces only the block on a second write: the hand-written text around it is byte for byte the same", () => {
    const first = withFigures(PAGE, run(["old figure 1", "old figure 2"]));
    const edited = first.replace("What it measures, by hand.", "What it measures, edited by hand after the first write.");
    const second = withFigures(edited, run(["new figure"], "2030-02-01T00:00:00Z"));
    expect(second).not.toContain("old figure");
    expect(second).toContain("new figure");
    expect(second.split(FIGURES_START)[0]).toBe(edited.split(FIGURES_START)[0]);
    expect(second.split(FIGURES_END)[1]).toBe(edited.split(FIGURES_END)[1]);
    expect(second.match(new RegExp(FIGURES_START, "g"))).toHaveLength(1);
  });

  it("appends the block to a page without a History heading", () => {
    const page = "# Startup\n\n**Target:** under 15 s\n";
    const written = withFigures(page, run(["stack start: p50 2.9 s"]));
    expect(written.startsWith("# Startup\n\n**Target:** under 15 s\n\n")).toBe(true);
    expect(written.trimEnd().endsWith(FIGURES_END)).toBe(true);
  });

  it("refuses a page whose figures block has lost its end marker, rather than cutting the page", () => {
    const broken = withFigures(PAGE, run(["a"])).replace(FIGURES_END, "");
    expect(() => withFigures(broken, run(["b"]))).toThrow(/end marker/);
  });

  it("carries the machine's calibration when the benchmark prints one", () => {
    const rows = ["this machine now: a bare `node -e 0` takes p50 78.0 ms, p95 84.0 ms (sequential, n=10)", "one request at a time: p50 29.5 ms"];
    expect(calibrationOf(rows)).toMatch(/^this machine now/);
    expect(renderFigures(run(rows))).toContain("; calibration: a bare `node -e 0` takes p50 78.0 ms");
    expect(renderFigures(run(["a figure, and no machine line"]))).not.toContain("; calibration:");
  });

  it("reads a page's status from its written run's verdicts, else from the hand-written line", () => {
    expect(factsOf("search", PAGE)).toEqual({ name: "search", title: "Catalogue search", target: "p95 under 10 ms in every class", status: "met, 2026-11-22" });
    const met = withFigures(PAGE, run(["a: target < 10 ms: met", "b: target < 10 ms: met"]));
    expect(factsOf("search", met).status).toBe("met (all 2), 2030-01-02 (written by --write)");
    const missed = withFigures(PAGE, run(["a: target < 10 ms: MISSED", "b: target <= 5000 gas/run: 535 met", "c: target < 10 s: NOT met"]));
    expect(factsOf("search", missed).status).toBe("missed (2 of 3), 2030-01-02 (written by --write)");
  });

  it("writes each run into its page and rebuilds the index's table, leaving the index's own text alone", () => {
    const dir = mkdtempSync(join(tmpdir(), "bench-pages-"));
    dirs.push(dir);
    const index = `# Benchmarks\n\nBy hand.\n\n${INDEX_START} -->\n(stale)\n${INDEX_END}\n\nAlso by hand.\n`;
    writeFileSync(join(dir, "README.md"), index);
    writeFileSync(join(dir, "search.md"), PAGE);
    writeFileSync(join(dir, "gas.md"), "# Contract gas\n\n**Target:** ≤ 1.25x\n\n**Status:** met, 2026-11-25.\n");
    const files = writeBenchRuns([run(["q: target p95 < 10 ms: met"])], dir);
    expect(files.map((file) => file.slice(dir.length + 1))).toEqual(["search.md", "README.md"]);
    expect(readFileSync(join(dir, "gas.md"), "utf8")).toBe("# Contract gas\n\n**Target:** ≤ 1.25x\n\n**Status:** met, 2026-11-25.\n");
    const rebuilt = readFileSync(join(dir, "README.md"), "utf8");
    expect(rebuilt.startsWith("# Benchmarks\n\nBy hand.\n\n")).toBe(true);
    expect(rebuilt.endsWith(`${INDEX_END}\n\nAlso by hand.\n`)).toBe(true);
    expect(rebuilt).not.toContain("(stale)");
    expect(rebuilt).toContain("| [Contract gas](gas.md) | `npm run bench -- gas` | ≤ 1.25x | met, 2026-11-25 |");
    expect(rebuilt).toContain("| [Catalogue search](search.md) | `npm run bench -- search` | p95 under 10 ms in every class | met, 2030-01-02 (written by --write) |");
  });
});

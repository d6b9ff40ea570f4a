// The import-circle check (scripts/check-circles.ts, run by `npm test`): how imports are read, which
// graphs hold a circle and how it is reported, and that src/ holds none.
import { describe, expect, it } from "vitest";
import { circlesOf, importsOf, sourceGraph } from "../../scripts/check-circles.ts";

describe("import circles", () => {
  it("reads every relative import of a module, type-only, re-exports and import() included, and nothing else", () => {
    const text = [
      'import type { JobRecord } from "./jobs.ts";',
      'import { applied, type Tables } from "../adapters/tables/dynamo.ts";',
      'export { getJob } from "./job.store.ts";',
      'const later = () => import("../listings/catalogue.ts");',
      'let t: import("./types.ts").T;',
      'import { z } from "zod";',
      'import { CATEGORIES } from "@agent-rental/core/vocabulary";',
      '// import { x } from "./commented.ts";',
    ].join("\n");
    expect(importsOf("src/registration/job.store.ts", text).sort()).toEqual([
      "src/adapters/tables/dynamo.ts",
      "src/listings/catalogue.ts",
      "src/registration/job.store.ts",
      "src/registration/jobs.ts",
      "src/registration/types.ts",
    ]);
  });

  it("finds each circle once, as the path that closes it, and none in a graph without one", () => {
    const graph = new Map<string, string[]>([
      ["src/creators/creators.ts", ["src/creators/creator.store.ts", "src/errors.ts"]],
      ["src/creators/creator.store.ts", ["src/creators/creators.ts", "src/adapters/tables/dynamo.ts"]],
      ["src/errors.ts", []],
      ["src/adapters/tables/dynamo.ts", []],
      ["src/a.ts", ["src/b.ts"]],
      ["src/b.ts", ["src/c.ts"]],
      ["src/c.ts", ["src/a.ts", "src/errors.ts"]],
      ["src/self.ts", ["src/self.ts"]],
      ["src/leaf.ts", ["node_modules/x.ts"]],
    ]);
    expect(circlesOf(graph)).toEqual([
      ["src/a.ts", "src/b.ts", "src/c.ts", "src/a.ts"],
      ["src/creators/creator.store.ts", "src/creators/creators.ts", "src/creators/creator.store.ts"],
      ["src/self.ts", "src/self.ts"],
    ]);
    const acyclic = new Map<string, string[]>([
      ["src/creators/creators.ts", ["src/creators/creator.store.ts"]],
      ["src/creators/creator.store.ts", ["src/adapters/tables/dynamo.ts"]],
      ["src/adapters/tables/dynamo.ts", []],
    ]);
    expect(circlesOf(acyclic)).toEqual([]);
  });

  it("reports the shortest way round a component with several cycles", () => {
    const graph = new Map<string, string[]>([
      ["src/a.ts", ["src/b.ts", "src/d.ts"]],
      ["src/b.ts", ["src/c.ts"]],
      ["src/c.ts", ["src/a.ts"]],
      ["src/d.ts", ["src/a.ts"]],
    ]);
    expect(circlesOf(graph)).toEqual([["src/a.ts", "src/d.ts", "src/a.ts"]]);
  });

  // Parsing every module of src/ is seconds of CPU: beside the other lanes on a loaded machine it has
  // taken 31 s, so it gets room of its own.
  it("src/ has none", () => {
    const graph = sourceGraph();
    expect(graph.size).toBeGreaterThan(100);
    expect(circlesOf(graph)).toEqual([]);
  }, 120_000);
});

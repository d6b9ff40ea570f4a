// The one-vocabulary check (scripts/check-vocabulary.ts): what counts as a second definition of one of
// the product's lists, and that the project holds none.
import { describe, expect, it } from "vitest";
import { copiesOf, scanProject } from "../../scripts/check-vocabulary.ts";

const found = (text: string, file = "src/listings/catalogue.ts") => copiesOf(file, text).map((c) => [c.line, c.list]);

describe("the one-vocabulary check", () => {
  it("finds a list copied as an array, a z.enum, a union type or an enum map, in any order", () => {
    const text = [
      'const MODELS = ["one_time", "subscription", "per_query"] as const;',
      'const schema = z.enum(["pending", "approved", "rejected"]);',
      'type Status = "failed" | "queued" | "completed";',
      "const ACCESS = { one_time: 0, subscription: 1, per_query: 2 } as const;",
      'const statuses = ["none", "active", "paused", "closed"];',
      "type Outcome = `completed` | `failed`;",
    ].join("\n");
    expect(found(text)).toEqual([
      [1, "RENTAL_MODELS"],
      [2, "REVIEW_STATUSES"],
      [3, "JOB_STATUSES"],
      [4, "RENTAL_MODELS"],
      [5, "CHAIN_LISTING_STATUSES"],
      [6, "FINISHED_RUN_STATUSES"],
    ]);
  });

  it("finds three or more values of one list as a partial copy, in .tsx files too", () => {
    expect(found('const allowed = ["active", "expired", "low_balance"] as const;')).toEqual([[1, "CREDENTIAL_STATUSES"]]);
    expect(found('export const Badge = () => <span>{(["finance", "legal", "coding"] as const).length}</span>;', "web/src/ui/Badge.tsx")).toEqual([[1, "CATEGORIES"]]);
  });

  it("leaves test data, mixed lists, two values that are not a whole list, and words in comments or strings", () => {
    const text = [
      'const runs = ["completed", "failed", "completed", "failed"];',
      'const mixed = ["one_time", "subscription", "weekly"];',
      'const two = ["active", "paused"];',
      'const label = { one_time: "One-time", subscription: "Subscription", per_query: "Per-Task" };',
      '// ["one_time", "subscription", "per_query"]',
      'const usage = "--status pending|approved|rejected";',
      'const single = z.literal("queued");',
    ].join("\n");
    expect(found(text)).toEqual([]);
  });

  it("leaves the vocabulary itself alone", () => {
    expect(found('export const RENTAL_MODELS = ["one_time", "subscription", "per_query"] as const;', "packages/core/src/vocabulary.ts")).toEqual([]);
  });

  it("finds no second definition of any list in the project", () => {
    const { copies, files } = scanProject();
    expect(files).toBeGreaterThan(100);
    expect(copies.map((c) => `${c.file}:${c.line} copies ${c.list}`)).toEqual([]);
  }, 120_000); // reads every source file: about 5 s alone, over 30 s beside the other lanes on 2 cores
});

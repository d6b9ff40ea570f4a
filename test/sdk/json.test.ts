// Wei amounts reach SDK users exactly, as bigint, above 2^53: a run's cost_wei, a streamed done event's,
// and any `*_wei` integer, through the reviver's source text (Node 22+, browsers) and through the
// regex pre-pass used where the runtime has no source text (Node 20).
import { describe, expect, it } from "vitest";
import { HAS_JSON_SOURCE, parseJson, parseJsonWithPrepass, parseJsonWithSource } from "../../sdk/src/json.ts";
import type { Run } from "@agent-rental/sdk";

const ABOVE = 2n ** 53n + 1n; // 9007199254740993: a double cannot hold it
const HUGE = 10n ** 30n + 7n;

const run = `{"run_id":"run_1","agent_id":"a-1234abcd","status":"completed","output":{"note":"cost_wei\\": 1, \\"x_wei\\":2"},"cost_wei":${ABOVE},"duration_ms":12}`;
const detail = `{"run": {"cost_wei" : ${HUGE} , "nested": [{"balance_wei":${ABOVE}}, {"paid_wei": -${ABOVE}}]}, "count": ${ABOVE}, "label_wei": "123"}`;

describe.each([
  ["the reviver's source text", parseJsonWithSource],
  ["the regex pre-pass (Node 20)", parseJsonWithPrepass],
])("wei amounts through %s", (_name, parse) => {
  it("a run's cost_wei above 2^53 is the exact bigint; string values are untouched", () => {
    if (parse === parseJsonWithSource && !HAS_JSON_SOURCE) return;
    const parsed = parse<Run>(run);
    expect(parsed.cost_wei).toBe(ABOVE);
    expect(parsed.output).toEqual({ note: 'cost_wei": 1, "x_wei":2' });
    expect(parsed.duration_ms).toBe(12);
  });

  it("a streamed done event's data keeps cost_wei exact", () => {
    if (parse === parseJsonWithSource && !HAS_JSON_SOURCE) return;
    const done = parse<Run>(`{"run_id":"run_2","agent_id":"a","status":"failed","output":"partial","cost_wei":${HUGE},"duration_ms":3}`);
    expect(done.cost_wei).toBe(HUGE);
  });

  it("balances and every *_wei integer at any depth are bigints; other numbers stay numbers; a *_wei string stays a string", () => {
    if (parse === parseJsonWithSource && !HAS_JSON_SOURCE) return;
    const parsed = parse<{ run: { cost_wei: bigint; nested: [{ balance_wei: bigint }, { paid_wei: bigint }] }; count: number; label_wei: string }>(detail);
    expect(parsed.run.cost_wei).toBe(HUGE);
    expect(parsed.run.nested[0].balance_wei).toBe(ABOVE);
    expect(parsed.run.nested[1].paid_wei).toBe(-ABOVE);
    expect(typeof parsed.count).toBe("number");
    expect(parsed.label_wei).toBe("123");
  });
});

describe("parseJson", () => {
  it("uses source text where the runtime has it (Node 22 here) and gives the same values as the pre-pass", () => {
    expect(HAS_JSON_SOURCE).toBe(Number(process.versions.node.split(".")[0]) >= 22);
    expect(parseJson(detail)).toEqual(parseJsonWithPrepass(detail));
    expect(parseJson<Run>(run).cost_wei).toBe(ABOVE);
  });
});

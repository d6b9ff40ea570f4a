// json_transform's language, step by step, and its limits: every documented step and comparison on
// real data, malformed programs refused with the reason, no prototype reached, work bounded.
import { describe, expect, it } from "vitest";
import { createJsonTransform, JSON_TRANSFORM_LIMITS, runJsonTransform } from "./json-transform.ts";

const orders = {
  customer: { name: "Ada", tier: "gold", "a/b": 1, "c~d": 2 },
  items: [
    { sku: "p-1", name: "Pen", price: 2.5, qty: 10, tags: ["office"], region: "eu" },
    { sku: "p-2", name: "Desk", price: 180, qty: 1, tags: ["furniture", "office"], region: "us" },
    { sku: "p-3", name: "Lamp", price: 35, qty: 2, tags: [], region: "eu" },
    { sku: "p-4", name: "Chair", price: 95, qty: 4, region: null },
  ],
};

describe("json_transform steps", () => {
  it("get follows RFC 6901 pointers, with escapes, and gives null for a missing path", () => {
    expect(runJsonTransform(orders, { get: "/customer/name" })).toBe("Ada");
    expect(runJsonTransform(orders, { get: "/items/1/sku" })).toBe("p-2");
    expect(runJsonTransform(orders, { get: "/customer/a~1b" })).toBe(1);
    expect(runJsonTransform(orders, { get: "/customer/c~0d" })).toBe(2);
    expect(runJsonTransform(orders, { get: "/items/9/sku" })).toBeNull();
    expect(runJsonTransform(orders, { get: "" })).toEqual(orders);
  });

  it("pick selects fields by pointer, keeping the last token as the key or renaming", () => {
    expect(runJsonTransform(orders, { pick: ["/customer/name", "/customer/tier"] })).toEqual({ name: "Ada", tier: "gold" });
    expect(runJsonTransform(orders, { pick: { who: "/customer/name", first: "/items/0/sku" } })).toEqual({ who: "Ada", first: "p-1" });
  });

  it("omit, rename and set reshape an object's keys", () => {
    const customer = [{ get: "/customer" }];
    expect(runJsonTransform(orders, [...customer, { omit: ["a/b", "c~d"] }])).toEqual({ name: "Ada", tier: "gold" });
    expect(runJsonTransform(orders, [...customer, { omit: ["a/b", "c~d"] }, { rename: { name: "customer" } }])).toEqual({ customer: "Ada", tier: "gold" });
    expect(runJsonTransform(orders, [...customer, { pick: ["/name"] }, { set: { vip: true, score: 3 } }])).toEqual({ name: "Ada", vip: true, score: 3 });
  });

  it("map runs a sub-program on each element; object builds computed fields", () => {
    expect(runJsonTransform(orders, [{ get: "/items" }, { map: { get: "/sku" } }])).toEqual(["p-1", "p-2", "p-3", "p-4"]);
    expect(
      runJsonTransform(orders, {
        object: { customer: { get: "/customer/name" }, skus: [{ get: "/items" }, { map: { get: "/sku" } }, { join: "," }], count: [{ get: "/items" }, { count: true }] },
      }),
    ).toEqual({ customer: "Ada", skus: "p-1,p-2,p-3,p-4", count: 4 });
  });

  it("filter and find with each comparison", () => {
    const skus = (cond: unknown) => runJsonTransform(orders, [{ get: "/items" }, { filter: cond }, { map: { get: "/sku" } }]);
    expect(skus({ path: "/price", gt: 35 })).toEqual(["p-2", "p-4"]);
    expect(skus({ path: "/price", gte: 35 })).toEqual(["p-2", "p-3", "p-4"]);
    expect(skus({ path: "/price", lt: 35 })).toEqual(["p-1"]);
    expect(skus({ path: "/price", lte: 35, gt: 2.5 })).toEqual(["p-3"]);
    expect(skus({ path: "/region", eq: "eu" })).toEqual(["p-1", "p-3"]);
    expect(skus({ path: "/region", ne: "eu" })).toEqual(["p-2", "p-4"]);
    expect(skus({ path: "/region", in: ["us", null] })).toEqual(["p-2", "p-4"]);
    expect(skus({ path: "/tags", contains: "office" })).toEqual(["p-1", "p-2"]);
    expect(skus({ path: "/name", contains: "a" })).toEqual(["p-3", "p-4"]);
    expect(skus({ path: "/name", startsWith: "D" })).toEqual(["p-2"]);
    expect(skus({ path: "/name", endsWith: "r" })).toEqual(["p-4"]);
    expect(skus({ path: "/tags", exists: false })).toEqual(["p-4"]);
    expect(skus({ path: "/region", type: "null" })).toEqual(["p-4"]);
    expect(skus({ or: [{ path: "/qty", gte: 10 }, { path: "/price", gte: 100 }] })).toEqual(["p-1", "p-2"]);
    expect(skus({ and: [{ path: "/region", eq: "eu" }, { not: { path: "/qty", eq: 10 } }] })).toEqual(["p-3"]);
    expect(skus({ path: "/price", gt: "100" })).toEqual([]); // a number is never ordered against a string
    expect(runJsonTransform(orders, [{ get: "/items" }, { find: { path: "/qty", eq: 2 } }, { get: "/name" }])).toBe("Lamp");
    expect(runJsonTransform(orders, [{ get: "/items" }, { find: { path: "/qty", eq: 99 } }])).toBeNull();
  });

  it("sort is stable, ascending or descending, with missing and null values last", () => {
    const names = (sort: unknown) => runJsonTransform(orders, [{ get: "/items" }, { sort }, { map: { get: "/name" } }]);
    expect(names("/price")).toEqual(["Pen", "Lamp", "Chair", "Desk"]);
    expect(names({ by: "/price", order: "desc" })).toEqual(["Desk", "Chair", "Lamp", "Pen"]);
    expect(names({ by: "/region" })).toEqual(["Pen", "Lamp", "Desk", "Chair"]);
    expect(names({ by: "/region", order: "desc" })).toEqual(["Desk", "Pen", "Lamp", "Chair"]);
  });

  it("slice, unique, flatten, group and the aggregates", () => {
    const items = [{ get: "/items" }];
    expect(runJsonTransform(orders, [...items, { slice: [1, 3] }, { map: { get: "/sku" } }])).toEqual(["p-2", "p-3"]);
    expect(runJsonTransform(orders, [...items, { slice: [-1] }, { map: { get: "/sku" } }])).toEqual(["p-4"]);
    expect(runJsonTransform(orders, [...items, { unique: "/region" }, { map: { get: "/sku" } }])).toEqual(["p-1", "p-2", "p-4"]);
    expect(runJsonTransform([1, { a: 1 }, 1, { a: 1 }], { unique: true })).toEqual([1, { a: 1 }]);
    expect(runJsonTransform(orders, [...items, { map: { get: "/tags" } }, { flatten: true }, { unique: true }])).toEqual(["office", "furniture", null]);
    expect(runJsonTransform(orders, [...items, { group: "/region" }])).toMatchObject({ eu: [{ sku: "p-1" }, { sku: "p-3" }], us: [{ sku: "p-2" }], null: [{ sku: "p-4" }] });
    expect(runJsonTransform(orders, [...items, { sum: "/qty" }])).toBe(17);
    expect(runJsonTransform(orders, [...items, { min: "/price" }])).toBe(2.5);
    expect(runJsonTransform(orders, [...items, { max: "/price" }])).toBe(180);
    expect(runJsonTransform(orders, [...items, { avg: "/qty" }])).toBe(4.25);
    expect(runJsonTransform([], { avg: "/x" })).toBeNull();
    expect(runJsonTransform([], { sum: "/x" })).toBe(0);
  });

  it("keys, values, entries, fromEntries, literal and default", () => {
    const customer = { get: "/customer" };
    expect(runJsonTransform(orders, [customer, { keys: true }])).toEqual(["name", "tier", "a/b", "c~d"]);
    expect(runJsonTransform(orders, [customer, { pick: ["/name"] }, { values: true }])).toEqual(["Ada"]);
    expect(runJsonTransform(orders, [customer, { pick: ["/name"] }, { entries: true }])).toEqual([{ key: "name", value: "Ada" }]);
    expect(runJsonTransform([["a", 1], { key: "b", value: 2 }], { fromEntries: true })).toEqual({ a: 1, b: 2 });
    expect(runJsonTransform(orders, { literal: { fixed: [1, 2] } })).toEqual({ fixed: [1, 2] });
    expect(runJsonTransform(orders, [{ get: "/missing" }, { default: "none" }])).toBe("none");
    expect(runJsonTransform(orders, [{ get: "/customer/name" }, { default: "none" }])).toBe("Ada");
  });
});

describe("json_transform safety", () => {
  it("refuses malformed programs with the reason", () => {
    expect(() => runJsonTransform(orders, { get: "customer" })).toThrow('program.get: "customer" is not a JSON pointer (it starts with "/")');
    expect(() => runJsonTransform(orders, { get: "/a", pick: ["/b"] })).toThrow(/a step has exactly one key/);
    expect(() => runJsonTransform(orders, { eval: "1+1" })).toThrow(/unknown step "eval"/);
    expect(() => runJsonTransform(orders, [])).toThrow(/an empty list of steps/);
    expect(() => runJsonTransform(orders, { filter: { path: "/a", matches: ".*" } })).toThrow(/unknown comparison "matches"/);
    expect(() => runJsonTransform(orders, { filter: { path: "/a", in: "x" } })).toThrow(/in: a list of values/);
    expect(() => runJsonTransform(orders, { count: 1 })).toThrow('write {"count": true}');
    expect(() => runJsonTransform(orders, undefined)).toThrow(/program is required/);
    expect(() => runJsonTransform(orders, { sum: "/items" })).toThrow("sum needs an array, got object");
  });

  it("never reads or writes an object's prototype", () => {
    expect(runJsonTransform({ a: 1 }, { get: "/constructor" })).toBeNull();
    expect(runJsonTransform({ a: 1 }, { get: "/__proto__" })).toBeNull();
    expect(runJsonTransform({ a: "x" }, { get: "/a/length" })).toBeNull();
    const polluted = runJsonTransform({ a: 1 }, { rename: { a: "__proto__" } }) as Record<string, unknown>;
    expect(Object.getPrototypeOf(polluted)).toBe(Object.prototype);
    expect(Object.hasOwn(polluted, "__proto__")).toBe(true);
    expect(JSON.stringify(polluted)).toBe('{"__proto__":1}');
    runJsonTransform({}, { set: JSON.parse('{"__proto__": {"polluted": true}}') });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("bounds program size and depth, data size and work", () => {
    const many = Array.from({ length: JSON_TRANSFORM_LIMITS.maxProgramNodes + 1 }, () => ({ get: "" }));
    expect(() => runJsonTransform(1, many)).toThrow(`the program has more than ${JSON_TRANSFORM_LIMITS.maxProgramNodes} steps`);
    let deep: unknown = { get: "" };
    for (let i = 0; i < JSON_TRANSFORM_LIMITS.maxProgramDepth + 1; i++) deep = { map: deep };
    expect(() => runJsonTransform([], deep)).toThrow(`the program nests deeper than ${JSON_TRANSFORM_LIMITS.maxProgramDepth} levels`);
    expect(() => runJsonTransform("x".repeat(JSON_TRANSFORM_LIMITS.maxDataBytes + 1), { get: "" })).toThrow(/data is larger than/);
    // 600 × 600 elements, three steps each: over the work budget
    const wide = Array.from({ length: 600 }, () => Array.from({ length: 600 }, () => 0));
    expect(() => runJsonTransform(wide, [{ map: [{ map: [{ get: "" }, { get: "" }, { get: "" }] }] }])).toThrow(`the program does more than ${JSON_TRANSFORM_LIMITS.maxWork} steps of work`);
  });

  it("the tool transforms the run's input when the model passes no data", async () => {
    const tool = createJsonTransform({ rows: [{ v: 1 }, { v: 2 }] });
    await expect(tool.execute({ program: [{ get: "/rows" }, { sum: "/v" }] }, new AbortController().signal)).resolves.toEqual({ result: 3 });
    await expect(tool.execute({ data: [5], program: { count: true } }, new AbortController().signal)).resolves.toEqual({ result: 1 });
    await expect(tool.execute("nope", new AbortController().signal)).rejects.toThrow("the arguments must be an object {data?, program}");
  });
});

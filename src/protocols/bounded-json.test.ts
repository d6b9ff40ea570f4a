// Agent-produced JSON is bounded in depth and size before anything recursive reads it.
import { describe, expect, it } from "vitest";
import { JSON_LIMITS, jsonDepth, parseBoundedJson } from "./bounded-json.ts";

const deepArray = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
const deepObject = (depth: number) => '{"a":'.repeat(depth - 1) + "{}" + "}".repeat(depth - 1);

describe("parseBoundedJson", () => {
  it("parses JSON within the bounds, scalars and empty containers included", () => {
    expect(parseBoundedJson('{"findings":["a","b"],"n":1}')).toEqual({ ok: true, value: { findings: ["a", "b"], n: 1 } });
    expect(parseBoundedJson('"text"')).toEqual({ ok: true, value: "text" });
    expect(parseBoundedJson("null")).toEqual({ ok: true, value: null });
    expect(parseBoundedJson("[]")).toEqual({ ok: true, value: [] });
  });

  it("refuses an answer nested 20,000 levels deep as too_deep, without a RangeError", () => {
    expect(parseBoundedJson(deepArray(20_000))).toMatchObject({ ok: false, reason: "too_deep" });
    expect(parseBoundedJson(deepObject(20_000))).toMatchObject({ ok: false, reason: "too_deep" });
    expect(parseBoundedJson(`{"output":${deepArray(20_000)}}`)).toMatchObject({ ok: false, reason: "too_deep", message: `the JSON nests deeper than ${JSON_LIMITS.maxDepth} levels` });
  });

  it("accepts exactly the maximum depth and refuses one level more, for arrays and objects alike", () => {
    expect(parseBoundedJson(deepArray(JSON_LIMITS.maxDepth))).toMatchObject({ ok: true });
    expect(parseBoundedJson(deepArray(JSON_LIMITS.maxDepth + 1))).toMatchObject({ ok: false, reason: "too_deep" });
    expect(parseBoundedJson(deepObject(JSON_LIMITS.maxDepth))).toMatchObject({ ok: true });
    expect(parseBoundedJson(deepObject(JSON_LIMITS.maxDepth + 1))).toMatchObject({ ok: false, reason: "too_deep" });
    expect(parseBoundedJson(deepArray(3), { maxDepth: 3 })).toMatchObject({ ok: true });
    expect(parseBoundedJson(deepArray(4), { maxDepth: 3 })).toMatchObject({ ok: false, reason: "too_deep" });
  });

  it("does not count brackets inside strings, escaped quotes and backslashes included", () => {
    const brackets = "[".repeat(1000);
    expect(parseBoundedJson(JSON.stringify({ text: brackets }))).toEqual({ ok: true, value: { text: brackets } });
    // an escaped quote does not end the string: the brackets after it are still text
    const tricky = `say \\"${"{".repeat(500)}\\" and \\\\`;
    expect(parseBoundedJson(`{"text":"${tricky}"}`)).toEqual({ ok: true, value: { text: `say "${"{".repeat(500)}" and \\` } });
    // a string ending in an escaped backslash ends there: the brackets after it count
    expect(jsonDepth(`["a\\\\",[[1]]]`)).toBe(3);
    expect(parseBoundedJson(`["a\\\\",[[1]]]`, { maxDepth: 2 })).toMatchObject({ ok: false, reason: "too_deep" });
  });

  it("refuses text longer than the size bound as too_large, exactly at the bound passes", () => {
    const atLimit = JSON.stringify("x".repeat(JSON_LIMITS.maxChars - 2));
    expect(atLimit.length).toBe(JSON_LIMITS.maxChars);
    expect(parseBoundedJson(atLimit)).toMatchObject({ ok: true });
    expect(parseBoundedJson(JSON.stringify("x".repeat(JSON_LIMITS.maxChars - 1)))).toMatchObject({ ok: false, reason: "too_large" });
    expect(parseBoundedJson('"abcdef"', { maxChars: 7 })).toMatchObject({ ok: false, reason: "too_large" });
  });

  it("answers invalid_json for text that is not JSON, and never throws", () => {
    for (const text of ["", "{", "{not json}", "[1,]", "]]]]", '"unterminated']) expect(parseBoundedJson(text)).toMatchObject({ ok: false, reason: "invalid_json" });
  });
});

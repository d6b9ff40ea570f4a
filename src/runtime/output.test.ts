// Output shaping (text or JSON, wrapping non-object roots), the streamed JSON of a step, failure reasons
// and the scrubbing of secrets from them.
import { describe, expect, it } from "vitest";
import { describeFailure, RunDeadlineError, scrub } from "./errors.ts";
import { JsonStepStream, outputShape, unwrap } from "./output.ts";
import { agentSandboxNeeds } from "./sandbox.ts";
import { userMessage } from "./agent.ts";

describe("outputShape", () => {
  it("answers in text for a plain string schema or a schema that constrains nothing", () => {
    expect(outputShape({ type: "string" })).toEqual({ kind: "text" });
    expect(outputShape({ type: "string", description: "The memo", maxLength: 4000 })).toEqual({ kind: "text" });
    expect(outputShape({})).toEqual({ kind: "text" });
    expect(outputShape({ description: "anything" })).toEqual({ kind: "text" });
  });

  it("answers in JSON for an object schema, as is", () => {
    const schema = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: { a: { type: "string" } }, required: ["a"] };
    expect(outputShape(schema)).toEqual({ kind: "json", wrapped: false, schema: { type: "object", properties: { a: { type: "string" } }, required: ["a"] } });
    expect(outputShape({ properties: { a: { type: "number" } } })).toMatchObject({ kind: "json", wrapped: false, schema: { type: "object" } });
  });

  it("wraps any other root in {value}, lifting definitions and re-pointing local references", () => {
    expect(outputShape({ type: "string", enum: ["yes", "no"] })).toEqual({
      kind: "json",
      wrapped: true,
      schema: { type: "object", properties: { value: { type: "string", enum: ["yes", "no"] } }, required: ["value"], additionalProperties: false },
    });
    const tree = { type: "array", items: { $ref: "#/$defs/node" }, $defs: { node: { type: "object", properties: { children: { $ref: "#" }, first: { $ref: "#/items" } } } } };
    expect(outputShape(tree)).toEqual({
      kind: "json",
      wrapped: true,
      schema: {
        type: "object",
        properties: { value: { type: "array", items: { $ref: "#/$defs/node" } } },
        required: ["value"],
        additionalProperties: false,
        $defs: { node: { type: "object", properties: { children: { $ref: "#/properties/value" }, first: { $ref: "#/properties/value/items" } } } },
      },
    });
    expect(outputShape({ anyOf: [{ type: "string" }, { type: "number" }] })).toMatchObject({ wrapped: true });
    expect(outputShape({ type: ["object", "null"], properties: {} })).toMatchObject({ wrapped: true });
    expect(unwrap({ kind: "json", wrapped: true, schema: {} }, { value: [1, 2] })).toEqual([1, 2]);
    expect(unwrap({ kind: "json", wrapped: false, schema: {} }, { value: [1, 2] })).toEqual({ value: [1, 2] });
  });
});

describe("JsonStepStream", () => {
  const feed = (wrapped: boolean, chunks: string[]) => {
    const stream = new JsonStepStream(wrapped);
    return chunks.map((chunk) => stream.push(chunk));
  };

  it("passes an object's JSON through, whitespace before it dropped", () => {
    expect(feed(false, ["  ", '{"a"', ":1}"]).join("")).toBe('{"a":1}');
  });

  it("does not stream a step of prose", () => {
    expect(feed(false, ["Let me ", "check {"])).toEqual(["", ""]);
    expect(feed(true, ["I will", ' {"value":1}'])).toEqual(["", ""]);
  });

  it("cuts the wrapper off in any chunking, so the deltas join to the inner JSON", () => {
    const text = '{ "value" : [{"n":0},{"m":{"x":1}}] }';
    const inner = '[{"n":0},{"m":{"x":1}}]';
    for (let size = 1; size <= text.length; size++) {
      const chunks = text.match(new RegExp(`[\\s\\S]{1,${size}}`, "g")) ?? [];
      const out = feed(true, chunks);
      expect(out.join("")).toBe(inner);
    }
    expect(feed(true, ['{"value":"a}b"}']).join("")).toBe('"a}b"');
    expect(feed(true, ['{"valu', 'x":1}']).join("")).toBe("");
  });
});

describe("failure reasons", () => {
  const apiError = (statusCode: number | undefined, extra: Record<string, unknown> = {}) => Object.assign(new Error("provider said: key sk-abc"), { name: "AI_APICallError", statusCode, ...extra });

  it("say what happened, never what the provider echoed", () => {
    expect(describeFailure(apiError(429))).toBe("the model provider answered 429 (rate limited)");
    expect(describeFailure(Object.assign(new Error("Failed after 3 attempts. Last error: x"), { name: "AI_RetryError", lastError: apiError(503) }))).toBe("the model provider answered 503 (unavailable) after 3 attempts");
    expect(describeFailure(apiError(401))).toBe("the model provider answered 401 (the key was refused)");
    expect(describeFailure(apiError(418))).toBe("the model provider answered 418 (request refused)");
    expect(describeFailure(apiError(200, { cause: new TypeError("terminated") }))).toBe("the model stream was cut off");
    expect(describeFailure(apiError(undefined, { cause: Object.assign(new Error("connect"), { code: "ECONNREFUSED" }) }))).toBe("the agent's model could not be reached");
    expect(describeFailure(Object.assign(new Error("Egress refused: 10.0.0.1 is a private address."), { name: "EgressRefusedError" }))).toBe("the agent's model could not be reached");
    expect(describeFailure(Object.assign(new Error("No object generated"), { name: "AI_NoObjectGeneratedError" }))).toBe("the model's answer is not JSON matching the output schema");
    expect(describeFailure(new RunDeadlineError())).toBe("the run reached its time limit");
    expect(describeFailure(new Error("something with sk-abc"))).toBe("the agent run failed unexpectedly (Error)");
  });

  it("scrub removes a secret and any 8-character piece of a long one", () => {
    const key = "sk-live-0123456789abcdef";
    expect(scrub(`bad key ${key}!`, [key])).toBe("bad key [redacted]!");
    expect(scrub("key ending in 89abcdef was refused", [key])).toBe("key ending in [redacted] was refused");
    expect(scrub("nothing here", [null, undefined, "ab"])).toBe("nothing here");
  });
});

describe("run inputs", () => {
  it("puts the input after the task: text as given, an object as indented JSON", () => {
    expect(userMessage("Summarise", null)).toBe("Summarise");
    expect(userMessage("Summarise", "the report")).toBe("Summarise\n\nInput:\nthe report");
    expect(userMessage("Summarise", { a: [1] })).toBe('Summarise\n\nInput (JSON):\n{\n  "a": [\n    1\n  ]\n}');
  });

  it("asks for a sandbox with native addons only for agents with js_eval", () => {
    expect(agentSandboxNeeds([{ name: "js_eval", scope: "default" }])).toEqual({ allowAddons: true });
    expect(agentSandboxNeeds([{ name: "http_fetch", scope: "api.example.com" }])).toEqual({ allowAddons: false });
    expect(agentSandboxNeeds(undefined)).toEqual({ allowAddons: false });
  });
});

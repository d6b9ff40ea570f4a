// js_eval: JavaScript in a fresh V8 isolate (isolated-vm) per call, with the scope's heap limit and
// time limit. The isolate has the language and nothing else: no require, no process, no network, no
// timers, no host objects. The value of the script's last expression comes back as JSON.
import type { ParsedScope } from "@agent-rental/core/manifest";
import { ToolInputError, type RuntimeTool } from "./types.ts";

type JsEvalScope = Extract<ParsedScope, { tool: "js_eval" }>;

/** The part of isolated-vm the tool uses. */
export interface IsolatedVm {
  Isolate: new (options: { memoryLimit: number }) => {
    createContext(): Promise<{ global: { set(key: string, value: unknown): Promise<void> }; eval(code: string, options: { timeout: number; copy: true }): Promise<unknown>; release(): void }>;
    dispose(): void;
    readonly isDisposed: boolean;
  };
}

export const JS_EVAL_LIMITS = {
  maxCodeChars: 64 * 1024,
  maxResultChars: 64 * 1024,
} as const;

/** Evaluates the code (a script string held in the isolate) and returns its completion value as JSON
 * text; `undefined` becomes null, and a value JSON cannot hold is reported by its type. */
const HARNESS = `(() => {
  const value = (0, eval)(__code);
  if (value !== null && typeof value === "object" && typeof value.then === "function") throw new Error("the script returned a promise; return a value (there is no I/O to wait for)");
  if (value === undefined) return "null";
  const text = JSON.stringify(value);
  if (text === undefined) return JSON.stringify("[" + typeof value + "]");
  return text;
})()`;

export function createJsEval(scope: JsEvalScope, ivm: IsolatedVm): RuntimeTool {
  return {
    description: `Evaluate JavaScript (ECMAScript, no modules) in an empty sandbox: no network, files, timers or host objects; at most ${scope.timeoutMs} ms and ${scope.memoryMb} MB. The value of the last expression is returned as JSON (use it for arithmetic, parsing and data processing).`,
    inputSchema: {
      type: "object",
      properties: { code: { type: "string", description: "A script; its last expression is the result, e.g. `[1,2,3].map(x => x * 2)`" } },
      required: ["code"],
      additionalProperties: false,
    },
    async execute(raw) {
      const code = raw !== null && typeof raw === "object" ? (raw as Record<string, unknown>).code : undefined;
      if (typeof code !== "string" || code.length === 0) throw new ToolInputError("code must be a non-empty string");
      if (code.length > JS_EVAL_LIMITS.maxCodeChars) throw new ToolInputError(`code is longer than ${JS_EVAL_LIMITS.maxCodeChars} characters`);
      const isolate = new ivm.Isolate({ memoryLimit: scope.memoryMb });
      try {
        const context = await isolate.createContext();
        await context.global.set("__code", code);
        let text: unknown;
        try {
          text = await context.eval(HARNESS, { timeout: scope.timeoutMs, copy: true });
        } catch (error) {
          throw new ToolInputError(describeScriptError(error, scope, isolate.isDisposed));
        }
        if (typeof text !== "string") throw new ToolInputError("the script produced no result");
        if (text.length > JS_EVAL_LIMITS.maxResultChars) throw new ToolInputError(`the result is longer than ${JS_EVAL_LIMITS.maxResultChars} characters`);
        return { result: JSON.parse(text) as unknown };
      } finally {
        if (!isolate.isDisposed) isolate.dispose();
      }
    },
  };
}

function describeScriptError(error: unknown, scope: JsEvalScope, disposed: boolean): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/timed out/i.test(message)) return `the script ran longer than ${scope.timeoutMs} ms and was stopped`;
  if (disposed || /memory limit/i.test(message)) return `the script used more than ${scope.memoryMb} MB and was stopped`;
  const name = error instanceof Error && error.name !== "Error" ? `${error.name}: ` : "";
  return `the script threw ${name}${message}`.slice(0, 1000);
}

// The esbuild plugin that trims what the agent runtime's bundles load (the sandbox bundle, scripts/
// build-runtime.ts, and the cloud runner, stacks/runner-plugins.mjs):
//  - the undici package: Node's own fetch and the Agent class of the undici inside Node, with undici's
//    small connector builder for the egress guard's checked connections;
//  - the AI gateway provider, which `ai` loads for string model ids (the runtime always passes a model);
//  - zod's translated error messages other than English.
// Plain JavaScript so the cloud build (SST's esbuild) can load it as well.
import { join } from "node:path";

/** @param {string} root the repository root (where node_modules is) */
export function runtimeTrimPlugin(root) {
  const undici = join(root, "node_modules/undici/lib/core/connect.js");
  const zodEnglish = join(root, "node_modules/zod/v4/locales/en.js");
  return {
    name: "runtime-trim",
    setup(b) {
      b.onResolve({ filter: /^undici$/ }, () => ({ path: "undici", namespace: "runtime-shim" }));
      b.onResolve({ filter: /^@ai-sdk\/gateway$/ }, () => ({ path: "gateway", namespace: "runtime-shim" }));
      b.onResolve({ filter: /\/locales\/index\.js$/ }, (args) => (/[\\/]zod[\\/]/.test(args.importer) ? { path: "zod-locales", namespace: "runtime-shim" } : undefined));
      b.onLoad({ filter: /^undici$/, namespace: "runtime-shim" }, () => ({
        resolveDir: root,
        loader: "js",
        contents: `
import buildConnector from ${JSON.stringify(undici)};
// Node's fetch is undici; its global dispatcher (registered under this well-known symbol) is an Agent.
void globalThis.Headers;
const builtin = globalThis[Symbol.for("undici.globalDispatcher.1")];
if (!builtin || typeof builtin.constructor !== "function" || builtin.constructor.name !== "Agent") throw new Error("this Node.js has no built-in undici Agent");
export const Agent = builtin.constructor;
export { buildConnector };
export const fetch = (input, init) => globalThis.fetch(input, init);
`,
      }));
      b.onLoad({ filter: /^gateway$/, namespace: "runtime-shim" }, () => ({
        loader: "js",
        contents: `
const unavailable = () => { throw new Error("the AI gateway is not part of the agent runtime; pass a model"); };
export class GatewayError extends Error { static isInstance() { return false; } }
export class GatewayAuthenticationError extends GatewayError {}
export const createGateway = unavailable;
export const gateway = unavailable;
`,
      }));
      b.onLoad({ filter: /^zod-locales$/, namespace: "runtime-shim" }, () => ({ resolveDir: root, loader: "js", contents: `export { default as en } from ${JSON.stringify(zodEnglish)};` }));
    },
  };
}

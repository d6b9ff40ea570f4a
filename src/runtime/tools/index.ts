// The agent's tools for one run, built from the manifest's {name, scope} entries: each scope is parsed
// again with the catalogue's parser and the tool is configured from the parsed scope only, so a tool can
// reach exactly what registration accepted and nothing by default.
import { parseToolScope, type ManifestTool, type ToolName } from "@agent-rental/core/manifest";
import { AgentRunError } from "../errors.ts";
import type { RunEgress } from "../egress.ts";
import type { AgentSearchProvider } from "../payload.ts";
import { createHttpFetch } from "./http-fetch.ts";
import { createJsEval, type IsolatedVm } from "./js-eval.ts";
import { createJsonTransform } from "./json-transform.ts";
import type { RuntimeTool } from "./types.ts";
import { createWebSearch } from "./web-search.ts";

export interface ToolContext {
  egress: RunEgress;
  /** The run's input (json_transform's default data). */
  input: unknown;
  search?: AgentSearchProvider;
  /** Loads isolated-vm (a native addon); only called when the agent has js_eval. */
  loadIsolatedVm(): Promise<IsolatedVm>;
}

/** The configured tools by name. Throws AgentRunError when the agent cannot run with its tools. */
export async function buildTools(tools: readonly ManifestTool[] | undefined, context: ToolContext): Promise<Map<ToolName, RuntimeTool>> {
  const built = new Map<ToolName, RuntimeTool>();
  for (const entry of tools ?? []) {
    const parsed = parseToolScope(entry?.name, entry?.scope);
    if (!parsed.ok) throw new AgentRunError(`the agent's tool ${String(entry?.name).slice(0, 40)} has a scope that does not parse: ${parsed.problems[0] ?? "invalid scope"}`);
    const scope = parsed.scope;
    if (built.has(scope.tool)) throw new AgentRunError(`the agent lists the tool ${scope.tool} twice`);
    switch (scope.tool) {
      case "http_fetch":
        built.set("http_fetch", createHttpFetch(scope, context.egress));
        break;
      case "json_transform":
        built.set("json_transform", createJsonTransform(context.input));
        break;
      case "js_eval": {
        let ivm: IsolatedVm;
        try {
          ivm = await context.loadIsolatedVm();
        } catch {
          throw new AgentRunError("the js_eval tool needs a sandbox that allows native addons (isolated-vm could not be loaded)");
        }
        built.set("js_eval", createJsEval(scope, ivm));
        break;
      }
      case "web_search":
        if (!context.search) throw new AgentRunError("the web_search tool is not available: the service has no search provider configured");
        built.set("web_search", createWebSearch(scope, context.search, context.egress));
        break;
      case "pdf_extract":
        throw new AgentRunError("the pdf_extract tool is not available in this runtime, so an agent that declares it cannot run");
    }
  }
  return built;
}

// What the execution domain hands the agent runtime for one run of a declarative agent, and what the
// runtime answers. The payload travels to a fresh sandbox (a local child process, or the cloud runner
// function) as JSON and is the whole of what the run can see: the agent definition, the task, the
// input, and the creator's provider key decrypted for this run only. Nothing reaches the runtime
// through its environment.
import type { ManifestTool } from "@agent-rental/core/manifest";
import type { Provider } from "@agent-rental/core/vocabulary";

export interface AgentRunPayload {
  runId: string;
  agent: {
    provider: Provider;
    /** The model name (for self_hosted, the manifest's `model` or "default"). */
    model: string;
    /** The API base URL: the configured provider_a / provider_b base URL, or the manifest's
     * endpoint_url for self_hosted (OpenAI-compatible, "/chat/completions" is appended by the client). */
    baseUrl: string;
    /** The creator's provider key for this listing, or null when none is set (self_hosted may need none). */
    apiKey: string | null;
    systemPrompt: string;
    tools: ManifestTool[];
    /** The declared output schema (JSON Schema). The runtime produces output to it; the service
     * validates the result against it again after the run. */
    outputSchema: Record<string, unknown>;
  };
  task: string;
  /** The run's input, already checked against the agent's input_schema by the service. */
  input: string | Record<string, unknown> | null;
  /** Egress rules for every outbound connection of the run (model endpoint, tools). */
  egress: {
    allowPrivate: boolean;
    allowHosts: string[];
    /** Local development and tests only: fixed addresses for host names, used instead of DNS (like
     * curl's `--resolve`), e.g. `{"api.example.com": "127.0.0.1"}`. The addresses are still judged by
     * the egress rules: a loopback address is refused unless the host is in `allowHosts`. */
    resolve?: Record<string, string>;
  };
  /** The service's web search provider, for agents with the `web_search` tool; such an agent is refused
   * when it is absent. The key is used for the search calls only and never shown to the model. */
  search?: AgentSearchProvider;
  /** Tool steps the model may take before it must answer. */
  maxSteps: number;
}

/** A web search API the `web_search` tool calls: the Brave Search web API (`GET <url>?q=&count=`, key in
 * `X-Subscription-Token`) or a SearXNG instance (`GET <url>?q=&format=json`, key as a bearer token). */
export interface AgentSearchProvider {
  kind: "brave" | "searxng";
  /** The search endpoint, e.g. `https://api.search.brave.com/res/v1/web/search` or `https://searx.example.org/search`. */
  url: string;
  apiKey: string | null;
}

/** The entry's return value for a completed run. */
export interface AgentRunOutput {
  output: unknown;
  usage?: { inputTokens?: number; outputTokens?: number };
  /** Tool calls made, by tool name, for the run record (never their arguments). */
  toolCalls?: Record<string, number>;
}

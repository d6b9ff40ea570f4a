// The agent's model, as an AI SDK language model whose every request goes through the run's egress
// guard: provider_a speaks OpenAI chat completions, provider_b Anthropic messages, self_hosted any
// OpenAI-compatible chat completions endpoint. Each provider's client is imported when a run needs it
// (the bundle keeps each in its own chunk), so a run loads one provider's code, not three.
import type { LanguageModel } from "ai";
import type { EgressGuard } from "../adapters/egress/guard.ts";
import { AgentRunError } from "./errors.ts";
import type { AgentRunPayload } from "./payload.ts";

export async function createModel(agent: AgentRunPayload["agent"], guard: EgressGuard): Promise<LanguageModel> {
  const fetch = ((url: string | URL, init?: RequestInit) => guard.fetch(url, init)) as typeof globalThis.fetch;
  const baseURL = agent.baseUrl;
  const apiKey = agent.apiKey ?? undefined;
  if (typeof baseURL !== "string" || !/^https?:\/\//i.test(baseURL)) throw new AgentRunError("the agent's model endpoint is not an http(s) URL");
  if (typeof agent.model !== "string" || agent.model === "") throw new AgentRunError("the agent names no model");
  switch (agent.provider) {
    case "provider_a": {
      if (apiKey === undefined) throw new AgentRunError("no model provider key is set for this listing");
      const { createOpenAI } = await import("@ai-sdk/openai");
      return createOpenAI({ baseURL, apiKey, fetch }).chat(agent.model);
    }
    case "provider_b": {
      if (apiKey === undefined) throw new AgentRunError("no model provider key is set for this listing");
      const { createAnthropic } = await import("@ai-sdk/anthropic");
      return createAnthropic({ baseURL, apiKey, fetch })(agent.model);
    }
    case "self_hosted": {
      const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
      return createOpenAICompatible({ name: "self-hosted", baseURL, fetch, supportsStructuredOutputs: true, includeUsage: true, ...(apiKey === undefined ? {} : { apiKey }) })(agent.model);
    }
    default:
      throw new AgentRunError(`unknown model provider "${String(agent.provider).slice(0, 40)}"`);
  }
}

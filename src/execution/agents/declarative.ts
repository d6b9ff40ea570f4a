// A declarative agent: data (model, system prompt, tools, schemas) that our agent runtime runs in a
// fresh sandbox per run (the sandbox port: a child process locally, the runner function in the cloud).
// The creator's provider key travels in the run's payload and nowhere else.
import { RunDeadlineError } from "../../runtime/errors.ts";
import type { AgentRunOutput, AgentRunPayload } from "../../runtime/payload.ts";
import { agentSandboxNeeds } from "../../runtime/sandbox.ts";
import { MAX_TOOL_STEPS, SANDBOX_MEMORY_MB } from "../limits.ts";
import type { AgentKind } from "./port.ts";

const RUN_DEADLINE_REASON = new RunDeadlineError().message;

export const declarativeAgent: AgentKind = {
  secret: "provider_key",
  async run(services, call) {
    const { manifest } = call;
    const model = manifest.model;
    const apiKey = await call.secret;
    if (apiKey === null && model.provider !== "self_hosted") {
      return { status: "failed", error: { code: "agent_not_configured", message: "The agent's creator has not set a model-provider key for this listing yet." } };
    }
    const payload: AgentRunPayload = {
      runId: call.runId,
      agent: {
        provider: model.provider,
        model: model.provider === "self_hosted" ? (model.model ?? "default") : model.model,
        baseUrl: model.provider === "self_hosted" ? model.endpoint_url : model.provider === "provider_a" ? services.config.PROVIDER_A_BASE_URL : services.config.PROVIDER_B_BASE_URL,
        apiKey,
        systemPrompt: manifest.system_prompt ?? "",
        tools: manifest.tools,
        outputSchema: manifest.output_schema,
      },
      task: call.task,
      input: call.input,
      egress: services.egressRules,
      ...(services.config.SEARCH_API_URL ? { search: { kind: services.config.SEARCH_API_KIND, url: services.config.SEARCH_API_URL, apiKey: services.config.SEARCH_API_KEY ?? null } } : {}),
      maxSteps: MAX_TOOL_STEPS,
    };
    const result = await services.sandbox().run(
      { runId: call.runId, entry: services.runtimeEntry, payload, timeoutMs: call.timeoutMs, memoryMb: SANDBOX_MEMORY_MB, ...agentSandboxNeeds(manifest.tools) },
      (event) => call.onDelta(event.delta),
    );
    if (result.status === "completed") return { status: "completed", output: (result.output as AgentRunOutput | undefined)?.output ?? null };
    const error = result.error ?? { code: "crashed", message: "the sandbox ended without a result" };
    // The runtime stops a run at its own deadline a moment before the sandbox would kill it; either way
    // the run ran out of time, and says so with one code.
    const code = error.code === "entry_error" ? (error.message === RUN_DEADLINE_REASON ? "timeout" : "agent_error") : error.code;
    return { status: "failed", error: { code, message: error.message } };
  },
};

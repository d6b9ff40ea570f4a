// A connected agent: it runs on its creator's servers, so a run is one Standard Webhooks-signed POST to
// the manifest's entrypoint_url through the egress guard (webhook.ts), signed with the listing's webhook
// secret. Nothing of the creator's runs in our processes.
import type { AgentKind } from "./port.ts";
import { callConnectedAgent } from "./webhook.ts";

export const connectedAgent: AgentKind = {
  secret: "webhook_secret",
  async run(services, call) {
    const secret = await call.secret;
    if (secret === null) return { status: "failed", error: { code: "agent_not_configured", message: "The agent's creator has not created its webhook signing secret yet." } };
    return callConnectedAgent({
      guard: services.egress,
      url: call.manifest.entrypoint_url!,
      secret,
      runId: call.runId,
      agentId: call.agentId,
      listingId: call.listingId,
      task: call.task,
      input: call.input,
      timeoutMs: call.timeoutMs,
      stream: call.stream,
      onDelta: call.onDelta,
    });
  },
};

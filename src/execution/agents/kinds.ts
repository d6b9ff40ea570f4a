// The agent kind of a listing, by the `kind` registration recorded.
import type { AgentKind } from "./port.ts";
import { connectedAgent } from "./connected.ts";
import { declarativeAgent } from "./declarative.ts";

const KINDS: Record<"declarative" | "connected", AgentKind> = { declarative: declarativeAgent, connected: connectedAgent };

export function agentKind(kind: "declarative" | "connected"): AgentKind {
  return KINDS[kind];
}

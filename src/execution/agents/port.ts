// The two kinds of agent behind one port. A declarative agent is data our runtime runs in a fresh
// sandbox (declarative.ts); a connected agent runs on its creator's servers and is called by a signed
// webhook (connected.ts). Performing a run (perform.ts) does not know which it calls.
import type { Services } from "../services.ts";
import type { AgentManifest } from "@agent-rental/core/manifest";
import type { RunFailure } from "../runs/run.ts";

/** How an agent's part of a run ended. A failure's message is shown to the renter. */
export type AgentOutcome = { status: "completed"; output: unknown } | { status: "failed"; error: RunFailure };

/** One run, as an agent kind receives it. */
export interface AgentCall {
  runId: string;
  agentId: string;
  listingId: string;
  /** The agent's private logic (its validated manifest). */
  manifest: AgentManifest;
  task: string;
  /** The input, already checked against the agent's input schema; null when none was sent. */
  input: string | Record<string, unknown> | null;
  /** The run's time budget (the manifest's, or the caller's lower one). */
  timeoutMs: number;
  /** The listing's secret of the kind's `secret` sort; null when its creator has not set one. */
  secret: Promise<string | null>;
  /** Whether the renter is streaming (a connected agent may answer either way). */
  stream: boolean;
  /** Each piece of output as the agent produces it. */
  onDelta(delta: string): void;
}

export interface AgentKind {
  /** The listing secret this kind's runs need: a model-provider key, or the webhook signing secret. */
  readonly secret: "provider_key" | "webhook_secret";
  /** Runs the agent's part of one run. Never rejects for a failure of the agent (that is a failed
   * outcome); a rejection is a defect of ours. */
  run(services: Services, call: AgentCall): Promise<AgentOutcome>;
}

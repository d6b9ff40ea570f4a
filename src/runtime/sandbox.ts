// What the sandbox of a declarative agent's run must allow, decided from the manifest before the run is
// started (the execution domain passes it into the RunSpec).
import type { ManifestTool } from "@agent-rental/core/manifest";

/** The bundled runtime's file name, inside the directory `scripts/build-runtime.ts` writes. */
export const RUNTIME_ENTRY_FILE = "agent.mjs";

export interface AgentSandboxNeeds {
  /** js_eval runs in isolated-vm, a native addon: the run needs a sandbox started with `--allow-addons`. */
  allowAddons: boolean;
}

export function agentSandboxNeeds(tools: readonly ManifestTool[] | undefined): AgentSandboxNeeds {
  return { allowAddons: (tools ?? []).some((entry) => entry?.name === "js_eval") };
}

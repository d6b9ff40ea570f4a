// A rented agent's tool name and description, from its listing: the same names wherever the tools are
// offered (the SDK's adapters and stdio MCP server, the API's remote MCP endpoint).
import { AGENT_TOOL_NAME } from "./definition.ts";

const MAX_DESCRIPTION = 1024;
const MAX_SLUG = 48;

/** A tool name from a title: lower-case words joined by underscores. */
export function toolNameOf(title: string): string {
  const slug = title
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, MAX_SLUG)
    .replace(/_+$/, "");
  return slug === "" ? "agent" : slug;
}

/** A per-agent tool's description: the listing's title and description. */
export function agentToolDescription(title: string, description: string): string {
  return `${title}: ${description}`.slice(0, MAX_DESCRIPTION);
}

/**
 * Unique tool names for agents, from their titles: a clash gets the start of the on-chain id appended
 * (then a counter). Answers name by listing id; the same agents always get the same names.
 */
export function nameAgentTools(agents: { id: string; title: string; on_chain_id: string }[], reserved: string[] = [AGENT_TOOL_NAME]): Map<string, string> {
  const taken = new Set(reserved);
  const names = new Map<string, string>();
  const sorted = [...agents].sort((a, b) => toolNameOf(a.title).localeCompare(toolNameOf(b.title)) || a.id.localeCompare(b.id));
  for (const agent of sorted) {
    const base = toolNameOf(agent.title);
    const suffix = agent.on_chain_id.slice(2, 10).toLowerCase();
    let name = base;
    if (taken.has(name)) name = `${base}_${suffix}`;
    for (let n = 2; taken.has(name); n++) name = `${base}_${suffix}_${n}`;
    taken.add(name);
    names.set(agent.id, name);
  }
  return names;
}

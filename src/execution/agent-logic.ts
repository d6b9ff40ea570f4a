// The agent's private logic (its validated manifest), opened for a run: the sealed blob is fetched and
// decrypted under the listing's data key. Opened logic and its compiled input/output validators are
// kept in this process for a few minutes (logic never changes for a listing: a new version is a new
// registration), so a busy listing does not pay a blob read and a key unwrap per run.
import type { ValidateFunction } from "ajv";
import type { Services } from "../services.ts";
import type { AgentManifest } from "../registration/manifest.ts";
import { compileJsonSchema } from "../registration/manifest.ts";
import { open } from "../registration/sealed.ts";
import { processCache } from "../cache.ts";

export interface AgentLogic {
  manifest: AgentManifest;
  validateInput: ValidateFunction;
  validateOutput: ValidateFunction;
}

const TTL_MS = 5 * 60_000;
const cache = processCache<{ logic: AgentLogic; until: number }>(256);

export async function loadAgentLogic(services: Services, agent: { listing_id: string; logic_blob: string; logic_key: string }): Promise<AgentLogic> {
  const key = `${agent.listing_id}|${agent.logic_blob}`;
  const hit = cache.get(services.blobs, key);
  if (hit && hit.until > Date.now()) return hit.logic;
  const sealed = await services.blobs.get(agent.logic_blob);
  if (!sealed) throw new Error(`the agent logic of ${agent.listing_id} is missing`);
  const dataKey = await services.keys.unwrap(agent.logic_key, { purpose: "agent_logic", listing_id: agent.listing_id });
  let manifest: AgentManifest;
  try {
    manifest = JSON.parse(Buffer.from(open(dataKey, sealed, `agent_logic:${agent.listing_id}`)).toString("utf8")) as AgentManifest;
  } finally {
    dataKey.fill(0);
  }
  const input = compileJsonSchema(manifest.input_schema);
  const output = compileJsonSchema(manifest.output_schema);
  if (!input.ok || !output.ok) throw new Error(`the schemas of ${agent.listing_id} no longer compile`);
  const logic = { manifest, validateInput: input.validate, validateOutput: output.validate };
  cache.set(services.blobs, key, { logic, until: Date.now() + TTL_MS });
  return logic;
}

/** The validator's errors as one short line with JSON pointers ("/a must be string; /b ..."). */
export function describeSchemaErrors(validate: ValidateFunction, limit = 5): string {
  const errors = validate.errors ?? [];
  const lines = errors.slice(0, limit).map((e) => `${e.instancePath === "" ? "(root)" : e.instancePath} ${e.message ?? "is invalid"}`);
  return lines.join("; ") + (errors.length > limit ? `; and ${errors.length - limit} more` : "");
}

// The agent's private logic (its validated manifest), opened for a run: the sealed blob is fetched and
// decrypted under the listing's data key. Opened logic and its compiled input/output validators are
// kept in this process for a few minutes (logic never changes for a listing: a new version is a new
// registration), so a busy listing does not pay a blob read and a key unwrap per run.
import type { ValidateFunction } from "ajv";
import type { Services } from "./services.ts";
import { compileJsonSchema, type AgentManifest } from "@agent-rental/core/manifest";
import { open } from "../registration/sealed.ts";
import { processCache } from "../cache.ts";

export interface AgentLogic {
  manifest: AgentManifest;
  validateInput: ValidateFunction;
  validateOutput: ValidateFunction;
  /** Set when the stored schemas cannot be compiled any more (a manifest registered before patterns
   * had to run on the linear-time engine, with a backreference or lookaround): why. Both validators
   * then refuse every value with this reason, so such an agent's runs fail before it is called. */
  unrunnable?: string;
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
  let logic: AgentLogic;
  if (input.ok && output.ok) logic = { manifest, validateInput: input.validate, validateOutput: output.validate };
  else {
    const which = !input.ok ? "input_schema" : "output_schema";
    const reason = `the agent's ${which} cannot be checked safely by this service (${(!input.ok ? input.message : !output.ok ? output.message : "").slice(0, 200)}); its creator must register a new version`;
    logic = { manifest, validateInput: refuseAll(reason), validateOutput: refuseAll(reason), unrunnable: reason };
  }
  cache.set(services.blobs, key, { logic, until: Date.now() + TTL_MS });
  return logic;
}

/** A validator that refuses every value with `reason`: a run of an agent whose schemas cannot be
 * compiled fails with that reason (never a 500, never a schema run on a backtracking engine). */
function refuseAll(reason: string): ValidateFunction {
  const validate = (() => {
    validate.errors = [{ instancePath: "", schemaPath: "#", keyword: "unrunnable", params: {}, message: reason }];
    return false;
  }) as unknown as ValidateFunction;
  return validate;
}

/** The validator's errors as one short line with JSON pointers ("/a must be string; /b ..."). */
export function describeSchemaErrors(validate: ValidateFunction, limit = 5): string {
  const errors = validate.errors ?? [];
  const lines = errors.slice(0, limit).map((e) => `${e.instancePath === "" ? "(root)" : e.instancePath} ${e.message ?? "is invalid"}`);
  return lines.join("; ") + (errors.length > limit ? `; and ${errors.length - limit} more` : "");
}

// A run's input: the request's own, or the content it names by address (ipfs://<cid>, uploaded with
// POST /v1/inputs), checked against its address before use.
import type { Services } from "./services.ts";
import { CID_SHAPE, cidOf } from "../registration/cid.ts";
import type { ExecuteRequest } from "./admission.ts";

export type RunInput = string | Record<string, unknown> | null;

/** Whether `uri` is ipfs://<CIDv1>, the form input_uri takes. */
export function isContentAddress(uri: string): boolean {
  return uri.startsWith("ipfs://") && CID_SHAPE.test(uri.slice("ipfs://".length));
}

/** The run's input: the request's, or the content at input_uri (ipfs://<cid> stored with the service). */
export async function resolveInput(services: Services, request: ExecuteRequest): Promise<{ ok: true; input: RunInput } | { ok: false; message: string }> {
  if (request.input_uri === undefined) return { ok: true, input: request.input ?? null };

  const cid = request.input_uri.slice("ipfs://".length);
  const bytes = (await services.blobs.get(`inputs/${cid}`)) ?? (await services.blobs.get(`ipfs/${cid}`));
  if (!bytes) return { ok: false, message: `Nothing is stored at ${request.input_uri}; upload the input first (POST /v1/inputs).` };
  if (cidOf(bytes) !== cid) return { ok: false, message: `The content at ${request.input_uri} does not match its address.` };
  const text = Buffer.from(bytes).toString("utf8");
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return { ok: true, input: parsed as Record<string, unknown> };
  } catch {
    // not JSON: the text is the input
  }
  return { ok: true, input: text };
}

/** What an omitted input is checked as: the empty value of the schema's type (so a schema that requires
 * fields refuses it). */
export function emptyInputFor(schema: Record<string, unknown>): string | Record<string, unknown> | null {
  if (schema.type === "object") return {};
  if (schema.type === "string") return "";
  return null;
}

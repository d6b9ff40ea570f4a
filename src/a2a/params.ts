// The JSON-RPC requests of the A2A endpoint, checked before the SDK's transport reads them: the envelope
// (JSON-RPC 2.0), the method (v1.0's names, and v0.3's), and the types of the parameters the service
// uses, so a wrong type is -32602 naming the field instead of a value the SDK's reader quietly coerces.
// Unknown fields are ignored, as A2A asks (§5.7). Then a message's parts become the run's request.
import { z } from "zod";
import type { Message } from "@a2a-js/sdk";
import { A2A_ERROR_CODE, A2aError, invalidParams } from "./errors.ts";
import type { ExecuteRequest } from "../execution/admission.ts";
import { isContentAddress } from "../execution/input.ts";

/** v1.0's methods the endpoint answers (push notification configs and the extended card included: each
 * answers its A2A error). */
export const V1_METHODS = [
  "SendMessage",
  "SendStreamingMessage",
  "GetTask",
  "ListTasks",
  "CancelTask",
  "SubscribeToTask",
  "CreateTaskPushNotificationConfig",
  "GetTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "DeleteTaskPushNotificationConfig",
  "GetExtendedAgentCard",
] as const;

/** v0.3's names, which the SDK's legacy transport translates. */
export const V03_METHODS = [
  "message/send",
  "message/stream",
  "tasks/get",
  "tasks/cancel",
  "tasks/resubscribe",
  "tasks/pushNotificationConfig/set",
  "tasks/pushNotificationConfig/get",
  "tasks/pushNotificationConfig/list",
  "tasks/pushNotificationConfig/delete",
  "agent/getAuthenticatedExtendedCard",
] as const;

export type A2aMethod = (typeof V1_METHODS)[number] | (typeof V03_METHODS)[number];

export const STREAMING_METHODS = new Set<string>(["SendStreamingMessage", "SubscribeToTask", "message/stream", "tasks/resubscribe"]);

/** Longest messageId, task id, context id or page token accepted (characters). */
const MAX_ID = 1024;
const id = z.string().min(1, "must not be empty").max(MAX_ID);

const part = z.object({}).passthrough();
const v1Message = z
  .object({
    messageId: id,
    role: z.string().optional(),
    parts: z.array(part).min(1, "must hold at least one part").max(64),
    contextId: z.string().max(MAX_ID).optional(),
    taskId: z.string().max(MAX_ID).optional(),
  })
  .passthrough();
const v03Message = z
  .object({
    messageId: id,
    role: z.string().optional(),
    parts: z.array(z.object({ kind: z.string() }).passthrough()).min(1, "must hold at least one part").max(64),
    contextId: z.string().max(MAX_ID).optional(),
    taskId: z.string().max(MAX_ID).optional(),
  })
  .passthrough();
const taskId = z.object({ id }).passthrough();
const configuration = z.object({ returnImmediately: z.boolean().optional(), blocking: z.boolean().optional(), historyLength: z.number().int().min(0).optional(), acceptedOutputModes: z.array(z.string()).optional() }).passthrough();
const sendMetadata = z.object({ timeout_seconds: z.number().int().min(1).max(300).optional(), priority: z.enum(["standard", "priority"]).optional() }).passthrough();

const PARAMS: Partial<Record<A2aMethod, z.ZodType>> = {
  SendMessage: z.object({ message: v1Message, configuration: configuration.optional(), metadata: sendMetadata.optional() }).passthrough(),
  SendStreamingMessage: z.object({ message: v1Message, configuration: configuration.optional(), metadata: sendMetadata.optional() }).passthrough(),
  GetTask: z.object({ id, historyLength: z.number().int().min(0).optional() }).passthrough(),
  ListTasks: z
    .object({
      contextId: z.string().max(MAX_ID).optional(),
      status: z.string().optional(),
      pageSize: z.number().int().min(1).max(100).optional(),
      pageToken: z.string().max(MAX_ID).optional(),
      historyLength: z.number().int().min(0).optional(),
      statusTimestampAfter: z.string().datetime({ offset: false }).optional(),
      includeArtifacts: z.boolean().optional(),
    })
    .passthrough(),
  CancelTask: taskId,
  SubscribeToTask: taskId,
  "message/send": z.object({ message: v03Message, configuration: configuration.optional(), metadata: sendMetadata.optional() }).passthrough(),
  "message/stream": z.object({ message: v03Message, configuration: configuration.optional(), metadata: sendMetadata.optional() }).passthrough(),
  "tasks/get": z.object({ id, historyLength: z.number().int().min(0).optional() }).passthrough(),
  "tasks/cancel": taskId,
  "tasks/resubscribe": taskId,
};

/** A checked JSON-RPC request. */
export interface A2aRequest {
  id: string | number | null;
  method: A2aMethod;
  params: Record<string, unknown>;
  legacy: boolean;
}

/** The id of a JSON-RPC request object, when it has a valid one (for an error's answer). */
export function requestIdOf(value: unknown): string | number | null {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const candidate = (value as { id?: unknown }).id;
  return typeof candidate === "string" || (typeof candidate === "number" && Number.isInteger(candidate)) ? candidate : null;
}

/** Checks a parsed body as a JSON-RPC 2.0 request of the A2A endpoint, or throws its JSON-RPC error. */
export function checkRequest(body: unknown): A2aRequest {
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    throw new A2aError(A2A_ERROR_CODE.INVALID_REQUEST, "invalid_request", Array.isArray(body) ? "Batches are not served: send one JSON-RPC request per HTTP request." : "The body must be a JSON-RPC 2.0 request object.");
  }
  const request = body as { jsonrpc?: unknown; method?: unknown; id?: unknown; params?: unknown };
  const validId = request.id === undefined || request.id === null || typeof request.id === "string" || (typeof request.id === "number" && Number.isInteger(request.id));
  if (request.jsonrpc !== "2.0" || typeof request.method !== "string" || request.method === "" || !validId) {
    throw new A2aError(A2A_ERROR_CODE.INVALID_REQUEST, "invalid_request", 'Not a JSON-RPC 2.0 request: it needs "jsonrpc": "2.0", a method name, and an id that is a string, an integer or null.');
  }
  const method = request.method;
  const legacy = (V03_METHODS as readonly string[]).includes(method);
  if (!legacy && !(V1_METHODS as readonly string[]).includes(method)) {
    throw new A2aError(A2A_ERROR_CODE.METHOD_NOT_FOUND, "invalid_request", `Method not found: ${method.slice(0, 100)}. The endpoint answers A2A v1.0's methods (${V1_METHODS.slice(0, 6).join(", ")}, …) and v0.3's (${V03_METHODS.slice(0, 5).join(", ")}).`);
  }
  const params = request.params ?? {};
  if (typeof params !== "object" || params === null || Array.isArray(params)) throw invalidParams("params must be an object.");
  const schema = PARAMS[method as A2aMethod];
  if (schema) {
    const parsed = schema.safeParse(params);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const field = issue.path.join(".") || "params";
      throw invalidParams(`Invalid params: ${field} ${issue.message}.`, { field });
    }
  }
  return { id: requestIdOf(body), method: method as A2aMethod, params: params as Record<string, unknown>, legacy };
}

/** The supported value of an A2A-Version header: v1.0 or v0.3 (an empty header is v0.3, A2A §3.6.2); a
 * patch number is ignored. Anything else is -32009. */
export function checkVersion(header: string | undefined): "1.0" | "0.3" {
  const value = (header ?? "").trim();
  if (value === "") return "0.3";
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(value);
  const version = match ? `${Number(match[1])}.${Number(match[2])}` : undefined;
  if (version === "1.0" || version === "0.3") return version;
  throw new A2aError(A2A_ERROR_CODE.VERSION_NOT_SUPPORTED, "invalid_request", `A2A-Version ${value.slice(0, 20)} is not supported: this agent speaks 1.0 (and 0.3).`);
}

/** Longest task text, as on POST /v1/execute. */
const MAX_TASK_CHARS = 32_768;

/**
 * The run's request from a message: its text parts are the task (joined by a blank line), its one data
 * part the input (a JSON object, or text), or its one url part an ipfs:// address of content uploaded with
 * POST /v1/inputs (the input_uri). Raw bytes and other URLs are -32005.
 */
export function executeRequestOf(agentId: string, message: Message, metadata: { timeout_seconds?: number; priority?: "standard" | "priority" } | undefined): ExecuteRequest {
  const texts: string[] = [];
  const data: unknown[] = [];
  const urls: string[] = [];
  for (const part of message.parts) {
    const content = part.content;
    if (!content) throw invalidParams("Each part must hold text, data, a url or raw bytes.");
    if (content.$case === "text") texts.push(content.value);
    else if (content.$case === "data") data.push(content.value);
    else if (content.$case === "url") {
      if (!isContentAddress(content.value)) {
        throw new A2aError(A2A_ERROR_CODE.CONTENT_TYPE_NOT_SUPPORTED, "invalid_request", "A url part must be the ipfs://<CIDv1> address of content uploaded with POST /v1/inputs; other URLs are not fetched.");
      }
      urls.push(content.value);
    } else {
      throw new A2aError(A2A_ERROR_CODE.CONTENT_TYPE_NOT_SUPPORTED, "invalid_request", "Raw file parts are not accepted: upload the file with POST /v1/inputs and send its ipfs:// address as a url part.");
    }
  }
  const task = texts.join("\n\n").trim();
  if (task === "") throw invalidParams("The message needs a text part: its text is the task.", { field: "message.parts" });
  if (task.length > MAX_TASK_CHARS) throw invalidParams(`The task (the text parts) exceeds ${MAX_TASK_CHARS} characters.`, { field: "message.parts" });
  if (data.length + urls.length > 1) throw invalidParams("Send the input as one data part, or one url part: not several.", { field: "message.parts" });
  const input = data[0];
  if (data.length === 1 && (input === null || typeof input !== "object" || Array.isArray(input)) && typeof input !== "string") {
    throw invalidParams("The data part is the agent's input: a JSON object (or a string), checked against the agent's input schema.", { field: "message.parts" });
  }
  return {
    agent_id: agentId,
    task,
    ...(data.length === 1 ? { input: input as string | Record<string, unknown> } : {}),
    ...(urls.length === 1 ? { input_uri: urls[0]! } : {}),
    ...(metadata?.priority ? { priority: metadata.priority } : {}),
    ...(metadata?.timeout_seconds ? { timeout_seconds: metadata.timeout_seconds } : {}),
  };
}

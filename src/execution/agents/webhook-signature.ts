// Standard Webhooks signing (https://www.standardwebhooks.com): the signature a connected agent's
// endpoint checks on every task the service delivers. The secret is `whsec_` followed by the base64 of
// the key; the signature is `v1,` + base64(HMAC-SHA256(key, "<webhook-id>.<webhook-timestamp>.<body>")).
// The secret never appears in an error message.
import { createHmac, timingSafeEqual } from "node:crypto";

export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** How far a delivery's timestamp may be from the receiver's clock (either way), as Standard Webhooks
 * libraries enforce by default. */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;
/** Key sizes Standard Webhooks allows (bytes). */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export interface WebhookHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

/** A secret that is not `whsec_` + base64 of 24 to 64 bytes. The message never quotes the secret. */
export class WebhookSecretError extends Error {
  override readonly name = "WebhookSecretError";
}

/** The HMAC key of a `whsec_` secret. */
export function webhookKey(secret: string): Buffer {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new WebhookSecretError(`A webhook secret starts with "${WEBHOOK_SECRET_PREFIX}".`);
  const encoded = secret.slice(WEBHOOK_SECRET_PREFIX.length);
  if (encoded.length === 0 || !BASE64.test(encoded)) throw new WebhookSecretError(`A webhook secret is "${WEBHOOK_SECRET_PREFIX}" followed by base64.`);
  const key = Buffer.from(encoded, "base64");
  if (key.byteLength < MIN_KEY_BYTES || key.byteLength > MAX_KEY_BYTES) throw new WebhookSecretError(`A webhook secret's key is ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes.`);
  return key;
}

/** `v1,<base64 signature>` of one delivery. */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", webhookKey(secret)).update(`${id}.${timestampSeconds}.${body}`, "utf8").digest("base64");
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers of one delivery, signed at `now`. */
export function webhookHeaders(secret: string, id: string, body: string, now: Date = new Date()): WebhookHeaders {
  const timestamp = Math.floor(now.getTime() / 1000);
  return { "webhook-id": id, "webhook-timestamp": String(timestamp), "webhook-signature": signWebhook(secret, id, timestamp, body) };
}

export interface VerifyWebhookOptions {
  /** Default {@link WEBHOOK_TOLERANCE_SECONDS}. */
  toleranceSeconds?: number;
  now?: Date;
}

/** Whether a delivery is signed with `secret` and timestamped within the tolerance of `now`. The
 * signature header may carry several space-separated signatures (during a secret rotation); any `v1`
 * match is enough. Comparison is constant-time. */
export function verifyWebhook(secret: string, headers: Headers | Record<string, string | string[] | undefined>, body: string, options: VerifyWebhookOptions = {}): boolean {
  const header = (name: string): string | undefined => {
    if (headers instanceof Headers) return headers.get(name) ?? undefined;
    const found = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    return Array.isArray(found) ? found[0] : found;
  };
  const id = header("webhook-id");
  const timestampText = header("webhook-timestamp");
  const signatures = header("webhook-signature");
  if (!id || !timestampText || !signatures || !/^\d{1,12}$/.test(timestampText)) return false;
  const timestamp = Number(timestampText);
  const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
  if (Math.abs(now - timestamp) > (options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS)) return false;
  const expected = Buffer.from(signWebhook(secret, id, timestamp, body).slice("v1,".length), "utf8");
  return signatures.split(" ").some((entry) => {
    const [version, signature] = entry.split(",", 2);
    if (version !== "v1" || signature === undefined) return false;
    const given = Buffer.from(signature, "utf8");
    return given.byteLength === expected.byteLength && timingSafeEqual(given, expected);
  });
}

// What a renter's alert webhook URL may be, checked when it is set (the egress guard checks again, on
// every delivery, where the name resolves). HTTPS; plain HTTP only to a loopback host where the service
// allows private hosts (local development, as connected agents' endpoints); no credentials in the URL.
import { ApiError } from "../errors.ts";
import { isLoopbackHost } from "@agent-rental/core/addresses";

export function checkWebhookUrl(raw: string, allowPrivate: boolean): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ApiError("invalid_request", "webhook_url is not an absolute URL.");
  }
  if (url.username || url.password) throw new ApiError("invalid_request", "webhook_url may not carry a user name or password; use the signature to authenticate deliveries.");
  if (url.hash) throw new ApiError("invalid_request", "webhook_url may not carry a fragment.");
  if (url.protocol === "https:") return url.toString();
  if (url.protocol === "http:" && allowPrivate && isLoopbackHost(url.hostname)) return url.toString();
  throw new ApiError("invalid_request", "webhook_url must be an https URL.");
}

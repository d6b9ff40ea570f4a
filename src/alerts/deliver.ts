// Delivering alerts to the renter's webhook (docs/design/alerts.md): signed as connected agents'
// webhooks are (Standard Webhooks: `webhook-id` is the alert's id, so a receiver drops a repeat), through
// the egress guard, and retried with backoff until delivered or given up. A delivery is a 2xx answer
// within the timeout; anything else (another status, a refused address, a timeout) is retried.
import type { Services } from "./services.ts";
import { webhookHeaders } from "../execution/agents/webhook-signature.ts";
import { EgressRefusedError } from "../adapters/egress/guard.ts";
import { alertWebhookSecret, getAlertSettings } from "./alert-settings.store.ts";
import { claimAttempt, dueAlerts, recordAttempt, type AlertRecord, type DueAlert } from "./alert.store.ts";

/** Attempts before an alert is given up (its delivery reads `failed` in the list). */
export const MAX_ATTEMPTS = 8;
/** The longest wait between two attempts. */
const MAX_DELAY_MS = 6 * 3_600_000;
/** How long one attempt may take. */
const ATTEMPT_TIMEOUT_MS = 10_000;
/** An attempt claimed but never recorded (its process died) is due again after this. */
const CLAIM_MS = 60_000;
/** Alerts one pass delivers, at most. */
const PASS_LIMIT = 50;

/** The wait before attempt `attempts + 1`: `base`, then four times longer each time (5 s, 20 s, 80 s,
 * 5 min, 21 min, 85 min, 6 h with the default base). */
export function retryDelayMs(attempts: number, baseMs: number): number {
  return Math.min(MAX_DELAY_MS, baseMs * 4 ** Math.max(0, attempts - 1));
}

/** The body a webhook receives: Standard Webhooks' `{type, timestamp, data}`. */
export function alertPayload(alert: AlertRecord): string {
  return JSON.stringify({ type: `alert.${alert.type}`, timestamp: alert.created_at, data: { alert_id: alert.alert_id, wallet: alert.wallet, ...alert.data } });
}

type Attempt = { ok: true } | { ok: false; error: string; final?: boolean };

async function attempt(services: Services, due: DueAlert): Promise<Attempt> {
  const settings = await getAlertSettings(services, due.alert.wallet);
  if (!settings?.url) return { ok: false, error: "The webhook was removed.", final: true };
  const secret = await alertWebhookSecret(services, settings);
  if (!secret) return { ok: false, error: "The webhook's secret could not be read.", final: true };
  const body = alertPayload(due.alert);
  try {
    const response = await services.egress.fetch(settings.url, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "agent-rental-alerts", ...webhookHeaders(secret, due.alert.alert_id, body) },
      body,
      maxRedirects: 0,
      timeoutMs: ATTEMPT_TIMEOUT_MS,
    });
    await response.body?.cancel().catch(() => undefined);
    return response.ok ? { ok: true } : { ok: false, error: `The webhook answered ${response.status}.` };
  } catch (error) {
    // The guard's message names at most the host and its address kind, never the URL's path or query.
    return { ok: false, error: error instanceof EgressRefusedError ? error.message : "The webhook could not be reached." };
  }
}

/** One pass: every alert due now, delivered or scheduled again. */
export async function deliverAlerts(services: Services, now = Date.now()): Promise<{ delivered: number; retried: number; failed: number }> {
  const tally = { delivered: 0, retried: 0, failed: 0 };
  const due = await dueAlerts(services.tables, now, PASS_LIMIT);
  await Promise.all(
    due.map(async (item) => {
      if (!(await claimAttempt(services.tables, item, now + CLAIM_MS))) return;
      const attempts = item.alert.attempts + 1;
      const result = await attempt(services, item);
      if (result.ok) {
        await recordAttempt(services.tables, item, { status: "delivered" });
        tally.delivered++;
      } else if (result.final || attempts >= MAX_ATTEMPTS) {
        await recordAttempt(services.tables, item, { status: "failed" }, result.error);
        services.logger.warn("alert given up", { alert_id: item.alert.alert_id, attempts, reason: result.error });
        tally.failed++;
      } else {
        await recordAttempt(services.tables, item, { status: "retry", retryAt: Date.now() + retryDelayMs(attempts, services.config.ALERT_RETRY_BASE_MS) }, result.error);
        tally.retried++;
      }
    }),
  );
  return tally;
}

// A renter's alert settings (docs/design/alerts.md): one item per wallet, in the `keys` table beside the
// wallet's API keys, `alerts#<wallet>` / `webhook`. It holds the webhook's URL (or none: alerts then show
// in the dashboard only), the low-balance threshold (in runs) and the wrapped data key of the webhook's
// signing secret; the secret itself (Standard Webhooks, `whsec_` + base64,
// as connected agents' webhooks are signed) is sealed under that key in a blob named after it, so it is
// never stored in the clear, never returned after it is made, and never logged.
import { createHash, randomBytes } from "node:crypto";
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Address } from "viem";
import type { Services } from "./services.ts";
import { open, seal } from "../registration/sealed.ts";

export interface AlertSettings {
  wallet: Address;
  /** Where alerts are delivered; null: the dashboard only. */
  url: string | null;
  /** Alert when a per-task balance falls below this many runs at the listing's price; null: never. */
  lowBalanceRuns: number | null;
  createdAt: string;
  updatedAt: string;
  /** The secret's wrapped data key and its sealed blob. */
  wrapped: string;
  blob: string;
}

interface StoredWebhook {
  pk: string;
  sk: "webhook";
  url: string | null;
  low_balance_runs: number | null;
  created_at: string;
  updated_at: string;
  secret_wrapped: string;
  secret_blob: string;
}

const keyOf = (wallet: string) => ({ pk: `alerts#${wallet.toLowerCase()}`, sk: "webhook" as const });
const context = (wallet: string) => ({ purpose: "alert_webhook_secret", wallet: wallet.toLowerCase() });

function fromItem(wallet: Address, item: StoredWebhook): AlertSettings {
  return { wallet, url: item.url, lowBalanceRuns: item.low_balance_runs ?? null, createdAt: item.created_at, updatedAt: item.updated_at, wrapped: item.secret_wrapped, blob: item.secret_blob };
}

export async function getAlertSettings(services: Pick<Services, "tables">, wallet: Address): Promise<AlertSettings | null> {
  const out = await services.tables.doc.send(new GetCommand({ TableName: services.tables.name("keys"), Key: keyOf(wallet), ConsistentRead: true }));
  return out.Item ? fromItem(wallet.toLowerCase() as Address, out.Item as StoredWebhook) : null;
}

/** Sets the webhook. A new secret is made when there is none yet or `rotate` asks for one; it is returned
 * only then. Otherwise the URL and threshold change and the secret stays. */
export async function putAlertSettings(
  services: Pick<Services, "tables" | "keys" | "blobs">,
  wallet: Address,
  settings: { url: string | null; lowBalanceRuns: number | null; rotate: boolean },
): Promise<{ webhook: AlertSettings; secret: string | null }> {
  const existing = await getAlertSettings(services, wallet);
  const now = new Date().toISOString();
  let secret: string | null = null;
  let wrapped = existing?.wrapped;
  let blob = existing?.blob;
  if (!existing || settings.rotate) {
    secret = `whsec_${randomBytes(24).toString("base64")}`;
    const dataKey = await services.keys.generateDataKey(context(wallet));
    blob = `alerts/${wallet.toLowerCase()}/webhook-${createHash("sha256").update(dataKey.wrapped).digest("hex").slice(0, 24)}.sealed`;
    await services.blobs.put(blob, seal(dataKey.plaintext, Buffer.from(secret, "utf8"), `alert_webhook_secret:${wallet.toLowerCase()}`), "application/octet-stream");
    dataKey.plaintext.fill(0);
    wrapped = dataKey.wrapped;
  }
  const item: StoredWebhook = {
    ...keyOf(wallet),
    url: settings.url,
    low_balance_runs: settings.lowBalanceRuns,
    created_at: existing?.createdAt ?? now,
    updated_at: now,
    secret_wrapped: wrapped!,
    secret_blob: blob!,
  };
  await services.tables.doc.send(new PutCommand({ TableName: services.tables.name("keys"), Item: item }));
  return { webhook: fromItem(wallet.toLowerCase() as Address, item), secret };
}

/** The webhook's signing secret, opened for one delivery. */
export async function alertWebhookSecret(services: Pick<Services, "keys" | "blobs">, webhook: AlertSettings): Promise<string | null> {
  const sealed = await services.blobs.get(webhook.blob);
  if (!sealed) return null;
  const key = await services.keys.unwrap(webhook.wrapped, context(webhook.wallet));
  try {
    return Buffer.from(open(key, sealed, `alert_webhook_secret:${webhook.wallet}`)).toString("utf8");
  } finally {
    key.fill(0);
  }
}

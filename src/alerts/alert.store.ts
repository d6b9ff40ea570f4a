// Alerts (docs/design/alerts.md), in the `keys` table beside the wallet's webhook:
//  - an alert, `alerts#<wallet>` / `a#<created ms>#<alert id>`: what crossed, and its delivery (pending,
//    delivered, failed, or none when the wallet has no webhook). The dashboard lists the newest.
//  - a crossing, `alerts#<wallet>` / `x#<crossing>`: written once by a conditional put, so a crossing
//    raises one alert however many charges, passes or processes see it.
//  - the delivery queue: a pending alert carries `gsi1pk = alerts#due` and `gsi1sk = <next attempt ms>#…`;
//    the delivery job reads what is due from the index, claims each alert by moving its next attempt
//    (a conditional update, so two deliverers never send one attempt twice), and drops both attributes once
//    the alert is delivered or has failed for good.
import { randomBytes } from "node:crypto";
import { DeleteCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Address } from "viem";
import { applied, type Tables } from "../adapters/tables/dynamo.ts";

export const ALERT_TYPES = ["spend_limit", "low_balance", "charge_cap"] as const;
export type AlertType = (typeof ALERT_TYPES)[number];
export type DeliveryStatus = "pending" | "delivered" | "failed" | "no_webhook";

export interface AlertRecord {
  alert_id: string;
  wallet: Address;
  type: AlertType;
  /** What the alert says (the webhook payload's `data`). */
  data: Record<string, unknown>;
  created_at: string;
  delivery: DeliveryStatus;
  attempts: number;
  last_error?: string;
  delivered_at?: string;
}

interface StoredAlert extends AlertRecord {
  pk: string;
  sk: string;
  gsi1pk?: string;
  gsi1sk?: string;
}

const DUE = "alerts#due";
const partition = (wallet: string) => `alerts#${wallet.toLowerCase()}`;
const pad = (ms: number) => String(Math.max(0, Math.floor(ms))).padStart(15, "0");

/** A crossing's marker is kept this long after it was written (then it may be written again). */
const CROSSING_TTL_SECONDS = 400 * 86_400;

/** Records the crossing `crossing` of `wallet` once: true the first time, false after (or while a marker
 * within its life exists). */
export async function markCrossing(tables: Tables, wallet: string, crossing: string, now = Date.now()): Promise<boolean> {
  return applied(
    tables.doc.send(
      new PutCommand({
        TableName: tables.name("keys"),
        Item: { pk: partition(wallet), sk: `x#${crossing}`, at: new Date(now).toISOString(), ttl: Math.floor(now / 1000) + CROSSING_TTL_SECONDS },
        ConditionExpression: "attribute_not_exists(pk) OR #ttl < :now",
        ExpressionAttributeNames: { "#ttl": "ttl" },
        ExpressionAttributeValues: { ":now": Math.floor(now / 1000) },
      }),
    ),
  );
}

/** Re-arms a crossing (the condition it marked no longer holds, so the next crossing alerts again). */
export async function clearCrossing(tables: Tables, wallet: string, crossing: string): Promise<void> {
  await tables.doc.send(new DeleteCommand({ TableName: tables.name("keys"), Key: { pk: partition(wallet), sk: `x#${crossing}` } }));
}

/** Stores a new alert: pending delivery (due now) when the wallet has a webhook, `no_webhook` otherwise. */
export async function createAlert(tables: Tables, alert: { wallet: Address; type: AlertType; data: Record<string, unknown> }, hasWebhook: boolean, now = Date.now()): Promise<AlertRecord> {
  const alertId = `alr_${randomBytes(12).toString("hex")}`;
  const sk = `a#${pad(now)}#${alertId}`;
  const record: StoredAlert = {
    pk: partition(alert.wallet),
    sk,
    alert_id: alertId,
    wallet: alert.wallet.toLowerCase() as Address,
    type: alert.type,
    data: alert.data,
    created_at: new Date(now).toISOString(),
    delivery: hasWebhook ? "pending" : "no_webhook",
    attempts: 0,
    ...(hasWebhook ? { gsi1pk: DUE, gsi1sk: `${pad(now)}#${alert.wallet.toLowerCase()}#${sk}` } : {}),
  };
  await tables.doc.send(new PutCommand({ TableName: tables.name("keys"), Item: record }));
  return strip(record);
}

function strip(item: StoredAlert): AlertRecord {
  const { pk: _pk, sk: _sk, gsi1pk: _g1, gsi1sk: _g2, ...alert } = item;
  return alert;
}

/** A wallet's newest alerts, newest first. */
export async function listAlerts(tables: Tables, wallet: string, limit: number): Promise<AlertRecord[]> {
  const out = await tables.doc.send(
    new QueryCommand({
      TableName: tables.name("keys"),
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :a)",
      ExpressionAttributeValues: { ":pk": partition(wallet), ":a": "a#" },
      ScanIndexForward: false,
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map((item) => strip(item as StoredAlert));
}

/** An alert due for delivery, with what claiming it needs. */
export interface DueAlert {
  alert: AlertRecord;
  key: { pk: string; sk: string };
  due: string;
}

/** Alerts whose next attempt is due by `now`, oldest first. */
export async function dueAlerts(tables: Tables, now: number, limit: number): Promise<DueAlert[]> {
  const out = await tables.doc.send(
    new QueryCommand({
      TableName: tables.name("keys"),
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :due AND gsi1sk <= :now",
      ExpressionAttributeValues: { ":due": DUE, ":now": `${pad(now)}#~` },
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map((item) => {
    const stored = item as StoredAlert;
    return { alert: strip(stored), key: { pk: stored.pk, sk: stored.sk }, due: stored.gsi1sk! };
  });
}

/** Claims an attempt: moves the alert's next attempt to `leaseUntil` if no one else moved it. */
export async function claimAttempt(tables: Tables, due: DueAlert, leaseUntil: number): Promise<boolean> {
  return applied(
    tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("keys"),
        Key: due.key,
        UpdateExpression: "SET gsi1sk = :lease, attempts = attempts + :one",
        ConditionExpression: "gsi1sk = :due",
        ExpressionAttributeValues: { ":lease": `${pad(leaseUntil)}#${due.alert.wallet}#${due.key.sk}`, ":due": due.due, ":one": 1 },
      }),
    ),
  );
}

/** The attempt's outcome: delivered, failed for good, or retried at `retryAt`. */
export async function recordAttempt(tables: Tables, due: DueAlert, outcome: { status: "delivered" | "failed" } | { status: "retry"; retryAt: number }, error?: string): Promise<void> {
  const at = new Date().toISOString();
  const errorPart = error ? ", last_error = :error" : " REMOVE last_error";
  const values: Record<string, unknown> = error ? { ":error": error } : {};
  if (outcome.status === "retry") {
    await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("keys"),
        Key: due.key,
        UpdateExpression: `SET gsi1sk = :next${errorPart}`,
        ExpressionAttributeValues: { ":next": `${pad(outcome.retryAt)}#${due.alert.wallet}#${due.key.sk}`, ...values },
      }),
    );
    return;
  }
  await tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("keys"),
      Key: due.key,
      UpdateExpression: `SET delivery = :status${outcome.status === "delivered" ? ", delivered_at = :at" : ""}${error ? ", last_error = :error" : ""} REMOVE gsi1pk, gsi1sk`,
      ExpressionAttributeValues: { ":status": outcome.status, ...(outcome.status === "delivered" ? { ":at": at } : {}), ...values },
    }),
  );
}

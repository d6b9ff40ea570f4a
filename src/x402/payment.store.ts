// x402 payments in the `idempotency` table (docs/design/data-model.md): `x402#<token>#<payer>#<nonce>` /
// `x402`, one item per EIP-3009 authorization, kept until a day after the authorization expires (`ttl`).
// The conditional put that creates it is the reservation: of two requests carrying the same
// authorization, however close together, exactly one gets a run; the other, and any later replay, is
// refused before anything runs. The token's own nonce is the last guard (settlement cannot transfer
// twice); this one keeps a second run from starting at all.
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { Address } from "viem";
import { applied, isConditionalCheckFailure, type Tables } from "../adapters/tables/dynamo.ts";

export interface PaymentRecord {
  token: Address;
  payer: Address;
  nonce: `0x${string}`;
  run_id: string;
  /** reserved: a run holds it; settled: its transfer is in a block (`transaction`). */
  state: "reserved" | "settled";
  transaction?: `0x${string}`;
  ttl: number;
}

const key = (token: Address, payer: Address, nonce: `0x${string}`) => ({ pk: `x402#${token.toLowerCase()}#${payer.toLowerCase()}#${nonce.toLowerCase()}`, sk: "x402" });

/** Reserves the authorization for `runId`. False when another request holds or settled it. */
export async function reservePayment(tables: Tables, record: Omit<PaymentRecord, "state">): Promise<boolean> {
  try {
    await tables.doc.send(
      new PutCommand({
        TableName: tables.name("idempotency"),
        Item: { ...key(record.token, record.payer, record.nonce), ...record, token: record.token.toLowerCase(), payer: record.payer.toLowerCase(), state: "reserved" },
        // One run per authorization: a second request with the same one, at the same moment or later,
        // never starts a run. (An expired authorization can no longer be settled, nor be accepted.)
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw error;
  }
}

export async function getPayment(tables: Tables, token: Address, payer: Address, nonce: `0x${string}`): Promise<PaymentRecord | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("idempotency"), Key: key(token, payer, nonce), ConsistentRead: true }));
  return (out.Item as PaymentRecord | undefined) ?? null;
}

/** Records the payment's transfer as included. */
export async function markPaymentSettled(tables: Tables, token: Address, payer: Address, nonce: `0x${string}`, runId: string, transaction: `0x${string}`): Promise<boolean> {
  return applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("idempotency"),
      Key: key(token, payer, nonce),
      UpdateExpression: "SET #state = :settled, #tx = :tx",
      // Only the run that reserved the authorization records its settlement.
      ConditionExpression: "run_id = :run",
      ExpressionAttributeNames: { "#state": "state", "#tx": "transaction" },
      ExpressionAttributeValues: { ":settled": "settled", ":tx": transaction, ":run": runId },
    }),
  ));
}

/** Gives back the reservation of a run that failed before its payment was sent: the authorization was
 * never used, so the payer may present it again. */
export async function releasePayment(tables: Tables, token: Address, payer: Address, nonce: `0x${string}`, runId: string): Promise<boolean> {
  return applied(tables.doc.send(
    new DeleteCommand({
      TableName: tables.name("idempotency"),
      Key: key(token, payer, nonce),
      // Only the run's own reservation, and never one whose transfer is included.
      ConditionExpression: "run_id = :run AND #state = :reserved",
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: { ":run": runId, ":reserved": "reserved" },
    }),
  ));
}

/** A run's signed payment, kept beside its reservation (`x402run#<run_id>` / `x402`) so a charge whose
 * settlement was left pending can be handed to the settler again by the settlement pass. */
export interface RunPayment {
  validAfter: string;
  validBefore: string;
  nonce: `0x${string}`;
  signature: `0x${string}`;
}

/** The payment a paid run carries to its settlement (perform.ts). */
export interface RunX402Payment extends RunPayment {
  token: Address;
  payer: Address;
  /** The CAIP-2 network it pays on (PAYMENT-RESPONSE's `network`). */
  network: string;
}

const runKeyOf = (runId: string) => ({ pk: `x402run#${runId}`, sk: "x402" });

export async function putRunPayment(tables: Tables, runId: string, payment: RunPayment, ttl: number): Promise<void> {
  await tables.doc.send(new PutCommand({ TableName: tables.name("idempotency"), Item: { ...runKeyOf(runId), ...payment, ttl } }));
}

export async function runPayment(tables: Tables, runId: string): Promise<RunPayment | undefined> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("idempotency"), Key: runKeyOf(runId), ConsistentRead: true }));
  const item = out.Item as (RunPayment & { pk: string }) | undefined;
  return item ? { validAfter: item.validAfter, validBefore: item.validBefore, nonce: item.nonce, signature: item.signature } : undefined;
}

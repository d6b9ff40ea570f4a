// The creator analytics roll-ups (table `analytics`, docs/design/analytics.md):
//   - a listing's buckets: `roll#<on-chain id>` / `h#<YYYY-MM-DDTHH>` (an hour) and `d#<YYYY-MM-DD>` (a
//     day, UTC): flat counters added to with ADD, wei as DynamoDB numbers (38 digits, exact);
//   - a listing's lifetime totals: `roll#<on-chain id>` / `t#all`, the same counters;
//   - a listing's packed series: `hp#<YYYY-MM-DD>` (its hours) and `dp#<YYYY-MM>` (its days), each
//     hour or day as one text attribute copied from its item (packs.ts);
//   - a listing's renters: `roll#<on-chain id>` / `r#<wallet>`: spend, runs, purchases, first event;
//   - a fact: `fact#<token>` / `fact`: one per event counted (a run's settlement, a receipt, a chain
//     event), the source item of the exactly-once protocol (rollups.ts).
// Each function is one read or one single-item conditional write. Numbers are read wrapped (never
// through a JavaScript number), so a wei sum is read back to the wei.
import { GetCommand, NumberValue, PutCommand, QueryCommand, UpdateCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import { applied, batchWrite, exactDocument, type Tables } from "../adapters/tables/dynamo.ts";

/** A listing's roll-up partition. */
export const rollupPk = (onChainId: string) => `roll#${onChainId.toLowerCase()}`;
export const hourSk = (hour: string) => `h#${hour}`;
export const daySk = (day: string) => `d#${day}`;
export const monthSk = (month: string) => `m#${month}`;
/** A listing's lifetime totals (what the reconciliation compares with the chain). */
export const LIFETIME_SK = "t#all";
export const renterSk = (wallet: string) => `r#${wallet.toLowerCase()}`;
/** A listing's top renters by spend and its renter count, kept as renters' items change (top-renters.ts). */
export const TOP_SK = "top";
export const factKey = (token: string) => ({ pk: `fact#${token}`, sk: "fact" });

/** What one fact adds to one item: counters (integers or wei, as bigint) and attributes set once. */
export interface RollupTarget {
  pk: string;
  sk: string;
  add: Record<string, bigint>;
  /** Attributes written only when absent (if_not_exists): a renter's wallet and first event. */
  setOnce?: Record<string, string>;
}

/** An item as read: counters as bigint, other attributes as strings. */
export type RollupItem = { sk: string } & Record<string, bigint | string | undefined>;

const exact = exactDocument;

function toItem(raw: Record<string, unknown>): RollupItem {
  const item: Record<string, bigint | string | undefined> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value instanceof NumberValue) item[name] = BigInt(value.toString());
    else if (typeof value === "string") item[name] = value;
  }
  return item as RollupItem;
}

const safeName = /^[a-z0-9_]+$/;

/**
 * Adds a fact's counters to one item and puts its token in the item's `in_flight` set, in one update.
 * False when the token is already there: this fact was applied to this item before.
 */
export async function addToRollup(tables: Tables, target: RollupTarget, token: string): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ":token": token, ":tokens": new Set([token]) };
  const adds = ["in_flight :tokens"];
  // An hour or day item counts its writes, so its copies in a pack are ordered (packs.ts).
  if (target.sk.startsWith("h#") || target.sk.startsWith("d#")) {
    values[":pv"] = 1;
    adds.push("pv :pv");
  }
  let i = 0;
  for (const [name, amount] of Object.entries(target.add)) {
    if (amount === 0n) continue;
    if (!safeName.test(name)) throw new TypeError(`bad counter name ${name}`);
    names[`#a${i}`] = name;
    values[`:a${i}`] = NumberValue.from(amount.toString());
    adds.push(`#a${i} :a${i}`);
    i++;
  }
  const sets: string[] = [];
  for (const [name, value] of Object.entries(target.setOnce ?? {})) {
    names[`#s${i}`] = name;
    values[`:s${i}`] = value;
    sets.push(`#s${i} = if_not_exists(#s${i}, :s${i})`);
    i++;
  }
  return applied(exact(tables).send(
    new UpdateCommand({
      TableName: tables.name("analytics"),
      Key: { pk: target.pk, sk: target.sk },
      UpdateExpression: `ADD ${adds.join(", ")}${sets.length ? ` SET ${sets.join(", ")}` : ""}`,
      // A fact is added to an item once: its token stays in the set until no claimant can add it again.
      ConditionExpression: "NOT contains(in_flight, :token)",
      ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
      ExpressionAttributeValues: values,
    }),
  ));
}

/** Deletes a fact's token from an item once no claimant can apply the fact again. */
export async function deleteRollupToken(tables: Tables, target: Pick<RollupTarget, "pk" | "sk">, token: string): Promise<void> {
  await applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("analytics"),
      Key: { pk: target.pk, sk: target.sk },
      UpdateExpression: "DELETE in_flight :tokens",
      // Never create an item holding only an empty set.
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":tokens": new Set([token]) },
    }),
  ));
}

export interface FactItem {
  state: "claimed" | "applied";
  claim: string;
  generation: number;
  claimed_until: number;
  /** A run's fact: the outcome it counted (adjust.ts), how often it was adjusted, the rebuild that wrote it. */
  outcome?: string;
  outcome_version?: number;
  epoch?: string;
}

/** Moves a run's fact to the outcome an adjustment counted, if still at `version` (false otherwise). */
export async function setFactOutcome(tables: Tables, token: string, outcome: string, version: number): Promise<boolean> {
  return applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("analytics"),
      Key: factKey(token),
      UpdateExpression: "SET outcome = :outcome, outcome_version = :next",
      // Only from the version the adjustment was computed against.
      ConditionExpression: version === 0 ? "attribute_not_exists(outcome_version)" : "outcome_version = :version",
      ExpressionAttributeValues: { ":outcome": outcome, ":next": version + 1, ...(version === 0 ? {} : { ":version": version }) },
    }),
  ));
}

/** Creates a fact claimed by `claim` (generation 1). False when the fact exists already. */
export async function createFact(tables: Tables, token: string, claim: string, until: number, detail: Record<string, string>): Promise<boolean> {
  return applied(tables.doc.send(
    new PutCommand({
      TableName: tables.name("analytics"),
      Item: { ...factKey(token), ...detail, state: "claimed", claim, generation: 1, claimed_until: until },
      // A fact is created once: whoever creates it holds the first claim.
      ConditionExpression: "attribute_not_exists(pk)",
    }),
  ));
}

export async function getFact(tables: Tables, token: string): Promise<FactItem | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("analytics"), Key: factKey(token), ConsistentRead: true }));
  return (out.Item as FactItem | undefined) ?? null;
}

/** Takes over an expired claim; the new generation, or null when another caller changed the fact first. */
export async function takeOverFact(tables: Tables, token: string, previous: string, claim: string, until: number): Promise<number | null> {
  try {
    const out = await tables.doc.send(
      new UpdateCommand({
        TableName: tables.name("analytics"),
        Key: factKey(token),
        UpdateExpression: "SET claim = :claim, claimed_until = :until ADD generation :one",
        // Only the claim we saw expire is taken over, and never an applied fact.
        ConditionExpression: "claim = :previous AND #state = :claimed",
        ExpressionAttributeNames: { "#state": "state" },
        ExpressionAttributeValues: { ":claim": claim, ":until": until, ":one": 1, ":previous": previous, ":claimed": "claimed" },
        ReturnValues: "ALL_NEW",
      }),
    );
    return Number((out.Attributes as FactItem).generation);
  } catch (error) {
    if ((error as { name?: string }).name === "ConditionalCheckFailedException") return null;
    throw error;
  }
}

/** Marks a fact applied. False when the claim was taken over meanwhile. */
export async function markFactApplied(tables: Tables, token: string, claim: string): Promise<boolean> {
  return applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("analytics"),
      Key: factKey(token),
      UpdateExpression: "SET #state = :applied REMOVE claimed_until",
      // Only the holder of the claim finishes the fact.
      ConditionExpression: "claim = :claim",
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: { ":applied": "applied", ":claim": claim },
    }),
  ));
}

/** Gives a claim up at once (after an error), so a retry need not wait for the lease. */
export async function expireFactClaim(tables: Tables, token: string, claim: string): Promise<void> {
  await applied(tables.doc.send(
    new UpdateCommand({
      TableName: tables.name("analytics"),
      Key: factKey(token),
      UpdateExpression: "SET claimed_until = :zero",
      // Only our own claim, still unfinished.
      ConditionExpression: "claim = :claim AND #state = :claimed",
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: { ":zero": 0, ":claim": claim, ":claimed": "claimed" },
    }),
  ));
}

async function queryExact(tables: Tables, input: Omit<QueryCommandInput, "TableName">): Promise<RollupItem[]> {
  const items: RollupItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await exact(tables).send(new QueryCommand({ ...input, TableName: tables.name("analytics"), ExclusiveStartKey: startKey }));
    for (const raw of out.Items ?? []) items.push(toItem(raw));
    startKey = out.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** A listing's buckets of one kind (`h`, `d` or `m`) from `from` to `to` (inclusive, as their sort keys). */
export async function queryBuckets(tables: Tables, onChainId: string, kind: "h" | "d" | "m" | "hp" | "dp", from: string, to: string): Promise<RollupItem[]> {
  return queryExact(tables, {
    KeyConditionExpression: "pk = :pk AND sk BETWEEN :from AND :to",
    ExpressionAttributeValues: { ":pk": rollupPk(onChainId), ":from": `${kind}#${from}`, ":to": `${kind}#${to}` },
  });
}

/** Every renter item of a listing (the top renters' exact fallback across listings, tests). */
export async function queryRenters(tables: Tables, onChainId: string): Promise<RollupItem[]> {
  return queryExact(tables, {
    KeyConditionExpression: "pk = :pk AND begins_with(sk, :r)",
    ExpressionAttributeValues: { ":pk": rollupPk(onChainId), ":r": "r#" },
  });
}

/** One renter item (strongly consistent), or null. */
export async function getRenter(tables: Tables, onChainId: string, wallet: string): Promise<RollupItem | null> {
  const out = await exact(tables).send(new GetCommand({ TableName: tables.name("analytics"), Key: { pk: rollupPk(onChainId), sk: renterSk(wallet) }, ConsistentRead: true }));
  return out.Item ? toItem(out.Item) : null;
}

/** One item of a roll-up partition, strongly consistent (what a pack copies), or null. */
export async function getRollupItem(tables: Tables, pk: string, sk: string): Promise<RollupItem | null> {
  const out = await exact(tables).send(new GetCommand({ TableName: tables.name("analytics"), Key: { pk, sk }, ConsistentRead: true }));
  return out.Item ? toItem(out.Item) : null;
}

/** Writes one entry of a pack item (packs.ts): the text of an hour or day item copied at version `pv`. */
export async function putPackEntry(tables: Tables, pk: string, sk: string, write: { entry: string; version: string; text: string; pv: bigint }): Promise<boolean> {
  return applied(exact(tables).send(
    new UpdateCommand({
      TableName: tables.name("analytics"),
      Key: { pk, sk },
      UpdateExpression: "SET #e = :text, #v = :pv",
      // A copy replaces only an older one: the entry converges on its item's last state.
      ConditionExpression: "attribute_not_exists(#v) OR #v < :pv",
      ExpressionAttributeNames: { "#e": write.entry, "#v": write.version },
      ExpressionAttributeValues: { ":text": write.text, ":pv": NumberValue.from(write.pv.toString()) },
    }),
  ));
}

/** Every item of a listing's roll-up partition (the rebuild's comparison and clean-up). */
export async function queryPartition(tables: Tables, onChainId: string): Promise<RollupItem[]> {
  return queryPartitionPk(tables, rollupPk(onChainId));
}

/** Every item of a roll-up partition, by its key (a listing's or a creator's). */
export async function queryPartitionPk(tables: Tables, pk: string): Promise<RollupItem[]> {
  return queryExact(tables, { KeyConditionExpression: "pk = :pk", ExpressionAttributeValues: { ":pk": pk } });
}

/** Writes a whole item (the rebuild's output; unconditional: the rebuild owns the partition it writes). */
export async function putRollupItem(tables: Tables, pk: string, item: Record<string, bigint | string>): Promise<void> {
  const out: Record<string, unknown> = { pk };
  for (const [name, value] of Object.entries(item)) out[name] = typeof value === "bigint" ? NumberValue.from(value.toString()) : value;
  await exact(tables).send(new PutCommand({ TableName: tables.name("analytics"), Item: out }));
}

/** Some renter items of a listing (strongly consistent; at most 100 at a time). */
export async function getRenters(tables: Tables, onChainId: string, wallets: string[]): Promise<RollupItem[]> {
  return (await Promise.all(wallets.map((wallet) => getRenter(tables, onChainId, wallet)))).filter((item): item is RollupItem => item !== null);
}

/** A listing's top item (strongly consistent), or null before its first renter. */
export async function getTopItem(tables: Tables, onChainId: string): Promise<{ entries: string; renters: bigint; ver?: bigint; in_flight?: Set<string> } | null> {
  const out = await exact(tables).send(new GetCommand({ TableName: tables.name("analytics"), Key: { pk: rollupPk(onChainId), sk: TOP_SK }, ConsistentRead: true }));
  if (!out.Item) return null;
  const item = toItem(out.Item);
  return {
    entries: typeof item.entries === "string" ? item.entries : "[]",
    renters: typeof item.renters === "bigint" ? item.renters : 0n,
    ...(typeof item.ver === "bigint" ? { ver: item.ver } : {}),
    in_flight: out.Item.in_flight instanceof Set ? (out.Item.in_flight as Set<string>) : new Set(),
  };
}

/**
 * Writes a listing's top item if nobody wrote it since version `seen` (undefined: never written by a
 * writer) and the fact `token` is not in it yet: the entries, the renter count added to, the token kept
 * in `in_flight` (the exactly-once protocol of rollups.ts). False when the condition fails.
 */
export async function putTopItem(tables: Tables, onChainId: string, write: { entries: string; addRenters: bigint; seen: bigint | undefined }, token: string): Promise<boolean> {
  return applied(exact(tables).send(
    new UpdateCommand({
      TableName: tables.name("analytics"),
      Key: { pk: rollupPk(onChainId), sk: TOP_SK },
      UpdateExpression: "SET entries = :entries, ver = :next ADD in_flight :tokens, renters :renters",
      // Optimistic: the entries were merged into version `seen`; a fact is added once.
      ConditionExpression: `${write.seen === undefined ? "attribute_not_exists(ver)" : "ver = :seen"} AND NOT contains(in_flight, :token)`,
      ExpressionAttributeValues: {
        ":entries": write.entries,
        ":next": NumberValue.from(((write.seen ?? 0n) + 1n).toString()),
        ":tokens": new Set([token]),
        ":token": token,
        ":renters": NumberValue.from(write.addRenters.toString()),
        ...(write.seen === undefined ? {} : { ":seen": NumberValue.from(write.seen.toString()) }),
      },
    }),
  ));
}

/** A listing's lifetime totals item, or null before its first fact. */
export async function getLifetime(tables: Tables, onChainId: string): Promise<RollupItem | null> {
  const out = await exact(tables).send(new GetCommand({ TableName: tables.name("analytics"), Key: { pk: rollupPk(onChainId), sk: LIFETIME_SK } }));
  return out.Item ? toItem(out.Item) : null;
}

/** Deletes items of a partition (by its key) by sort key (the rebuild's clean-up of items it has no figures for). */
export async function deleteRollupItems(tables: Tables, pk: string, sks: string[]): Promise<void> {
  await batchWrite(tables, "analytics", sks.map((sk) => ({ DeleteRequest: { Key: { pk, sk } } })));
}

/** Records facts as applied (the rebuild counted them), so a replay after it counts nothing twice. */
export async function putAppliedFacts(tables: Tables, tokens: string[], details: Map<string, Record<string, string>> = new Map()): Promise<void> {
  await batchWrite(tables, "analytics", tokens.map((token) => ({ PutRequest: { Item: { ...factKey(token), ...details.get(token), state: "applied", claim: "rebuild", generation: 1, claimed_until: 0 } } })), 4);
}

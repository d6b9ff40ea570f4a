// The settler's lease in `meta` (docs/design/data-model.md): `settler#lease` / `<authority address>`,
// held by the one settler that sends with that key. `owner` is the holder, `token` counts the times the
// lease changed hands (a holder that lost it cannot renew it), `expires_at` is when a holder that stopped
// renewing may be replaced, `ends_at` when the holder means to stop (its invocation's deadline).
import { GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { applied, isConditionalCheckFailure, type Tables } from "../../adapters/tables/dynamo.ts";
import type { LeaseRecord, LeaseStore } from "./lease.ts";

export function settlerLeaseStore(tables: Tables, authority: string): LeaseStore {
  const key = { pk: "settler#lease", sk: authority.toLowerCase() };
  const TableName = tables.name("meta");
  return {
    async read() {
      const out = await tables.doc.send(new GetCommand({ TableName, Key: key, ConsistentRead: true }));
      const item = out.Item;
      if (!item || typeof item.owner !== "string") return null;
      return { owner: item.owner, token: Number(item.token), expires_at: Number(item.expires_at), ends_at: Number(item.ends_at ?? 0) };
    },
    async take(owner, now, ttlMs, endsAt) {
      try {
        const out = await tables.doc.send(
          new UpdateCommand({
            TableName,
            Key: key,
            UpdateExpression: "SET #owner = :me, expires_at = :exp, ends_at = :ends, #token = if_not_exists(#token, :zero) + :one",
            // One holder at a time: the lease is taken only when nobody holds it, its holder stopped
            // renewing it (expired), or it is this owner's already.
            ConditionExpression: "attribute_not_exists(pk) OR expires_at < :now OR #owner = :me",
            ExpressionAttributeNames: { "#owner": "owner", "#token": "token" },
            ExpressionAttributeValues: { ":me": owner, ":exp": now + ttlMs, ":ends": endsAt, ":now": now, ":zero": 0, ":one": 1 },
            ReturnValues: "ALL_NEW",
          }),
        );
        const item = out.Attributes!;
        return { owner, token: Number(item.token), expires_at: Number(item.expires_at), ends_at: Number(item.ends_at) };
      } catch (error) {
        if (isConditionalCheckFailure(error)) return null;
        throw error;
      }
    },
    renew(owner, token, now, ttlMs, endsAt) {
      return applied(
        tables.doc.send(
          new UpdateCommand({
            TableName,
            Key: key,
            UpdateExpression: "SET expires_at = :exp, ends_at = :ends",
            // Only the holder renews, and only while the lease is still the one it took.
            ConditionExpression: "#owner = :me AND #token = :token",
            ExpressionAttributeNames: { "#owner": "owner", "#token": "token" },
            ExpressionAttributeValues: { ":me": owner, ":token": token, ":exp": now + ttlMs, ":ends": endsAt },
          }),
        ),
      );
    },
    release(owner, token) {
      return applied(
        tables.doc.send(
          new UpdateCommand({
            TableName,
            Key: key,
            UpdateExpression: "SET expires_at = :gone, ends_at = :gone",
            // Only the holder gives the lease up (a lease taken over since is not the old holder's to free).
            ConditionExpression: "#owner = :me AND #token = :token",
            ExpressionAttributeNames: { "#owner": "owner", "#token": "token" },
            ExpressionAttributeValues: { ":me": owner, ":token": token, ":gone": 0 },
          }),
        ),
      );
    },
  };
}

export type { LeaseRecord };

// The settler's alarms in `meta` (docs/design/data-model.md): `settler#alarms` / `<authority address>`,
// written by the settler that holds the key's lease whenever an alarm starts or ends (and every few
// seconds while one is on), read by GET /v1/health in whichever process answers it.
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { Tables } from "../../adapters/tables/dynamo.ts";

/** An alarm that is on: its name (operator guide, "What to alarm on"), since when, and what it says. */
export interface SettlerAlarm {
  name: "fee_ceiling" | "settlement_stalled" | "nonce_gap" | "deep_reorg";
  since: string;
  message: string;
}

const key = (authority: string) => ({ pk: "settler#alarms", sk: authority.toLowerCase() });

/** Unconditional: the lease holder is the one writer; a stale holder's last write is overwritten by the next. */
export async function putSettlerAlarms(tables: Tables, authority: string, alarms: SettlerAlarm[]): Promise<void> {
  await tables.doc.send(new PutCommand({ TableName: tables.name("meta"), Item: { ...key(authority), alarms, updated_at: new Date().toISOString() } }));
}

/** The alarms the settler last wrote, and when. */
export async function getSettlerAlarms(tables: Tables, authority: string): Promise<{ alarms: SettlerAlarm[]; updated_at: string } | null> {
  const out = await tables.doc.send(new GetCommand({ TableName: tables.name("meta"), Key: key(authority) }));
  if (!out.Item) return null;
  return { alarms: (out.Item.alarms as SettlerAlarm[] | undefined) ?? [], updated_at: String(out.Item.updated_at) };
}

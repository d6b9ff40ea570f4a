// oidc-provider's storage adapter: one adapter per kind of record (its model name), each over the
// `oauth` table's store (record.store.ts). The kinds differ in what they protect:
// - AuthorizationCode and RefreshToken are consumed once, atomically: a replayed code or a refresh
//   token presented again after it was rotated revokes the whole grant (every code and token issued
//   under it), then fails as invalid_grant (OAuth 2.1 §4.3.1, §6.1);
// - Grant carries the wallet index Connected apps lists and revokes by;
// - Client holds dynamically registered clients (RFC 7591), each with a lifetime (client.store.ts);
//   clients identified by a metadata document are fetched, never stored;
// - Interaction and Session live minutes, for one authorization each.
import { errors, type Adapter, type AdapterPayload } from "oidc-provider";
import type { Tables } from "../adapters/tables/dynamo.ts";
import { destroyRecord, findRecord, findSessionByUid, upsertRecord, type OAuthKind } from "./record.store.ts";
import { AlreadyConsumedError, consumeRecord } from "./token.store.ts";
import { revokeGrantFamily } from "./grant.store.ts";
import { UNUSED_CLIENT_TTL_SECONDS } from "./client.store.ts";

/** The kinds whose records are used once. */
const CONSUMED_ONCE = new Set<OAuthKind>(["AuthorizationCode", "RefreshToken"]);

export function createAdapterFactory(tables: Tables): (name: string) => Adapter {
  return (kind) => ({
    async upsert(id, payload, expiresIn) {
      // A registered client lives a week unless someone approves it (then as long as its grant can:
      // client.store.ts); the library gives registrations no lifetime of their own.
      const lifetime = kind === "Client" && expiresIn === undefined ? UNUSED_CLIENT_TTL_SECONDS : expiresIn;
      await upsertRecord(tables, kind, id, payload as Record<string, unknown>, lifetime);
    },
    async find(id) {
      return (await findRecord(tables, kind, id)) as AdapterPayload | undefined;
    },
    async findByUid(uid) {
      return kind === "Session" ? ((await findSessionByUid(tables, uid)) as AdapterPayload | undefined) : undefined;
    },
    async findByUserCode() {
      // The device flow is not enabled: there are no user codes.
      return undefined;
    },
    async consume(id) {
      if (!CONSUMED_ONCE.has(kind)) {
        // Other kinds are not presented by clients; a plain mark is enough.
        await consumeRecord(tables, kind, id).catch((error: unknown) => {
          if (!(error instanceof AlreadyConsumedError)) throw error;
        });
        return;
      }
      try {
        await consumeRecord(tables, kind, id);
      } catch (error) {
        if (!(error instanceof AlreadyConsumedError)) throw error;
        // Two presentations of one code, or a rotated refresh token used again: whoever holds the other
        // copy may be an attacker, so the whole family goes (RFC 9700 §4.14.2).
        if (error.grantId) await revokeGrantFamily(tables, error.grantId);
        throw new errors.InvalidGrant(kind === "RefreshToken" ? "refresh token already used" : "authorization code already used");
      }
    },
    async destroy(id) {
      await destroyRecord(tables, kind, id);
    },
    async revokeByGrantId(grantId) {
      await revokeGrantFamily(tables, grantId);
    },
  });
}

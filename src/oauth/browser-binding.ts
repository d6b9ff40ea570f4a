// An approval is finished only by the browser that both started the sign-in and approved it
// (docs/design/decisions/0100-an-approval-is-finished-by-the-browser-that-started-it.md).
//
// GET /oauth/authorize leaves a signed cookie in the browser that started it (the library's `resume`
// cookie, on the API's origin, for /oauth/authorize/{request_id} only). The approval, made in the
// dashboard by whichever browser opened the consent page, answers that browser alone a one-time secret in
// its `redirect_to`; the interaction keeps only the secret's digest. The sign-in continues only when one
// request brings both: the cookie of the browser that started it and the secret given to the one that
// approved. A consent link sent to someone else therefore grants nothing: the approving browser lacks the
// cookie, the starting browser lacks the secret. A failed attempt voids the approval (its grant revoked,
// the request gone), so a secret that leaks later opens nothing either.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type Provider from "oidc-provider";
import type { KoaContextWithOIDC } from "oidc-provider";
import type { Tables } from "../adapters/tables/dynamo.ts";
import { revokeGrantFamily } from "./grant.store.ts";

/** The query parameter of `redirect_to` that carries the approval's secret. */
export const APPROVAL_PARAM = "approval";

/** Where the approval's digest is kept in the interaction's result. */
const DIGEST_FIELD = "approval_digest";

const digestOf = (secret: string) => createHash("sha256").update(secret).digest();

/** A fresh approval secret, and what the interaction keeps of it. */
export function approvalSecret(): { secret: string; result: Record<string, string> } {
  const secret = randomBytes(32).toString("base64url");
  return { secret, result: { [DIGEST_FIELD]: digestOf(secret).toString("base64url") } };
}

/** The URL the approving browser goes to: the resumption, with the approval's secret. */
export function withApproval(returnTo: string, secret: string): string {
  const url = new URL(returnTo);
  url.searchParams.set(APPROVAL_PARAM, secret);
  return url.href;
}

const RESUME_PATH = /\/oauth\/authorize\/([A-Za-z0-9_-]{1,64})$/;

const REFUSAL =
  "invalid_request: this sign-in was approved in a browser other than the one that started it, so it cannot be finished. Nothing was granted: start again from the app, in this browser.\n";

/** Checks every resumption of an approved sign-in, before the library continues it. */
export function bindApprovalsToBrowser(provider: Provider, tables: Tables): void {
  provider.use(async (ctx: KoaContextWithOIDC, next: () => Promise<unknown>) => {
    const match = ctx.method === "GET" ? RESUME_PATH.exec(ctx.path) : null;
    if (!match) return next();
    const uid = match[1]!;
    const interaction = await provider.Interaction.find(uid);
    const kept = (interaction?.result as Record<string, unknown> | undefined)?.[DIGEST_FIELD];
    // Not approved (undecided, denied, unknown, expired): the library answers as it does.
    if (!interaction || typeof kept !== "string") return next();
    const cookie = ctx.cookies.get(provider.cookieName("resume"), { signed: true });
    const presented = ctx.query[APPROVAL_PARAM];
    const expected = Buffer.from(kept, "base64url");
    const secretMatches = typeof presented === "string" && presented.length > 0 && timingSafeEqual(digestOf(presented), expected);
    if (cookie === uid && secretMatches) return next();
    // Another browser: the approval is void, whoever tries next.
    const grantId = (interaction.result as { consent?: { grantId?: unknown } }).consent?.grantId;
    await interaction.destroy();
    if (typeof grantId === "string") await revokeGrantFamily(tables, grantId);
    ctx.status = 400;
    ctx.type = "text/plain; charset=utf-8";
    ctx.set("cache-control", "no-store");
    ctx.body = REFUSAL;
  });
}

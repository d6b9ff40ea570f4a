// Authentication (step one of the two-step check): `Authorization: Bearer <API key, JWT or OAuth access
// token>`, in front of every route of the authenticated group (route-groups.ts); public routes are
// mounted without it. Proves identity only; access to a listing is checked per route.
//
// An OAuth access token is also checked against the route: its audience must cover the path called
// (RFC 8707; src/oauth/resources.ts) and it must hold the scope the route declares (`oauthScope`); a
// route that declares none refuses it. Every 401 and every scope refusal carries the RFC 9728/6750
// challenge: `WWW-Authenticate: Bearer resource_metadata="…", scope="…"`, so an app that connects by URL
// finds the authorization server from the refusal alone.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "../../errors.ts";
import { RATE_RULES } from "../../adapters/ratelimit/policy.ts";
import { enforceRule, rateLimitKey } from "./rate-limit.ts";
import type { AppEnv } from "../env.ts";
import type { RouteDeclaration } from "../route.ts";
import type { Principal } from "../../auth/principal.ts";
import { apiBaseOf } from "../../a2a/card.ts";
import { resourceCovers, resourceMetadataUrl } from "../../oauth/resources.ts";
import { PAYMENT_SIGNATURE_HEADER } from "../../x402/headers.ts";
import { a2aPaymentApplies, activatesX402, extensionsRequested } from "../../a2a/x402.ts";
import { paymentRequiredError, x402OfferOf, type X402Offer } from "../../x402/offer.ts";
import { WALLET_SIGNATURE_HEADER } from "../../erc8004/run-proof.ts";
import { a2aWalletReadApplies } from "../../a2a/x402-read.ts";

/** The largest body read ahead of the body rules to find the listing an unauthenticated request names. */
const PEEK_BODY_BYTES = 65_536;

/** The x402 offer of the listing an execute request's body names, read from a copy of the body (the
 * body rules and the schema read it after); undefined for any other listing or a body that names none. */
async function x402OfferOfRequest(c: Context<AppEnv>): Promise<X402Offer | undefined> {
  const length = Number(c.req.header("content-length") ?? Number.NaN);
  if (!(length > 0 && length <= PEEK_BODY_BYTES)) return undefined;
  let agentId: unknown;
  try {
    agentId = (JSON.parse(await c.req.raw.clone().text()) as { agent_id?: unknown } | null)?.agent_id;
  } catch {
    return undefined;
  }
  // An offer that cannot be looked up is no offer: the request is answered 401, as without x402.
  return typeof agentId === "string" && agentId.length <= 200 ? x402OfferOf(c.get("services"), agentId).catch(() => undefined) : undefined;
}

/** A copy of a small JSON body as text (the body rules and the handler read it after), or "" for any other. */
async function peekBody(c: Context<AppEnv>): Promise<string> {
  const length = Number(c.req.header("content-length") ?? Number.NaN);
  return length > 0 && length <= PEEK_BODY_BYTES ? c.req.raw.clone().text().catch(() => "") : "";
}

/** A bearer token is printable ASCII without spaces; anything longer than this is not one of ours. */
const TOKEN = /^[\x21-\x7e]{1,4096}$/;

async function principalOf(c: Context<AppEnv>) {
  const header = c.req.header("authorization");
  if (!header) throw new ApiError("unauthorized", "Missing Authorization header: send Authorization: Bearer <API key, JWT or access token>.");
  const match = /^Bearer +(.+)$/i.exec(header.trim());
  if (!match || !TOKEN.test(match[1]!)) {
    throw new ApiError("unauthorized", "Malformed Authorization header: expected Bearer <API key, JWT or access token>.");
  }
  return c.get("services").authenticator.authenticate(match[1]!);
}

/** The route's rules for an OAuth access token: the resource it was issued for covers this path, and it
 * holds the route's scope (a route without one takes no access token at all). */
function checkOAuthAccess(c: Context<AppEnv>, declared: RouteDeclaration, principal: Principal): void {
  const access = principal.oauth!;
  const base = apiBaseOf(c.get("services"));
  if (!resourceCovers(base, access.audience, c.req.path)) {
    throw new ApiError("invalid_token", `The access token was issued for ${access.audience}, not for this resource: sign in again for it.`);
  }
  if (!declared.oauthScope) {
    throw new ApiError("insufficient_scope", `${declared.method} ${declared.path} does not accept OAuth access tokens: use an API key or a wallet sign-in.`);
  }
  if (!access.scopes.includes(declared.oauthScope)) {
    throw new ApiError("insufficient_scope", `The access token does not hold the ${declared.oauthScope} scope this endpoint needs: sign in again from the app and approve it.`);
  }
}

/** RFC 6750 §3's challenge: the service's resource metadata (RFC 9728 §5.1), the scope the route needs,
 * and the error when a token was presented and refused. */
function challenge(c: Context<AppEnv>, declared: RouteDeclaration, error: ApiError): string {
  const base = apiBaseOf(c.get("services"));
  const parts = [`resource_metadata="${resourceMetadataUrl(base)}"`];
  if (declared.oauthScope) parts.push(`scope="${declared.oauthScope}"`);
  if (error.code === "insufficient_scope") parts.push(`error="insufficient_scope"`);
  else if (c.req.header("authorization")) parts.push(`error="invalid_token"`);
  return `Bearer ${parts.join(", ")}`;
}

/** The authentication in front of one route of the authenticated group. */
export function authenticateFor(declared: RouteDeclaration) {
  return createMiddleware<AppEnv>(async (c, next) => {
    // A route an x402 payment may pay for: without a bearer token, a payment goes on to the handler
    // (which admits it or refuses it), and a listing sold by x402 answers 402 with what to pay.
    if (declared.payableBy === "x402" && !c.req.header("authorization")) {
      if (c.req.header(PAYMENT_SIGNATURE_HEADER) !== undefined) return next();
      const offer = await x402OfferOfRequest(c);
      if (offer) {
        await enforceRule(c, c.get("services").rateLimiter, rateLimitKey(c), RATE_RULES.default, "open");
        throw paymentRequiredError(offer, new URL(c.req.path, apiBaseOf(c.get("services"))).toString(), "payment_required", "This listing is paid per run by x402: pay the PAYMENT-REQUIRED header's offer and send the payment in PAYMENT-SIGNATURE, or send Authorization: Bearer <API key, JWT or access token>.");
      }
    }
    // The A2A x402 extension: a message that activates it, to an agent sold by x402, is paid (or asked to
    // pay) by the handler; any other request without a bearer token is the 401 below.
    if (declared.payableBy === "x402-a2a" && !c.req.header("authorization") && activatesX402(extensionsRequested(c.req.header())) && (await a2aPaymentApplies(c.get("services"), c.req.param("agent_id") ?? "", extensionsRequested(c.req.header()), await peekBody(c)))) {
      return next();
    }
    // A route about one run its wallet may prove by signature: the handler checks it against the run.
    if (declared.provableBy === "wallet_signature" && !c.req.header("authorization") && c.req.header(WALLET_SIGNATURE_HEADER) !== undefined) return next();
    // On the A2A endpoint, only a GetTask may be proven so (the handler answers the wallet's x402 task).
    if (declared.provableBy === "wallet_signature-a2a" && !c.req.header("authorization") && c.req.header(WALLET_SIGNATURE_HEADER) !== undefined && a2aWalletReadApplies(await peekBody(c))) return next();
    try {
      const principal = await principalOf(c);
      if (principal.method === "oauth") checkOAuthAccess(c, declared, principal);
      c.set("principal", principal);
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.code === "insufficient_scope")) {
        const challenged = new ApiError(error.code, error.message, { headers: { ...error.headers, "WWW-Authenticate": challenge(c, declared, error) }, cause: error.cause });
        // A refused caller is counted by address under the default rule: the 401 carries the rate-limit
        // headers like every response, and guessing keys or tokens runs into 429.
        if (error.status === 401) await enforceRule(c, c.get("services").rateLimiter, rateLimitKey(c), RATE_RULES.default, "open");
        throw challenged;
      }
      throw error;
    }
    return next();
  });
}

// Agent Card signatures (A2A §8.4): a detached JWS (RFC 7515, flattened: `protected` and `signature`, no
// payload) over the RFC 8785 canonical form of the card without its `signatures`, signed with the newest
// of the service's card signing keys (CARD_SIGNING_KEYS; ES256). Every configured key's public half is
// published as the JSON Web Key Set at /.well-known/jwks.json, which each signature names (`jku`, `kid`),
// so keys rotate like the JWT keys: a new key first, the old one kept until cached cards have expired.
import canonicalize from "canonicalize";
import { FlattenedSign, flattenedVerify, importJWK, base64url, type CryptoKey, type JWK } from "jose";
import type { SigningKeyInput } from "../auth/jwt.ts";

export const CARD_SIGNING_ALG = "ES256";

/** One entry of a card's `signatures`, as it travels. */
export interface CardSignature {
  protected: string;
  signature: string;
}

/** A public key of the JWKS. */
export type PublicCardKey = JWK & { kid: string; alg: typeof CARD_SIGNING_ALG; use: "sig" };

/**
 * A card's JSON as A2A §8.4.1 canonicalises it before signing: without `signatures`, and without
 * properties holding a default value (empty strings, lists and objects, nulls), the ProtoJSON rule the
 * official SDKs apply before verifying (so a card signed here verifies there), then RFC 8785 by the
 * `canonicalize` package. The default removal is written here because it is A2A's rule over plain JSON,
 * which no library does; the canonical serialisation itself is the library's.
 */
export function canonicalCardPayload(card: Record<string, unknown>): string {
  const { signatures: _signatures, ...unsigned } = card;
  const text = canonicalize(withoutDefaults(unsigned) ?? {});
  if (text === undefined) throw new Error("the card cannot be canonicalised");
  return text;
}

/** The value without properties holding a protobuf default (undefined when nothing is left). */
function withoutDefaults(value: unknown): unknown {
  if (value === null || value === undefined || value === "") return undefined;
  if (Array.isArray(value)) {
    const kept = value.map(withoutDefaults).filter((item) => item !== undefined);
    return kept.length > 0 ? kept : undefined;
  }
  if (typeof value === "object") {
    const kept = Object.entries(value as Record<string, unknown>)
      .map(([key, item]) => [key, withoutDefaults(item)] as const)
      .filter(([, item]) => item !== undefined);
    return kept.length > 0 ? Object.fromEntries(kept) : undefined;
  }
  return value;
}

export interface CardSigner {
  /** The signature of `card` (its `signatures`, if any, are not signed), naming the key set at `jku`. */
  sign(card: Record<string, unknown>, jku: string): Promise<CardSignature>;
  /** The public keys, newest first. */
  publicKeys(): PublicCardKey[];
}

/** A signer over the configured keys: the first signs, every one is published. */
export function createCardSigner(keys: SigningKeyInput[]): CardSigner {
  if (keys.length === 0) throw new Error("at least one card signing key is required");
  const signing = keys[0]!;
  const publicKeys = keys.map(({ kid, privateJwk }): PublicCardKey => {
    const { d: _private, ...publicJwk } = privateJwk;
    return { ...publicJwk, kid, alg: CARD_SIGNING_ALG, use: "sig" };
  });
  let key: Promise<CryptoKey> | undefined;
  return {
    async sign(card, jku) {
      const payload = new TextEncoder().encode(canonicalCardPayload(card));
      key ??= importJWK(signing.privateJwk, CARD_SIGNING_ALG) as Promise<CryptoKey>;
      const jws = await new FlattenedSign(payload).setProtectedHeader({ alg: CARD_SIGNING_ALG, typ: "JOSE", kid: signing.kid, jku }).sign(await key);
      return { protected: jws.protected!, signature: jws.signature };
    },
    publicKeys: () => publicKeys,
  };
}

/**
 * Verifies a card's signature against a key set, as a client does (A2A §8.4.3): true when one of its
 * signatures verifies with the key its `kid` names. For the tests and for anyone checking a card.
 */
export async function verifyCardSignature(card: Record<string, unknown>, jwks: { keys: JWK[] }): Promise<boolean> {
  const signatures = Array.isArray(card.signatures) ? (card.signatures as CardSignature[]) : [];
  const payload = base64url.encode(canonicalCardPayload(card));
  for (const entry of signatures) {
    try {
      const header = JSON.parse(new TextDecoder().decode(base64url.decode(entry.protected))) as { kid?: string };
      const jwk = jwks.keys.find((k) => k.kid === header.kid);
      if (!jwk) continue;
      await flattenedVerify({ protected: entry.protected, signature: entry.signature, payload }, await importJWK(jwk, CARD_SIGNING_ALG));
      return true;
    } catch {
      // try the next signature
    }
  }
  return false;
}

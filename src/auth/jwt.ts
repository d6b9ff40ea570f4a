// Wallet-signature JWTs: ES256, signed with the newest of the configured keys, verified against any
// of them by `kid` (so keys rotate without logging anyone out). `alg: none`, other algorithms, unknown
// kids and foreign keys are refused.
import { SignJWT, jwtVerify, importJWK, errors, type JWK, type CryptoKey } from "jose";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { getAddress, type Address } from "viem";
import { ApiError } from "../errors.ts";

export const JWT_LIFETIME_SECONDS = 3600;
const ALG = "ES256";

export interface SigningKeyInput {
  kid: string;
  privateJwk: JWK;
}

export interface JwtIssuer {
  issue(wallet: Address, now?: number): Promise<{ token: string; expires_at: number }>;
  verify(token: string): Promise<{ wallet: Address; expiresAt: number }>;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

export function createJwtIssuer(options: { keys: SigningKeyInput[]; issuer: string; audience: string }): JwtIssuer {
  if (options.keys.length === 0) throw new Error("at least one JWT signing key is required");
  const signing = options.keys[0]!;
  // Keys are imported once, on first use.
  let imported: Promise<{ signingKey: CryptoKey; verifying: Map<string, CryptoKey> }> | undefined;
  const keys = () =>
    (imported ??= (async () => {
      const verifying = new Map<string, CryptoKey>();
      for (const key of options.keys) {
        const { d: _private, ...publicJwk } = key.privateJwk;
        verifying.set(key.kid, (await importJWK(publicJwk, ALG)) as CryptoKey);
      }
      return { signingKey: (await importJWK(signing.privateJwk, ALG)) as CryptoKey, verifying };
    })());
  return {
    async issue(wallet, now = Math.floor(Date.now() / 1000)) {
      const { signingKey } = await keys();
      const expires_at = now + JWT_LIFETIME_SECONDS;
      const token = await new SignJWT({})
        .setProtectedHeader({ alg: ALG, kid: signing.kid, typ: "JWT" })
        .setSubject(getAddress(wallet))
        .setIssuer(options.issuer)
        .setAudience(options.audience)
        .setIssuedAt(now)
        .setExpirationTime(expires_at)
        .setJti(randomBytes(12).toString("hex"))
        .sign(signingKey);
      return { token, expires_at };
    },
    async verify(token) {
      const { verifying } = await keys();
      try {
        const { payload } = await jwtVerify(
          token,
          async (header) => {
            const key = header.kid ? verifying.get(header.kid) : undefined;
            if (!key) throw new errors.JWKSNoMatchingKey();
            return key;
          },
          { algorithms: [ALG], issuer: options.issuer, audience: options.audience, requiredClaims: ["sub", "exp", "iat"] },
        );
        const sub = payload.sub ?? "";
        if (!/^0x[0-9a-fA-F]{40}$/.test(sub)) throw new Error("subject is not a wallet");
        return { wallet: getAddress(sub), expiresAt: payload.exp! };
      } catch (error) {
        if (error instanceof errors.JWTExpired) throw new ApiError("jwt_expired", "The JWT has expired; sign in again (GET /v1/auth/challenge, then POST /v1/auth/token).");
        throw new ApiError("unauthorized", "The JWT is invalid.");
      }
    },
  };
}

/** A new EC P-256 signing key with a fresh kid (local key file, tests, and rotation tooling). */
export function generateSigningKey(): SigningKeyInput {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { kid: `k_${randomBytes(6).toString("hex")}`, privateJwk: privateKey.export({ format: "jwk" }) as JWK };
}

// Cloud secrets: SST Secrets linked to the function, read through SST's Resource (delivered in an
// encrypted file, never as plain environment variables). Returned as the configuration settings they
// stand for, so `loadConfig` validates them like any other setting.
import { Resource } from "sst/resource";

export function cloudSecretSettings(): Record<string, string> {
  const linked = Resource as unknown as Record<string, { value: string } | undefined>;
  const value = (name: string) => linked[name]?.value;
  const settings: Record<string, string | undefined> = {
    JWT_SIGNING_KEYS: value("JwtSigningKeys"),
    // Signs every A2A Agent Card; its public keys are the JWKS at /.well-known/jwks.json.
    CARD_SIGNING_KEYS: value("CardSigningKeys"),
    // The OAuth authorization server's keys (its cookies, its key set).
    OAUTH_SIGNING_KEYS: value("OAuthSigningKeys"),
    // The protocol authority's key: per-query settlement (consumeQuery) and the run log (logRuns).
    AUTHORITY_PRIVATE_KEY: value("AuthorityPrivateKey"),
    // The RPC URL of a hosted node carries an access token.
    RPC_URL: value("RpcUrl"),
    UPSTASH_REDIS_REST_URL: value("UpstashRedisUrl"),
    UPSTASH_REDIS_REST_TOKEN: value("UpstashRedisToken"),
  };
  return Object.fromEntries(Object.entries(settings).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

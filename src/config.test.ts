import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./config.ts";
import { generateSigningKey } from "./auth/jwt.ts";

const valid = {
  STAGE: "cloud",
  REGISTRATION_QUEUE_URL: "https://sqs.us-east-1.amazonaws.com/1/registration",
  REGISTRATION_DLQ_URL: "https://sqs.us-east-1.amazonaws.com/1/registration-dlq",
  SETTLEMENT_QUEUE_URL: "https://sqs.us-east-1.amazonaws.com/1/settlement",
  BLOB_BUCKET: "agent-rental-blobs",
  RPC_URL: "https://sepolia.base.org",
  CHAIN_ID: "84532",
  MARKETPLACE_ADDRESS: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  JWT_SIGNING_KEYS: JSON.stringify([generateSigningKey()]),
  CARD_SIGNING_KEYS: JSON.stringify([generateSigningKey()]),
  OAUTH_SIGNING_KEYS: JSON.stringify([generateSigningKey()]),
  UPSTASH_REDIS_REST_URL: "https://eu1-example.upstash.io",
  UPSTASH_REDIS_REST_TOKEN: "token",
  KMS_KEY_ID: "alias/agent-rental",
  AUTHORITY_PRIVATE_KEY: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  RUNNER_FUNCTION_NAME: "agent-rental-production-Runner",
};

describe("loadConfig", () => {
  it("parses a complete cloud configuration with defaults", () => {
    const config = loadConfig(valid);
    expect(config).toMatchObject({ STAGE: "cloud", CHAIN_ID: 84532, PORT: 8787, MAX_BODY_BYTES: 1_048_576, keyPrefix: "svc_test_" });
  });

  it("names every missing setting", () => {
    const { RPC_URL: _rpc, BLOB_BUCKET: _bucket, ...rest } = valid;
    const error = (() => {
      try {
        loadConfig(rest);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual(expect.arrayContaining(["RPC_URL is missing", "BLOB_BUCKET is missing"]));
  });

  it("names a malformed setting and says what is wrong", () => {
    expect(() => loadConfig({ ...valid, MARKETPLACE_ADDRESS: "0x1234" })).toThrow(/MARKETPLACE_ADDRESS must be a 0x-prefixed 20-byte hex address/);
    expect(() => loadConfig({ ...valid, CHAIN_ID: "abc" })).toThrow(/CHAIN_ID/);
    expect(() => loadConfig({ ...valid, RPC_URL: "not a url" })).toThrow(/RPC_URL must be a URL/);
    expect(() => loadConfig({ ...valid, JWT_SIGNING_KEYS: "{" })).toThrow(/JWT_SIGNING_KEYS must be a JSON array/);
    expect(() => loadConfig({ ...valid, JWT_SIGNING_KEYS: "[]" })).toThrow(/JWT_SIGNING_KEYS must hold at least one key/);
  });

  it("requires the card signing keys, the OAuth keys and the runner function in the cloud, and leaves the authority key to the settler (which alone holds it)", () => {
    const { AUTHORITY_PRIVATE_KEY: _key, RUNNER_FUNCTION_NAME: _runner, CARD_SIGNING_KEYS: _card, OAUTH_SIGNING_KEYS: _oauth, ...rest } = valid;
    expect(() => loadConfig(rest)).toThrow(/OAUTH_SIGNING_KEYS is required when STAGE=cloud/);
    expect(() => loadConfig({ ...valid, OAUTH_SIGNING_KEYS: "[]" })).toThrow(/OAUTH_SIGNING_KEYS must hold at least one key/);
    expect(() => loadConfig(rest)).toThrow(/RUNNER_FUNCTION_NAME/);
    expect(() => loadConfig(rest)).toThrow(/CARD_SIGNING_KEYS is required when STAGE=cloud/);
    expect(() => loadConfig({ ...valid, CARD_SIGNING_KEYS: "[]" })).toThrow(/CARD_SIGNING_KEYS must hold at least one key/);
    expect(() => loadConfig(rest)).not.toThrow(/AUTHORITY_PRIVATE_KEY/);
    const { AUTHORITY_PRIVATE_KEY: _k, ...withoutAuthority } = valid;
    expect(loadConfig(withoutAuthority).AUTHORITY_PRIVATE_KEY).toBeUndefined();
    expect(() => loadConfig({ ...valid, AUTHORITY_PRIVATE_KEY: "0x1234" })).toThrow(/AUTHORITY_PRIVATE_KEY must be a 0x-prefixed 32-byte hex private key/);
    const secret = `0x${"ab".repeat(31)}zz`;
    const error = (() => {
      try {
        loadConfig({ ...valid, AUTHORITY_PRIVATE_KEY: secret });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(error?.message).toMatch(/AUTHORITY_PRIVATE_KEY/);
    expect(error?.message).not.toContain(secret);
  });

  it("takes the TokenMarketplace and the tokens listings may be priced in, and names a malformed token list", () => {
    expect(loadConfig(valid).TOKENS).toEqual([]);
    const usdc = { address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e", symbol: "USDC", name: "USDC", version: "2", decimals: 6, eip3009: true };
    const config = loadConfig({ ...valid, TOKEN_MARKETPLACE_ADDRESS: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512", TOKENS: JSON.stringify([usdc, { ...usdc, address: "0x5FbDB2315678afecb367f032d93F642f64180aa3", symbol: "RENT", eip3009: undefined }]) });
    expect(config.TOKEN_MARKETPLACE_ADDRESS).toBe("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512");
    expect(config.TOKENS.map((token) => [token.symbol, token.eip3009])).toEqual([["USDC", true], ["RENT", false]]);
    expect(() => loadConfig({ ...valid, TOKENS: "{" })).toThrow(/TOKENS must be a JSON array of \{address, symbol, name, version, decimals, eip3009\?\}/);
    expect(() => loadConfig({ ...valid, TOKENS: JSON.stringify([{ ...usdc, decimals: 99 }]) })).toThrow(/TOKENS/);
    expect(() => loadConfig({ ...valid, TOKEN_MARKETPLACE_ADDRESS: "0x12" })).toThrow(/TOKEN_MARKETPLACE_ADDRESS/);
  });

  it("requires Upstash in the cloud, and its token with its URL", () => {
    const { UPSTASH_REDIS_REST_URL: _u, UPSTASH_REDIS_REST_TOKEN: _t, ...withoutUpstash } = valid;
    expect(() => loadConfig(withoutUpstash)).toThrow(/UPSTASH_REDIS_REST_URL is required when STAGE=cloud/);
    const { UPSTASH_REDIS_REST_TOKEN: _t2, ...withoutToken } = valid;
    expect(() => loadConfig(withoutToken)).toThrow(/UPSTASH_REDIS_REST_TOKEN is required/);
  });

  it("requires the emulator endpoints in the local stage", () => {
    expect(() => loadConfig({ ...valid, STAGE: "local" })).toThrow(/DYNAMODB_ENDPOINT is required when STAGE=local/);
  });

  it("requires the settlement queue, and bounds the settlement settings", () => {
    const { SETTLEMENT_QUEUE_URL: _queue, ...rest } = valid;
    expect(() => loadConfig(rest)).toThrow(/SETTLEMENT_QUEUE_URL is missing/);
    expect(loadConfig(valid)).toMatchObject({ CHAIN_BLOCK_TIME_MS: 0, SETTLEMENT_WAIT_MS: 15_000, SETTLER_LEASE_MS: 15_000, SETTLER_LEAD_MS: 150, SETTLER_MAX_BATCH: 1_000 });
    expect(loadConfig({ ...valid, CHAIN_BLOCK_TIME_MS: "2000" }).CHAIN_BLOCK_TIME_MS).toBe(2_000);
    for (const [name, value] of [["CHAIN_BLOCK_TIME_MS", "-1"], ["CHAIN_BLOCK_TIME_MS", "60001"], ["CHAIN_BLOCK_TIME_MS", "1.5"], ["SETTLEMENT_WAIT_MS", "50"], ["SETTLER_LEASE_MS", "999"], ["SETTLER_MAX_BATCH", "0"], ["SETTLER_MAX_BATCH", "2001"], ["SETTLER_LEAD_MS", "abc"]] as const) {
      expect(() => loadConfig({ ...valid, [name]: value }), `${name}=${value}`).toThrow(new RegExp(name));
    }
  });

  it("takes the network's profile from its chain id or its name, settings overriding its depth and fee ceiling", () => {
    expect(loadConfig(valid).network).toMatchObject({ name: "base-sepolia", chainId: 84532, finalityDepth: 10, maxFeePerGasWei: 2_000_000_000n });
    const mainnet = loadConfig({ ...valid, CHAIN_ID: "8453", FINALITY_DEPTH: "20", MAX_FEE_PER_GAS_WEI: "5000000000", MAX_GAS_SHARE_BPS: "500" });
    expect(mainnet.network).toMatchObject({ name: "base", finalityDepth: 20, maxFeePerGasWei: 5_000_000_000n, maxGasShareBps: 500 });
    // A second local node standing in for Base Sepolia is named as one; an unknown chain must be named.
    expect(loadConfig({ ...valid, NETWORK: "base-sepolia" }).network.name).toBe("base-sepolia");
    expect(() => loadConfig({ ...valid, CHAIN_ID: "999" })).toThrow(/NETWORK is required for chain 999/);
    expect(() => loadConfig({ ...valid, NETWORK: "ethereum" })).toThrow(/ethereum is chain 1, not CHAIN_ID 84532/);
    expect(() => loadConfig({ ...valid, NETWORK: "moon" })).toThrow(/NETWORK must be one of local, base-sepolia/);
    expect(loadConfig({ ...valid, NETWORK: "local", CHAIN_ID: "999" }).network).toMatchObject({ name: "local", chainId: 999, finalityDepth: 0 });
    // The indexer's confirmations: 3, or the finality depth when that is less; a setting wins.
    expect(loadConfig(valid).INDEXER_CONFIRMATIONS).toBe(3);
    expect(loadConfig({ ...valid, NETWORK: "local", CHAIN_ID: "31337" }).INDEXER_CONFIRMATIONS).toBe(0);
    expect(loadConfig({ ...valid, FINALITY_DEPTH: "1" }).INDEXER_CONFIRMATIONS).toBe(1);
    expect(loadConfig({ ...valid, INDEXER_CONFIRMATIONS: "5" }).INDEXER_CONFIRMATIONS).toBe(5);
  });

  it("chooses the API key prefix from the chain: svc_test_ on test networks, svc_live_ on mainnet", () => {
    expect(loadConfig({ ...valid, CHAIN_ID: "31337" }).keyPrefix).toBe("svc_test_");
    expect(loadConfig({ ...valid, CHAIN_ID: "8453" }).keyPrefix).toBe("svc_live_");
  });
});

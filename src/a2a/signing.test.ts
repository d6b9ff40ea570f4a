import { describe, expect, it } from "vitest";
import { AgentCard, canonicalizeAgentCard, verifyAgentCardSignature } from "@a2a-js/sdk";
import { generateSigningKey } from "../auth/jwt.ts";
import { buildAgentCard } from "./card.ts";
import { canonicalCardPayload, createCardSigner, verifyCardSignature } from "./signing.ts";
import type { Listing } from "../listings/catalogue.ts";

const listing: Listing = {
  id: `lst_${"ab".repeat(32)}`,
  title: "Contract Reviewer",
  description: "Reviews contracts",
  category: ["legal"],
  rental_model: "one_time",
  price_eth: 0.001,
  currency: { symbol: "ETH", address: null, decimals: 18 },
  price_units: "1000000000000000",
  run_count: 0,
  success_rate: 0,
  creator: { id: "0x1", display_name: "Ada", listing_count: 1 },
  rating: 0,
  review_count: 0,
  last_updated: "2026-01-01T00:00:00.000Z",
  sample_output: [],
  published_at: "2026-01-01T00:00:00.000Z",
  status: "active",
  on_chain_id: `0x${"ab".repeat(32)}`,
  metadata_uri: "ipfs://bafkexample",
  erc8004: null,
};

const wireCard = () =>
  AgentCard.toJSON(
    buildAgentCard({ listing, agentId: "contract-reviewer-abababab", priceWei: "1000000000000000", metadata: { input_schema: { type: "object", properties: { contract: { type: "string" } }, required: ["contract"] }, output_schema: { type: "object" } }, apiBase: "https://api.example", dashboardBase: "https://app.example" }),
  ) as Record<string, unknown>;

describe("Agent Card signatures", () => {
  it("canonicalise a card as the official SDK does: RFC 8785 over the card without signatures and without empty values (false and 0 kept)", () => {
    const card = { ...wireCard(), signatures: [{ protected: "x", signature: "y" }] };
    expect(canonicalCardPayload(card)).toBe(canonicalizeAgentCard(card as unknown as AgentCard));
    expect(canonicalCardPayload(card)).toContain('"pushNotifications":false');
    expect(canonicalCardPayload(card)).not.toContain("signatures");
    expect(canonicalCardPayload({ b: 1, a: [], c: { d: "" }, e: false })).toBe('{"b":1,"e":false}');
  });

  it("sign with the first key; every key is published, so a card signed before a rotation still verifies; another key set does not", async () => {
    const [older, newer] = [generateSigningKey(), generateSigningKey()];
    const before = createCardSigner([older]);
    const after = createCardSigner([newer, older]);
    const card = wireCard();
    const oldSignature = await before.sign(card, "https://api.example/.well-known/jwks.json");
    const newSignature = await after.sign(card, "https://api.example/.well-known/jwks.json");
    const jwks = { keys: after.publicKeys() };
    expect(jwks.keys.map((k) => k.kid)).toEqual([newer.kid, older.kid]);
    expect(jwks.keys.every((k) => !("d" in k))).toBe(true);
    expect(await verifyCardSignature({ ...card, signatures: [oldSignature] }, jwks)).toBe(true);
    expect(await verifyCardSignature({ ...card, signatures: [newSignature] }, jwks)).toBe(true);
    expect(await verifyCardSignature({ ...card, signatures: [newSignature] }, { keys: createCardSigner([generateSigningKey()]).publicKeys() })).toBe(false);
    expect(await verifyCardSignature({ ...card, name: "Other", signatures: [newSignature] }, jwks)).toBe(false);
    await expect(verifyAgentCardSignature(async (kid) => jwks.keys.find((k) => k.kid === kid)!)({ ...card, signatures: [newSignature] } as unknown as AgentCard)).resolves.toBeUndefined();
  });
});

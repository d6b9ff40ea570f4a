// The product's words (packages/core/src/vocabulary.ts): the specification's values, pinned here on purpose so that
// changing one is a decision, and the contract's enums, read from the Solidity source.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  ACCESS_TYPE,
  CATEGORIES,
  CHAIN_CREDENTIAL_STATUSES,
  CHAIN_LISTING_STATUSES,
  CREDENTIAL_STATUSES,
  FINISHED_RUN_STATUSES,
  JOB_STATUSES,
  LISTED_CREDENTIAL_STATUSES,
  LISTING_STATUSES,
  PROVIDERS,
  RENTAL_MODELS,
  rentalModelOf,
  REVIEW_STATUSES,
  RUN_STATUSES,
  SEARCH_SORTS,
  SETTLEMENT_STATES,
} from "@agent-rental/core/vocabulary";

const contract = readFileSync(new URL("../../contracts/src/Marketplace.sol", import.meta.url), "utf8");

/** The members of a Solidity enum, in declaration order, in the API's snake_case. */
function solidityEnum(name: string): string[] {
  const body = new RegExp(`enum\\s+${name}\\s*\\{([^}]*)\\}`).exec(contract)?.[1];
  if (body === undefined) throw new Error(`enum ${name} is not in Marketplace.sol`);
  return body
    .split(",")
    .map((member) => member.replace(/\/\/.*$/gm, "").trim())
    .filter(Boolean)
    .map((member) => member.replace(/(?<=[a-z0-9])([A-Z])/g, "_$1").toLowerCase());
}

describe("the vocabulary", () => {
  it("holds the specification's categories, rental models, providers, sorts and states", () => {
    expect(CATEGORIES).toEqual(["finance", "legal", "coding", "research", "sales", "content"]);
    expect(RENTAL_MODELS).toEqual(["one_time", "subscription", "per_query"]);
    expect(PROVIDERS).toEqual(["provider_a", "provider_b", "self_hosted"]);
    expect(SEARCH_SORTS).toEqual(["relevance", "rating", "price_asc", "price_desc", "newest"]);
    expect(LISTING_STATUSES).toEqual(["active", "paused", "closed"]);
    expect(CREDENTIAL_STATUSES).toEqual(expect.arrayContaining(["active", "expired", "low_balance", "not_found"]));
    expect(FINISHED_RUN_STATUSES).toEqual(["completed", "failed"]);
    expect(JOB_STATUSES).toEqual(["queued", "completed", "failed"]);
  });

  it("holds the service's own states: revoked and listing_closed credentials, running runs, settlement, reviews", () => {
    expect(CREDENTIAL_STATUSES).toEqual(["active", "expired", "low_balance", "revoked", "listing_closed", "not_found"]);
    expect(RUN_STATUSES).toEqual(["running", "completed", "failed"]);
    expect(SETTLEMENT_STATES).toEqual(["none", "pending", "settled", "refused"]);
    expect(REVIEW_STATUSES).toEqual(["pending", "approved", "rejected"]);
  });

  it("derives its narrower lists from the wider ones, in the same order", () => {
    expect(LISTED_CREDENTIAL_STATUSES).toEqual(CREDENTIAL_STATUSES.filter((s) => s !== "not_found"));
    expect(FINISHED_RUN_STATUSES).toEqual(RUN_STATUSES.filter((s) => s !== "running"));
    expect(CHAIN_LISTING_STATUSES).toEqual(["none", ...LISTING_STATUSES]);
    expect([...CHAIN_CREDENTIAL_STATUSES].sort()).toEqual([...CREDENTIAL_STATUSES].sort());
  });

  it("lists the contract's AccessType, ListingStatus and CredentialStatus enums in declaration order", () => {
    expect(solidityEnum("AccessType")).toEqual([...RENTAL_MODELS]);
    expect(solidityEnum("ListingStatus")).toEqual([...CHAIN_LISTING_STATUSES]);
    expect(solidityEnum("CredentialStatus")).toEqual([...CHAIN_CREDENTIAL_STATUSES]);
  });

  it("maps each rental model to its AccessType value and back, and refuses a value the enum does not have", () => {
    expect(ACCESS_TYPE).toEqual({ one_time: 0, subscription: 1, per_query: 2 });
    for (const model of RENTAL_MODELS) expect(rentalModelOf(ACCESS_TYPE[model])).toBe(model);
    expect(() => rentalModelOf(3)).toThrow(RangeError);
    expect(() => rentalModelOf(-1)).toThrow(/not a value of the contract's AccessType enum/);
    expect(Object.isFrozen(ACCESS_TYPE)).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { chargeCapAt } from "./read-charge-cap.ts";
import { chargeCapRefusal } from "../execution/money/charge-cap.ts";

const DAY = 86_400;
const T0 = 1_700_000_000;

describe("chargeCapAt: the cap as a charge now meets it", () => {
  it("is null for a renter who set none", () => {
    expect(chargeCapAt(false, [0n, 0, 0, 0n], 5n, T0)).toBeNull();
  });

  it("counts the current period's charges as baseline minus balance", () => {
    expect(chargeCapAt(true, [300n, DAY, T0, 1_000n], 800n, T0 + 10)).toEqual({ amount: 300n, periodSeconds: DAY, periodStartsAt: T0, periodEndsAt: T0 + DAY, charged: 200n, remaining: 100n, at: T0 + 10 });
  });

  it("opens the period that holds now once the stored one is over, aligned to whole periods", () => {
    expect(chargeCapAt(true, [300n, DAY, T0, 1_000n], 700n, T0 + DAY - 1)).toMatchObject({ charged: 300n, remaining: 0n, periodEndsAt: T0 + DAY });
    expect(chargeCapAt(true, [300n, DAY, T0, 1_000n], 700n, T0 + DAY)).toMatchObject({ charged: 0n, remaining: 300n, periodStartsAt: T0 + DAY });
    expect(chargeCapAt(true, [300n, DAY, T0, 1_000n], 700n, T0 + 3 * DAY + 5)).toMatchObject({ periodStartsAt: T0 + 3 * DAY, periodEndsAt: T0 + 4 * DAY });
  });
});

describe("chargeCapRefusal", () => {
  const cap = chargeCapAt(true, [300n, DAY, T0, 1_000n], 800n, T0)!;

  it("lets a run through that fits, exactly to the cap", () => {
    expect(chargeCapRefusal(cap, 100n)).toBeNull();
    expect(chargeCapRefusal(null, 10n ** 30n)).toBeNull();
  });

  it("refuses one that would pass it: 402 spend_limit_reached naming the contract's error, Retry-After to the period's end on the chain's clock", () => {
    // Read a minute before the period ends by the chain's clock, whatever the service's clock says.
    const late = chargeCapAt(true, [300n, DAY, T0, 1_000n], 800n, T0 + DAY - 60)!;
    const refusal = chargeCapRefusal(late, 101n, "TokenMarketplace")!;
    expect(refusal.code).toBe("spend_limit_reached");
    expect(refusal.status).toBe(402);
    expect(refusal.onChainError).toEqual({ contract: "TokenMarketplace", error: "ChargeCapExceeded" });
    expect(refusal.headers["Retry-After"]).toBe("60");
    expect(refusal.message).toContain(new Date((T0 + DAY) * 1000).toISOString());
  });
});

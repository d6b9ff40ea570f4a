// The spending limits' pure rules: the periods' windows and reset times (calendar, UTC), and the limits'
// validation.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../errors.ts";
import { limitCurrencies, parseSpendLimits, storedSpendLimits, windowOf } from "./spend-limits.ts";

describe("windowOf", () => {
  it("puts an instant in its UTC calendar day and month, each resetting at the next boundary; a total never resets", () => {
    const at = new Date("2026-12-31T23:59:59.999Z");
    expect(windowOf("day", at)).toEqual({ id: "day#2026-12-31", resetsAt: new Date("2027-01-01T00:00:00.000Z") });
    expect(windowOf("month", at)).toEqual({ id: "month#2026-12", resetsAt: new Date("2027-01-01T00:00:00.000Z") });
    expect(windowOf("day", new Date("2027-01-01T00:00:00.000Z")).id).toBe("day#2027-01-01");
    expect(windowOf("month", new Date("2028-02-29T12:00:00Z"))).toEqual({ id: "month#2028-02", resetsAt: new Date("2028-03-01T00:00:00.000Z") });
    expect(windowOf("total", at)).toEqual({ id: "total", resetsAt: null });
  });
});

describe("parseSpendLimits", () => {
  it("takes limits per period and currency (ETH by default), amounts as exact wei", () => {
    expect(parseSpendLimits([{ period: "day", amount: "3000000000000000" }, { currency: "ETH", period: "total", amount: 5 }])).toEqual([
      { currency: "ETH", period: "day", amount: "3000000000000000" },
      { currency: "ETH", period: "total", amount: "5" },
    ]);
    expect(parseSpendLimits([])).toEqual([]);
    expect(parseSpendLimits([{ period: "month", amount: (10n ** 24n).toString() }])[0]!.amount).toBe("1000000000000000000000000");
  });

  const USDC = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
  const tokens = limitCurrencies([{ symbol: "USDC", address: USDC, decimals: 6 }, { symbol: "RENT", address: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512", decimals: 18 }]);

  it("takes a configured token by symbol (any case) or address, stored as its symbol, bounded at 1,000,000 whole tokens", () => {
    expect(parseSpendLimits([{ currency: "usdc", period: "day", amount: "5000000" }, { currency: USDC.toLowerCase(), period: "total", amount: (10n ** 12n).toString() }, { currency: "RENT", period: "day", amount: "7" }, { period: "day", amount: "9" }], "spend_limits", tokens)).toEqual([
      { currency: "USDC", period: "day", amount: "5000000" },
      { currency: "USDC", period: "total", amount: "1000000000000" },
      { currency: "RENT", period: "day", amount: "7" },
      { currency: "ETH", period: "day", amount: "9" },
    ]);
    expect(() => parseSpendLimits([{ currency: "USDC", period: "day", amount: (10n ** 12n + 1n).toString() }], "spend_limits", tokens)).toThrow(/largest limit, 1000000000000 USDC units/);
    expect(() => parseSpendLimits([{ currency: USDC, period: "day", amount: "1" }, { currency: "USDC", period: "day", amount: "1" }], "spend_limits", tokens)).toThrow(/two limits for USDC per day/);
    // Without the token configured, its limit is refused.
    expect(() => parseSpendLimits([{ currency: "USDC", period: "day", amount: "1" }])).toThrow(/not a currency any listing is priced in \(ETH\)/);
  });

  it("reads stored token limits without the configuration (a token limit is never dropped)", () => {
    expect(storedSpendLimits([{ currency: "USDC", period: "day", amount: "7" }, { currency: "ETH", period: "month", amount: "9" }])).toEqual([
      { currency: "USDC", period: "day", amount: "7" },
      { currency: "ETH", period: "month", amount: "9" },
    ]);
  });

  it.each([
    [[{ period: "day", amount: "-1" }], /more than 0/],
    [[{ period: "day", amount: "0" }], /more than 0/],
    [[{ period: "day", amount: (10n ** 24n + 1n).toString() }], /largest limit/],
    [[{ period: "day", amount: 1.5 }], /whole number/],
    [[{ period: "week", amount: "1" }], /day, month, total/],
    [[{ amount: "1" }], /day, month, total/],
    [[{ currency: "USDC", period: "day", amount: "1" }], /not a currency any listing is priced in/],
    [[{ period: "day", amount: "1" }, { period: "day", amount: "2" }], /two limits/],
    [[{ period: "day", amount: "1", extra: 1 }], /unknown field/],
    [{ period: "day", amount: "1" }, /must be an array/],
  ])("refuses %j with invalid_request (%s)", (value, message) => {
    let thrown: unknown;
    try {
      parseSpendLimits(value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ code: "invalid_request", status: 400 });
    expect((thrown as ApiError).message).toMatch(message);
  });

  it("reads a stored item's limits through the same rules (a broken one bounds nothing rather than breaking authentication)", () => {
    expect(storedSpendLimits(undefined)).toEqual([]);
    expect(storedSpendLimits([{ currency: "ETH", period: "day", amount: "7" }])).toEqual([{ currency: "ETH", period: "day", amount: "7" }]);
    expect(storedSpendLimits([{ period: "fortnight", amount: "7" }])).toEqual([]);
  });
});

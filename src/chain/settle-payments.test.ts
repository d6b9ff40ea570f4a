import { describe, expect, it } from "vitest";
import { decodeFunctionData, encodeAbiParameters, encodeEventTopics, pad, size, slice, toFunctionSelector, toHex, type Address, type Hex, type Log, type TransactionReceipt } from "viem";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { GROUP_HEADER_BYTES, PAYMENT_BYTES, paymentGroups, paymentOutcomesOf, settledPaymentsOf, settlePaymentsBatch, settlePaymentsData, type TokenPayment } from "./settle-payments.ts";

const LISTING = `0x${"ab".repeat(32)}` as Hex;
const OTHER = `0x${"22".repeat(32)}` as Hex;
const MARKET = "0x00000000000000000000000000000000000000aa" as Address;
const signature = `0x${"a1".repeat(32)}${"b2".repeat(32)}1b` as Hex;

const payment = (n: number, over: Partial<TokenPayment> = {}): TokenPayment => ({
  listingId: LISTING,
  from: `0x${n.toString(16).padStart(40, "0")}` as Address,
  value: 1_000_000n,
  validAfter: 1_700_000_000n,
  validBefore: 1_700_000_600n,
  nonce: pad(toHex(1000 + n), { size: 32 }),
  runRef: pad(toHex(256 + n), { size: 32 }),
  signature,
  ...over,
});

describe("settlePaymentsBatch", () => {
  it("writes a group's header and each payment's 135 bytes, big-endian, in the contract's layout", () => {
    const p = payment(7);
    const batch = settlePaymentsBatch([p]);
    expect(size(batch)).toBe(GROUP_HEADER_BYTES + PAYMENT_BYTES);
    expect(slice(batch, 0, 32)).toBe(LISTING);
    expect(slice(batch, 32, 64)).toBe(pad(toHex(1_000_000n), { size: 32 }));
    expect(slice(batch, 64, 66)).toBe("0x0001");
    const at = GROUP_HEADER_BYTES;
    expect(slice(batch, at, at + 20)).toBe(p.from);
    expect(slice(batch, at + 20, at + 25)).toBe(toHex(1_700_000_000n, { size: 5 }));
    expect(slice(batch, at + 25, at + 30)).toBe(toHex(1_700_000_600n, { size: 5 }));
    expect(slice(batch, at + 30, at + 62)).toBe(p.nonce);
    expect(slice(batch, at + 62, at + 70)).toBe(toHex(256 + 7, { size: 8 })); // the dense run reference
    expect(slice(batch, at + 70, at + 135)).toBe(signature); // r, s, v
  });

  it("groups by listing and value in the order of each group's first payment, keeping the payments' order", () => {
    const [a, b, c, d, e] = [payment(1), payment(2, { listingId: OTHER }), payment(3), payment(4, { value: 999_999n }), payment(5, { listingId: `0x${"AB".repeat(32)}` })];
    expect(paymentGroups([a, b, c, d, e])).toEqual([[a, c, e], [b], [d]]);
    const batch = settlePaymentsBatch([a, b, c, d, e]);
    expect(size(batch)).toBe(3 * GROUP_HEADER_BYTES + 5 * PAYMENT_BYTES);
    expect(slice(batch, 64, 66)).toBe("0x0003");
    const second = GROUP_HEADER_BYTES + 3 * PAYMENT_BYTES;
    expect(slice(batch, second, second + 32)).toBe(OTHER);
    expect(slice(batch, second + 64, second + 66)).toBe("0x0001");
  });

  it("starts another group of the same listing and value past the largest count", () => {
    const ps = [1, 2, 3, 4, 5].map((n) => payment(n));
    expect(paymentGroups(ps, 2).map((g) => g.length)).toEqual([2, 2, 1]);
  });

  it("writes what the contract cannot be given so the token refuses it: a signature not of 65 bytes, a time past 5 bytes", () => {
    const batch = settlePaymentsBatch([payment(1, { signature: `0x${"ab".repeat(64)}`, validBefore: 2n ** 40n })]);
    const at = GROUP_HEADER_BYTES;
    expect(slice(batch, at + 25, at + 30)).toBe("0xffffffffff");
    expect(slice(batch, at + 70, at + 135)).toBe(pad("0x", { size: 65 }));
  });

  it("refuses a run reference that is not dense: the batch has 8 bytes for it", () => {
    expect(() => settlePaymentsBatch([payment(1, { runRef: `0x${"ff".repeat(32)}` })])).toThrow(RangeError);
    expect(size(settlePaymentsBatch([payment(1, { runRef: pad(toHex(2n ** 64n - 1n), { size: 32 }) })]))).toBe(GROUP_HEADER_BYTES + PAYMENT_BYTES);
  });

  it("is what settlePayments' calldata carries; no payments is the empty batch", () => {
    const ps = [payment(1), payment(2, { listingId: OTHER })];
    const { functionName, args } = decodeFunctionData({ abi: tokenMarketplaceAbi, data: settlePaymentsData(ps) });
    expect(functionName).toBe("settlePayments");
    expect(args).toEqual([settlePaymentsBatch(ps)]);
    expect(settlePaymentsBatch([])).toBe("0x");
  });
});

describe("settledPaymentsOf", () => {
  it("reads each word of a PaymentsSettled as the payer (high 160 bits) and the run reference (low 96)", () => {
    const payer = "0x00000000000000000000000000000000000000a1";
    expect(settledPaymentsOf([(BigInt(payer) << 96n) | 300n])).toEqual([{ payer, runRef: pad(toHex(300), { size: 32 }) }]);
  });
});

describe("paymentOutcomesOf", () => {
  let logIndex = 0;
  const log = (eventName: "PaymentRefused" | "PaymentsSettled", args: Record<string, unknown>, address: Address = MARKET): Log => {
    const event = tokenMarketplaceAbi.find((item) => item.type === "event" && item.name === eventName)!;
    const topics = encodeEventTopics({ abi: [event], eventName, args } as never);
    const inputs = (event as { inputs: readonly { indexed?: boolean; name: string }[] }).inputs.filter((input) => !input.indexed);
    const data = encodeAbiParameters(inputs as never, inputs.map((input) => args[input.name]) as never);
    return { address, topics, data, logIndex: logIndex++, blockNumber: 1n, blockHash: `0x${"0".repeat(64)}`, transactionHash: `0x${"f".repeat(64)}`, transactionIndex: 0, removed: false } as unknown as Log;
  };
  const refused = (p: TokenPayment, error: string) => log("PaymentRefused", { listingId: p.listingId, payer: p.from, runRef: p.runRef, reason: selectorOf(error) });
  const settled = (listingId: Hex, ps: TokenPayment[], address: Address = MARKET) => log("PaymentsSettled", { listingId, amount: 1_000_000n, fee: 25_000n, payments: ps.map((p) => (BigInt(p.from) << 96n) | BigInt(p.runRef)) }, address);
  const selectorOf = (name: string) => toFunctionSelector([...tokenMarketplaceAbi, ...marketplaceAbi].find((item) => item.type === "error" && item.name === name) as never);
  const receipt = (logs: Log[]) => ({ to: MARKET, logs }) as unknown as TransactionReceipt;
  const ok = { outcome: "settled", amount: 1_000_000n, fee: 25_000n };

  it("matches each group's refusals, then its settled payments, to the payments in their order", () => {
    const [a, b, c, d] = [payment(1), payment(2, { listingId: OTHER }), payment(3), payment(4, { value: 1n })];
    // groups [a, c], [b], [d]: c refused, then a settled; b settled; d refused
    const logs = [refused(c, "AuthorizationFailed"), settled(LISTING, [a]), settled(OTHER, [b]), refused(d, "IncorrectPayment")];
    expect(paymentOutcomesOf(receipt(logs), [a, b, c, d])).toEqual([ok, ok, { outcome: "refused", error: "AuthorizationFailed" }, { outcome: "refused", error: "IncorrectPayment" }]);
  });

  it("tells two payments of one run apart: the one refused as already charged came after the one that settled", () => {
    const first = payment(1);
    const again = payment(1, { nonce: pad("0x99", { size: 32 }) });
    expect(paymentOutcomesOf(receipt([refused(again, "RunAlreadyCharged"), settled(LISTING, [first])]), [first, again])).toEqual([ok, { outcome: "refused", error: "RunAlreadyCharged" }]);
    // the first refused (its signature), the second settled
    expect(paymentOutcomesOf(receipt([refused(first, "AuthorizationFailed"), settled(LISTING, [again])]), [first, again])).toEqual([{ outcome: "refused", error: "AuthorizationFailed" }, ok]);
  });

  it("says NoEvent for a payment the receipt does not name, and reads only the contract's own logs", () => {
    const [a, b] = [payment(1), payment(2)];
    expect(paymentOutcomesOf(receipt([settled(LISTING, [a])]), [a, b])).toEqual([ok, { outcome: "refused", error: "NoEvent" }]);
    const elsewhere = "0x00000000000000000000000000000000000000bb" as Address;
    expect(paymentOutcomesOf(receipt([settled(LISTING, [a, b], elsewhere)]), [a, b])).toEqual([{ outcome: "refused", error: "NoEvent" }, { outcome: "refused", error: "NoEvent" }]);
  });
});

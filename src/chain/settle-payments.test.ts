import { describe, expect, it } from "vitest";
import { decodeFunctionData, encodeAbiParameters, encodeEventTopics, pad, size, slice, toFunctionSelector, toHex, type Address, type Hex, type Log, type TransactionReceipt } from "viem";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { marketplaceAbi } from "@agent-rental/core/marketplace";
import { batchPaymentsOf, GROUP_HEADER_BYTES, PAYMENT_BYTES, paymentGroups, paymentOutcomesOf, settledPaymentsOfTransaction, settlePaymentsBatch, settlePaymentsData, type TokenPayment } from "./settle-payments.ts";

const LISTING = `0x${"ab".repeat(32)}` as Hex;
const OTHER = `0x${"22".repeat(32)}` as Hex;
const MARKET = "0x00000000000000000000000000000000000000aa" as Address;
const signature = `0x${"a1".repeat(32)}${"b2".repeat(32)}1b` as Hex;

/** A TokenMarketplace event's log, as a receipt carries it. */
const eventLog = (eventName: "PaymentRefused" | "PaymentsSettled", args: Record<string, unknown>, logIndex: number, address: Address = MARKET): Log => {
  const event = tokenMarketplaceAbi.find((item) => item.type === "event" && item.name === eventName)!;
  const topics = encodeEventTopics({ abi: [event], eventName, args } as never);
  const inputs = (event as { inputs: readonly { indexed?: boolean; name: string }[] }).inputs.filter((input) => !input.indexed);
  const data = encodeAbiParameters(inputs as never, inputs.map((input) => args[input.name]) as never);
  return { address, topics, data, logIndex, blockNumber: 1n, blockHash: `0x${"0".repeat(64)}`, transactionHash: `0x${"f".repeat(64)}`, transactionIndex: 0, removed: false } as unknown as Log;
};

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

describe("batchPaymentsOf", () => {
  it("reads back every field of the payments settlePaymentsData wrote, in batch order", () => {
    const ps = [payment(1), payment(2, { listingId: OTHER }), payment(3), payment(4, { value: 7n, runRef: pad(toHex(2n ** 63n), { size: 32 }) })];
    // the batch's order: the groups in order of their first payment
    expect(batchPaymentsOf(settlePaymentsData(ps))).toEqual([ps[0], ps[2], ps[1], ps[3]]);
    expect(batchPaymentsOf(settlePaymentsData([]))).toEqual([]);
  });

  it("is null for another function's calldata or a batch that is not whole groups", () => {
    expect(batchPaymentsOf("0x")).toBeNull();
    expect(batchPaymentsOf(toFunctionSelector("settlePayments(bytes)"))).toBeNull();
    const whole = settlePaymentsBatch([payment(1)]);
    const encode = (batch: Hex) => `${toFunctionSelector("settlePayments(bytes)")}${encodeAbiParameters([{ type: "bytes" }], [batch]).slice(2)}` as Hex;
    expect(batchPaymentsOf(encode(whole))).toHaveLength(1);
    expect(batchPaymentsOf(encode(slice(whole, 0, size(whole) - 1)))).toBeNull();
    expect(batchPaymentsOf(encode(`${whole}00`))).toBeNull();
    expect(batchPaymentsOf(encode(`${slice(whole, 0, 64)}0000`))).toBeNull();
  });
});

describe("paymentOutcomesOf", () => {
  let logIndex = 0;
  const log = (eventName: "PaymentRefused" | "PaymentsSettled", args: Record<string, unknown>, address: Address = MARKET): Log => eventLog(eventName, args, logIndex++, address);
  const refused = (p: TokenPayment, error: string) => log("PaymentRefused", { listingId: p.listingId, payer: p.from, runRef: p.runRef, reason: selectorOf(error) });
  const settled = (listingId: Hex, ps: TokenPayment[], address: Address = MARKET) => log("PaymentsSettled", { listingId, amount: 1_000_000n, fee: 25_000n, count: BigInt(ps.length) }, address);
  const selectorOf = (name: string) => toFunctionSelector([...tokenMarketplaceAbi, ...marketplaceAbi].find((item) => item.type === "error" && item.name === name) as never);
  const receipt = (logs: Log[]) => ({ to: MARKET, logs }) as unknown as TransactionReceipt;
  const ok = { outcome: "settled", amount: 1_000_000n, fee: 25_000n, logIndex: expect.any(Number) };

  it("matches each group's refusals, then its settled payments, to the payments in their order", () => {
    const [a, b, c, d] = [payment(1), payment(2, { listingId: OTHER }), payment(3), payment(4, { value: 1n })];
    // groups [a, c], [b], [d]: c refused, then a settled; b settled; d refused
    const logs = [refused(c, "AuthorizationFailed"), settled(LISTING, [a]), settled(OTHER, [b]), refused(d, "IncorrectPayment")];
    expect(paymentOutcomesOf(receipt(logs), [a, b, c, d])).toEqual([ok, ok, { outcome: "refused", error: "AuthorizationFailed" }, { outcome: "refused", error: "IncorrectPayment" }]);
  });

  it("settles the payments of a group its refusals do not name, once its PaymentsSettled counts exactly them", () => {
    const [a, b, c] = [payment(1), payment(2), payment(3)];
    const logs = [refused(b, "AuthorizationFailed"), settled(LISTING, [a, c])];
    const outcomes = paymentOutcomesOf(receipt(logs), [a, b, c]);
    expect(outcomes).toEqual([ok, { outcome: "refused", error: "AuthorizationFailed" }, ok]);
    expect(outcomes[0]).toMatchObject({ logIndex: logs[1]!.logIndex });
    // a count that does not add up decides none of the rest
    expect(paymentOutcomesOf(receipt([refused(b, "AuthorizationFailed"), settled(LISTING, [a])]), [a, b, c])).toEqual([{ outcome: "refused", error: "NoEvent" }, { outcome: "refused", error: "AuthorizationFailed" }, { outcome: "refused", error: "NoEvent" }]);
    // every payment refused: no PaymentsSettled, and the next group's events are its own
    const d = payment(4, { listingId: OTHER });
    expect(paymentOutcomesOf(receipt([refused(a, "AuthorizationFailed"), settled(OTHER, [d])]), [a, d])).toEqual([{ outcome: "refused", error: "AuthorizationFailed" }, ok]);
  });

  it("of one authorization sent twice for a run, settles one and refuses the other", () => {
    const first = payment(1);
    const outcomes = paymentOutcomesOf(receipt([refused(first, "AuthorizationFailed"), settled(LISTING, [first])]), [first, { ...first }]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(["refused", "settled"]);
  });

  it("says NoEvent for a payment the receipt does not decide, and reads only the contract's own logs", () => {
    const [a, b] = [payment(1), payment(2)];
    expect(paymentOutcomesOf(receipt([]), [a, b])).toEqual([{ outcome: "refused", error: "NoEvent" }, { outcome: "refused", error: "NoEvent" }]);
    expect(paymentOutcomesOf(receipt([settled(LISTING, [a])]), [a, b])).toEqual([{ outcome: "refused", error: "NoEvent" }, { outcome: "refused", error: "NoEvent" }]);
    const elsewhere = "0x00000000000000000000000000000000000000bb" as Address;
    expect(paymentOutcomesOf(receipt([settled(LISTING, [a, b], elsewhere)]), [a, b])).toEqual([{ outcome: "refused", error: "NoEvent" }, { outcome: "refused", error: "NoEvent" }]);
  });
});

describe("settledPaymentsOfTransaction", () => {
  const event = (eventName: "PaymentRefused" | "PaymentsSettled", args: Record<string, unknown>, logIndex: number): Log => eventLog(eventName, args, logIndex);
  const reason = toFunctionSelector([...tokenMarketplaceAbi].find((item) => item.type === "error" && item.name === "AuthorizationFailed") as never);

  it("names each settled payment's payer and run from the input, under its group's PaymentsSettled, and remembers a mined block's answer", async () => {
    const [a, b, c] = [payment(1), payment(2), payment(3, { listingId: OTHER })];
    const blockHash = `0x${"c".repeat(64)}` as Hex;
    const hash = `0x${"d".repeat(64)}` as Hex;
    const logs = [event("PaymentRefused", { listingId: LISTING, payer: b.from, runRef: b.runRef, reason }, 3), event("PaymentsSettled", { listingId: LISTING, amount: 1_000_000n, fee: 25_000n, count: 1n }, 4), event("PaymentsSettled", { listingId: OTHER, amount: 1_000_000n, fee: 25_000n, count: 1n }, 7)];
    let reads = 0;
    const client = {
      getTransaction: async () => (reads++, { input: settlePaymentsData([a, b, c]), to: MARKET }),
      getTransactionReceipt: async () => ({ to: MARKET, blockHash, logs }) as unknown as TransactionReceipt,
    };
    const settled = await settledPaymentsOfTransaction(client, hash, blockHash);
    expect(settled).toEqual([
      { listingId: LISTING, payer: a.from, runRef: a.runRef, amount: 1_000_000n, fee: 25_000n, logIndex: 4, index: 0 },
      { listingId: OTHER, payer: c.from, runRef: c.runRef, amount: 1_000_000n, fee: 25_000n, logIndex: 7, index: 0 },
    ]);
    expect(await settledPaymentsOfTransaction(client, hash, blockHash)).toEqual(settled);
    expect(reads).toBe(1);
  });

  it("settles nothing for a transaction that is not a settlePayments call", async () => {
    const client = {
      getTransaction: async () => ({ input: "0x12345678" as Hex, to: MARKET }),
      getTransactionReceipt: async () => ({ to: MARKET, blockHash: `0x${"e".repeat(64)}`, logs: [event("PaymentsSettled", { listingId: LISTING, amount: 1n, fee: 0n, count: 1n }, 0)] }) as unknown as TransactionReceipt,
    };
    expect(await settledPaymentsOfTransaction(client, `0x${"1".repeat(64)}`, null)).toEqual([]);
  });
});

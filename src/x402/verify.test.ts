// The x402 payment checks against payments the official client (@x402/core's x402Client with
// @x402/evm's ExactEvmScheme and a viem account) makes: what it signs is accepted, and each way a
// payment can be wrong is refused with its reason, or, for a header that is no payment, the 400.
import { describe, expect, it } from "vitest";
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { x402Client } from "@x402/core/client";
import { encodePaymentSignatureHeader, decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { ExactEvmScheme, toClientEvmSigner } from "@x402/evm";
import { ApiError } from "../errors.ts";
import { paymentRequired, paymentRequirements, paymentRequiredHeader, type X402Token } from "./index.ts";
import { readPaymentSignature, MAX_PAYMENT_HEADER_CHARS } from "./headers.ts";
import { checkPayment, checkPaymentState, PAYMENT_REFUSALS } from "./verify.ts";

const token: X402Token = { address: "0x5FbDB2315678afecb367f032d93F642f64180aa3", symbol: "USDC", decimals: 6, name: "USD Coin", version: "2" };
const payTo = "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512" as const;
const required = paymentRequirements({ chainId: 31337, token, amount: 250_000n, payTo });
const payer = privateKeyToAccount(generatePrivateKey());
const now = () => Math.floor(Date.now() / 1000);

// The policy a paying agent sets: our token on our chain. (Payments built to be wrong come from a client
// with no spend controls, on any EVM network.)
function clientFor(account = payer, anything = false) {
  const scheme = new ExactEvmScheme(toClientEvmSigner(account));
  if (anything) return x402Client.fromConfig({ schemes: [{ network: "eip155:*", client: scheme }], spendControls: false });
  return x402Client.fromConfig({ schemes: [{ network: "eip155:31337", client: scheme }], spendControls: { allowedAssets: [{ network: "eip155:31337", asset: token.address }] } });
}

async function pay(requirements: PaymentRequirements = required, account = payer): Promise<PaymentPayload> {
  return clientFor(account, requirements !== required).createPaymentPayload(paymentRequired({ url: "http://127.0.0.1/v1/execute" }, [requirements], "payment required"));
}

const header = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString("base64");
const read = (payload: PaymentPayload) => readPaymentSignature(encodePaymentSignatureHeader(payload));

describe("x402 payment requirements", () => {
  it("offer the exact scheme on eip155:<chain id>, the amount, the token, the TokenMarketplace and the token's EIP-712 domain, readable by the client's decoder", () => {
    const body = decodePaymentRequiredHeader(paymentRequiredHeader(paymentRequired({ url: "http://x/v1/execute" }, [required], "payment required")));
    expect(body.x402Version).toBe(2);
    expect(body.accepts).toEqual([{ scheme: "exact", network: "eip155:31337", amount: "250000", asset: token.address, payTo, maxTimeoutSeconds: 600, extra: { name: "USD Coin", version: "2" } }]);
  });
});

describe("x402 payment checks", () => {
  it("are met by the official client only when its policy allows our token: its default policy pays none but its built-in tokens", async () => {
    const strict = x402Client.fromConfig({ schemes: [{ network: "eip155:31337", client: new ExactEvmScheme(toClientEvmSigner(payer)) }] });
    await expect(strict.createPaymentPayload(paymentRequired({ url: "http://x/v1/execute" }, [required], "payment required"))).rejects.toThrow(/spendControls/);
  });

  it("accept the official client's payment, made with a policy that allows our token on our chain", async () => {
    const payment = read(await pay());
    expect(payment.authorization.from).toBe(payer.address);
    expect(await checkPayment(payment, required, now())).toEqual({ ok: true });
    expect(checkPaymentState(payment, { nonceUsed: false, balance: 250_000n })).toEqual({ ok: true });
  });

  it("refuse a payment signed for another amount, asset, network or recipient, each with its reason", async () => {
    const cases: [Partial<PaymentRequirements>, string][] = [
      [{ amount: "1" }, PAYMENT_REFUSALS.amount],
      [{ asset: "0x0000000000000000000000000000000000000001" }, PAYMENT_REFUSALS.asset],
      [{ network: "eip155:8453" }, PAYMENT_REFUSALS.network],
      [{ payTo: "0x0000000000000000000000000000000000000002" }, PAYMENT_REFUSALS.payTo],
    ];
    for (const [change, reason] of cases) {
      const result = await checkPayment(read(await pay({ ...required, ...change })), required, now());
      expect(result, JSON.stringify(change)).toMatchObject({ ok: false, reason });
    }
  });

  it("refuse an expired and a not-yet-valid authorization", async () => {
    const payment = read(await pay());
    expect(await checkPayment(payment, required, now() + 700)).toMatchObject({ ok: false, reason: PAYMENT_REFUSALS.expired });
    const later = { ...payment, authorization: { ...payment.authorization, validAfter: String(now() + 60) } };
    // (Changing the window also breaks the signature; the window is judged first, as the library does.)
    expect(await checkPayment(later, required, now())).toMatchObject({ ok: false, reason: PAYMENT_REFUSALS.notYetValid });
  });

  it("refuse another wallet's signature over the payer's authorization", async () => {
    const payment = read(await pay());
    const other = read(await pay(required, privateKeyToAccount(generatePrivateKey())));
    expect(await checkPayment({ ...payment, signature: other.signature }, required, now())).toMatchObject({ ok: false, reason: PAYMENT_REFUSALS.signature });
  });

  it("refuse a used nonce and a payer without the balance", async () => {
    const payment = read(await pay());
    expect(checkPaymentState(payment, { nonceUsed: true, balance: 10n ** 12n })).toMatchObject({ ok: false, reason: PAYMENT_REFUSALS.nonceUsed });
    expect(checkPaymentState(payment, { nonceUsed: false, balance: 249_999n })).toMatchObject({ ok: false, reason: PAYMENT_REFUSALS.balance });
  });
});

describe("x402 PAYMENT-SIGNATURE header", () => {
  it("is a 400 invalid_request when it is no payment: not base64, not JSON, another version, no authorization, a bad field, or too long", async () => {
    const good = await pay();
    const bad = [
      "not base64!",
      Buffer.from("{not json").toString("base64"),
      header({ ...good, x402Version: 1 }),
      header({ ...good, payload: { signature: (good.payload as { signature: string }).signature } }),
      header({ ...good, payload: { ...good.payload, authorization: { ...(good.payload as { authorization: object }).authorization, value: "-1" } } }),
      header({ ...good, payload: { ...good.payload, authorization: { ...(good.payload as { authorization: object }).authorization, nonce: "0x12" } } }),
      "A".repeat(MAX_PAYMENT_HEADER_CHARS + 4),
      "A".repeat(1024 * 1024),
    ];
    for (const value of bad) {
      let caught: unknown;
      try {
        readPaymentSignature(value);
      } catch (error) {
        caught = error;
      }
      expect(caught, value.slice(0, 40)).toBeInstanceOf(ApiError);
      expect((caught as ApiError).code).toBe("invalid_request");
    }
  });
});

// A per-query charge as it travels on the settlement queue, from the process that ran the run to the
// settler (docs/design/settlement.md). The settler trusts nothing in it that the contract does not
// check again: the authority charges `ref` at most once, at most `max_price`, and only against a valid
// credential with the balance for it. A body that does not parse is logged and dropped.
import { z } from "zod";
import type { Address, Hex } from "viem";

const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const DECIMAL = /^(0|[1-9][0-9]{0,77})$/;

const schema = z
  .object({
    v: z.literal(1),
    /** The run the charge pays for (for logs and the settlement record; the chain knows it by `ref`). */
    run_id: z.string().regex(/^run_[0-9a-f]{32}$/),
    /** The on-chain listing id. */
    listing: z.string().regex(BYTES32),
    buyer: z.string().regex(ADDRESS),
    /** The contract the listing lives on: "token" for the TokenMarketplace; absent for the Marketplace
     * (ETH), so every message sent before tokens existed still reads the same. */
    market: z.literal("token").optional(),
    /** The run's charge reference: the bytes32 `runRef` the contract marks. */
    ref: z.string().regex(BYTES32),
    /** The price the run was admitted at, in wei: the most the charge may take. */
    max_price: z.string().regex(DECIMAL),
    /** The chain's head when the charge was handed over: the charge cannot be in an earlier block. */
    since_block: z.string().regex(DECIMAL).optional(),
    /** Milliseconds since the epoch after which the charge is not sent: a run still recorded as running
     * by then is finished by the stale-run sweep from what the chain says, so no charge may land later. */
    not_after: z.number().int().positive().optional(),
    /** An x402 payment (market "token" only): the payer's signed EIP-3009 authorization of `max_price` to
     * the TokenMarketplace. The settler sends it in a `settlePayments` batch instead of charging a
     * balance; `buyer` is its payer (decision 0180). */
    payment: z
      .object({
        valid_after: z.string().regex(DECIMAL),
        valid_before: z.string().regex(DECIMAL),
        nonce: z.string().regex(BYTES32),
        signature: z.string().regex(/^0x[0-9a-fA-F]{130}$/),
      })
      .strict()
      .optional(),
  })
  .strict()
  .refine((m) => m.payment === undefined || m.market === "token", { message: "an x402 payment is settled on the TokenMarketplace only (market: token)", path: ["payment"] });

export type ChargeMessage = z.infer<typeof schema> & { listing: Hex; buyer: Address; ref: Hex; payment?: { nonce: Hex; signature: Hex } };

/** The largest body a charge message may be (a valid one is about 400 bytes; with an x402 payment about 750). */
export const MAX_CHARGE_MESSAGE_BYTES = 1_536;

/** Which batch a charge goes in: the Marketplace's consumeQueries, the TokenMarketplace's consumeQueries,
 * or the TokenMarketplace's settlePayments. */
export type ChargeKind = "eth" | "token" | "x402";

export function chargeKindOf(message: Pick<ChargeMessage, "market" | "payment">): ChargeKind {
  return message.payment ? "x402" : message.market === "token" ? "token" : "eth";
}

export function chargeMessageBody(message: ChargeMessage): string {
  return JSON.stringify(schema.parse(message));
}

/** The message in `body`, or the reason it is not one. */
export function parseChargeMessage(body: string): { ok: true; message: ChargeMessage } | { ok: false; reason: string } {
  if (body.length > MAX_CHARGE_MESSAGE_BYTES) return { ok: false, reason: `the body is ${body.length} bytes, over ${MAX_CHARGE_MESSAGE_BYTES}` };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, reason: "the body is not JSON" };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) return { ok: false, reason: parsed.error.issues.map((issue) => `${issue.path.join(".") || "(body)"}: ${issue.message}`).join("; ") };
  const message = parsed.data as ChargeMessage;
  if (BigInt(message.max_price) === 0n) return { ok: false, reason: "max_price: must be above 0" };
  return { ok: true, message: { ...message, listing: message.listing.toLowerCase() as Hex, buyer: message.buyer.toLowerCase() as Address, ref: message.ref.toLowerCase() as Hex } };
}

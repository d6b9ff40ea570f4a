// Gas benchmark of the token marketplace: each token purchase (approve-then-purchase, permit,
// EIP-3009) and an x402 settlement batch on a fresh local chain, beside the lower bound its storage
// writes force (as bench/gas.ts: 21,000 + 22,100 per new slot + 5,000 per changed cold slot; calldata
// and unavoidable cold reads are not in it). A token purchase also writes the token's storage (the
// payer's and the contract's balances, an allowance or an authorization nonce): those slots are in the
// bound too. The settlement batch is set beside one plain EIP-3009 transfer per transaction; it is
// measured twice: with small nonces and an authorization valid from 0 (the figure the target is judged
// on, as before), and as x402 clients sign (random nonces, valid from ten minutes ago), whose calldata
// costs about 370 gas a payment more.
// Run: node --import tsx bench/gas-tokens.ts   (exits non-zero only on an error, never on a missed target)
// With --breakdown, each token purchase and settlePayments batch is traced (debug_traceTransaction) and
// its gas (per payment for a batch) split into the base, calldata, the token's own work, the call into it,
// the balance checks, the events and the marketplace's own execution (of which its storage reads and
// writes): where a purchase's gas goes beyond its storage bound.
import { randomBytes } from "node:crypto";
import { pathToFileURL } from "node:url";
import { createPublicClient, createWalletClient, hexToBytes, http, maxUint256, toHex, parseSignature, type Abi, type Address, type Hex, type PublicClient } from "viem";
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";
import { hardhat } from "viem/chains";
import { startChain, DEV_ACCOUNTS } from "../local/chain.ts";
import { freePort } from "../local/ports.ts";
import { deployTokenMarketplace, mintLocalTokens } from "../src/chain/deploy.ts";
import { createTokenListing } from "../local/token-listings.ts";
import { paymentOutcomesOf, settlePaymentsData, type TokenPayment } from "../src/chain/settle-payments.ts";
import { tokenMarketplaceAbi } from "@agent-rental/core/token-marketplace";
import { localUsdcAbi } from "@agent-rental/core/tokens";
import type { RentalModel } from "@agent-rental/core/vocabulary";

const BASE = 21_000;
const NEW_SLOT = 22_100;
const CHANGED_COLD_SLOT = 5_000;
const BATCH = 100;

export interface TokenGasRow {
  operation: string;
  gasUsed: number;
  lowerBound: number;
  ratio: number;
  slots: string;
  target?: string;
  met?: boolean;
  /** Where a settlePayments batch's gas went, per payment (with --breakdown). */
  breakdown?: GasBreakdown;
}

/** A settlePayments transaction's gas per payment, from the node's trace (debug_traceTransaction). */
export interface GasBreakdown {
  /** 21,000 shared by the payments. */
  base: number;
  /** The calldata, priced per byte (4 a zero byte, 16 another). */
  calldata: number;
  /** Each token call's own execution: what transferWithAuthorization spent inside the token. */
  token: number;
  /** The CALL into the token as the marketplace pays it (the account's access, the call's price). */
  call: number;
  /** The marketplace's events (LOG opcodes). */
  events: number;
  /** The two balanceOf reads of the units-received check. */
  balanceChecks: number;
  /** The marketplace's own execution: decoding, checks, the tab, its storage reads and writes. */
  marketplace: number;
  /** Gas given back at the end (EIP-3529: a slot set back to its value at the start of the transaction,
   * or to zero, returns part of its writes' cost): the parts above add up to gasUsed plus this. */
  refund: number;
  /** Of `marketplace`: its SLOADs and SSTOREs (a cold read 2,100, a cold write of a new slot 22,100). */
  marketplaceStorage: number;
}

const bound = (newSlots: number, changed: number) => BASE + NEW_SLOT * newSlots + CHANGED_COLD_SLOT * changed;

/** `breakdown`: trace each settlePayments batch and say where its gas went (slower). */
export async function runTokenGasBench({ breakdown = false }: { breakdown?: boolean } = {}): Promise<TokenGasRow[]> {
  const chain = await startChain({ port: await freePort() });
  try {
    return await measure(chain.rpcUrl, breakdown);
  } finally {
    await chain.stop();
  }
}

interface StructLog {
  op: string;
  gas: number;
  gasCost: number;
  depth: number;
}

/** Where transaction `hash`'s gas went, per payment of `payments`: the calldata priced from its bytes, the
 * rest from the trace's opcodes at the marketplace's depth (a CALL or STATICCALL costs the gas it took
 * with the callee's execution; the callee's own part is its first op's gas less its last's). */
async function gasBreakdown(client: PublicClient, hash: Hex, payments: number): Promise<GasBreakdown> {
  const [tx, receipt] = await Promise.all([client.getTransaction({ hash }), client.getTransactionReceipt({ hash })]);
  const calldata = hexToBytes(tx.input).reduce((sum, byte) => sum + (byte === 0 ? 4 : 16), 0);
  const trace = (await client.request({ method: "debug_traceTransaction", params: [hash, { disableStack: true, disableMemory: true, disableStorage: true }] } as never)) as { structLogs: StructLog[] };
  const ops = trace.structLogs;
  let calls = 0;
  let token = 0;
  let events = 0;
  let balanceChecks = 0;
  let storage = 0;
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (op.depth !== 1) continue;
    if (op.op.startsWith("LOG")) events += op.gasCost;
    if (op.op === "SLOAD" || op.op === "SSTORE") storage += op.gasCost;
    if (op.op !== "CALL" && op.op !== "STATICCALL") continue;
    let j = i + 1;
    while (j < ops.length && ops[j]!.depth !== 1) j++;
    const spent = op.gas - (ops[j]?.gas ?? 0);
    if (op.op === "STATICCALL") {
      balanceChecks += spent;
      continue;
    }
    calls += spent;
    const inside = ops.slice(i + 1, j);
    if (inside.length > 0) token += inside[0]!.gas - inside[inside.length - 1]!.gas + inside[inside.length - 1]!.gasCost;
  }
  // The execution's gross gas from the trace (the receipt's gasUsed is net of the refund).
  const top = ops.filter((o) => o.depth === 1);
  const execution = top.length === 0 ? 0 : top[0]!.gas - top[top.length - 1]!.gas + top[top.length - 1]!.gasCost;
  const refund = 21_000 + calldata + execution - Number(receipt.gasUsed);
  const per = (n: number) => Math.round(n / payments);
  return { base: per(21_000), calldata: per(calldata), token: per(token), call: per(calls - token), events: per(events), balanceChecks: per(balanceChecks), marketplace: per(execution - calls - events - balanceChecks), refund: per(refund), marketplaceStorage: per(storage) };
}

async function measure(rpcUrl: string, withBreakdown: boolean): Promise<TokenGasRow[]> {
  const [deployer, , feeAccount, creatorAccount, renterA, renterB] = DEV_ACCOUNTS;
  const params = { rpcUrl, chain: hardhat, deployerPrivateKey: deployer.privateKey };
  const market = await deployTokenMarketplace({ ...params, authority: deployer.address, feeRecipient: feeAccount.address });
  const usdc = market.tokens.usdc.address;
  await mintLocalTokens(params, { usdc, utility: market.tokens.utility.address }, [renterA.address, renterB.address], { usdc: 10n ** 12n, utility: 10n ** 24n });
  const transport = http(rpcUrl);
  const client = createPublicClient({ chain: hardhat, transport }) as PublicClient;
  const wallet = (key: Hex) => createWalletClient({ account: privateKeyToAccount(key), chain: hardhat, transport });
  const rows: TokenGasRow[] = [];
  // The last transaction sent: a row's breakdown traces it.
  let lastHash: Hex | undefined;
  async function send(key: Hex, address: Address, abi: Abi, functionName: string, args: readonly unknown[]): Promise<number> {
    const hash = await wallet(key).writeContract({ address, abi, functionName, args } as never);
    lastHash = hash;
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== "success") throw new Error(`${functionName} reverted`);
    return Number(receipt.gasUsed);
  }
  const tm = (key: Hex, fn: string, args: readonly unknown[]) => send(key, market.address, tokenMarketplaceAbi as Abi, fn, args);
  const row = async (operation: string, gasUsed: number, newSlots: number, changed: number, slots: string, target?: number) => {
    const lowerBound = bound(newSlots, changed);
    const ratio = gasUsed / lowerBound;
    const breakdown = withBreakdown && lastHash ? { breakdown: await gasBreakdown(client, lastHash, 1) } : {};
    rows.push({ operation, gasUsed, lowerBound, ratio, slots, ...(target ? { target: `<= ${target}x`, met: ratio <= target } : {}), ...breakdown });
  };
  const price = 1_000_000n; // 1 USDC
  const list = async (seed: number, model: RentalModel) =>
    (await createTokenListing({ ...params, tokenMarketplace: market.address, creatorPrivateKey: creatorAccount.privateKey, token: usdc, seed: toHex(seed, { size: 32 }), rentalModel: model, price, metadataUri: "ipfs://manifest" })).listingId;
  const [oneTime, oneTimeB, sub, perQuery] = [await list(1, "one_time"), await list(2, "one_time"), await list(3, "subscription"), await list(4, "per_query")];
  // Both renters approve once (an unlimited allowance is never written again); renter B buys first, so
  // the contract's USDC balance and the USDC fees exist (a purchase on a live market changes them).
  for (const r of [renterA, renterB]) await send(r.privateKey, usdc, localUsdcAbi as Abi, "approve", [market.address, maxUint256]);
  await tm(renterB.privateKey, "purchaseOneTime", [oneTime]);

  const tokenSlots = "payer's balance, contract's balance";
  await row("purchaseOneTime (USDC, approved)", await tm(renterA.privateKey, "purchaseOneTime", [oneTime]), 1, 4, `new: credential; changed: listing slot 0, USDC fees, ${tokenSlots}`, 1.25);
  await row("purchaseSubscription (USDC, first sale)", await tm(renterA.privateKey, "purchaseSubscription", [sub, 2_592_000n]), 4, 4, `new: credential, vesting slot, vesting day, day bits; changed: listing slot 0, USDC fees, ${tokenSlots}`, 1.25);
  await row("purchasePerQuery (USDC, approved)", await tm(renterA.privateKey, "purchasePerQuery", [perQuery, price * 10n]), 1, 2, `new: perQueryBalances record; changed: ${tokenSlots}`, 1.25);
  await row("topUpBalance (USDC, approved)", await tm(renterA.privateKey, "topUpBalance", [perQuery, price * 10n]), 0, 3, `changed: record, ${tokenSlots}`, 1.25);

  // One transaction by a wallet that never approved: a permit (its nonce and the allowance are new slots).
  const fresh = privateKeyToAccount(generatePrivateKey());
  await send(deployer.privateKey, usdc, localUsdcAbi as Abi, "mint", [fresh.address, 10n ** 9n]);
  await client.request({ method: "hardhat_setBalance", params: [fresh.address, "0xDE0B6B3A7640000"] } as never);
  const domain = { name: "USD Coin", version: "2", chainId: hardhat.id, verifyingContract: usdc } as const;
  const deadline = 2n ** 40n;
  const permitSig = parseSignature(
    await fresh.signTypedData({ domain, primaryType: "Permit", types: { Permit: [{ name: "owner", type: "address" }, { name: "spender", type: "address" }, { name: "value", type: "uint256" }, { name: "nonce", type: "uint256" }, { name: "deadline", type: "uint256" }] }, message: { owner: fresh.address, spender: market.address, value: price, nonce: 0n, deadline } }),
  );
  const sendAs = async (account: PrivateKeyAccount, fn: string, args: readonly unknown[]) => {
    const w = createWalletClient({ account, chain: hardhat, transport });
    const hash = await w.writeContract({ address: market.address, abi: tokenMarketplaceAbi, functionName: fn, args } as never);
    lastHash = hash;
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== "success") throw new Error(`${fn} reverted`);
    return Number(receipt.gasUsed);
  };
  await row(
    "purchaseWithPermit (one_time, USDC)",
    await sendAs(fresh, "purchaseWithPermit", [0, oneTimeB, 0n, { value: price, deadline, v: Number(permitSig.v), r: permitSig.r, s: permitSig.s }]),
    3,
    4,
    `new: credential, permit nonce, allowance; changed: listing slot 0, USDC fees, ${tokenSlots}`,
    1.25,
  );
  // One transaction with EIP-3009 ReceiveWithAuthorization: its nonce is a new slot.
  const authTypes = (kind: "ReceiveWithAuthorization" | "TransferWithAuthorization") => ({
    [kind]: [{ name: "from", type: "address" }, { name: "to", type: "address" }, { name: "value", type: "uint256" }, { name: "validAfter", type: "uint256" }, { name: "validBefore", type: "uint256" }, { name: "nonce", type: "bytes32" }],
  });
  const sign3009 = async (account: PrivateKeyAccount, kind: "ReceiveWithAuthorization" | "TransferWithAuthorization", value: bigint, nonce: Hex) =>
    account.signTypedData({ domain, primaryType: kind, types: authTypes(kind), message: { from: account.address, to: market.address, value, validAfter: 0n, validBefore: deadline, nonce } } as never);
  const receiveSig = parseSignature(await sign3009(fresh, "ReceiveWithAuthorization", price * 5n, toHex(1, { size: 32 })));
  await row(
    "purchaseWithAuthorization (per_query, USDC)",
    await sendAs(fresh, "purchaseWithAuthorization", [3, perQuery, price * 5n, { value: price * 5n, validAfter: 0n, validBefore: deadline, nonce: toHex(1, { size: 32 }), v: Number(receiveSig.v), r: receiveSig.r, s: receiveSig.s }]),
    2,
    2,
    `new: perQueryBalances record, authorization nonce; changed: ${tokenSlots}`,
    1.25,
  );

  // x402: 100 payers each sign one TransferWithAuthorization to the contract; one settlePayments call
  // (its packed batch as the settler encodes it), every payment checked settled from the receipt.
  const payers = Array.from({ length: BATCH + 1 }, () => privateKeyToAccount(generatePrivateKey()));
  for (const p of payers) await send(deployer.privateKey, usdc, localUsdcAbi as Abi, "mint", [p.address, price * 10n]);
  const now = (await client.getBlock()).timestamp;
  // An x402 authorization's window: the bench's first batch as before (valid from 0, small nonces), the
  // second as x402 clients sign (valid from ten minutes ago, for the offer's timeout; random nonces).
  const validBefore = now + 3_600n;
  const settleBatch = async (runRefBase: bigint, validAfter: bigint, nonceOf: (i: number) => Hex, label: string) => {
    const payments: TokenPayment[] = await Promise.all(
      payers.slice(0, BATCH).map(async (p, i) => ({
        listingId: perQuery,
        from: p.address,
        value: price,
        validAfter,
        validBefore,
        nonce: nonceOf(i),
        runRef: toHex(runRefBase + BigInt(i), { size: 32 }),
        signature: await signWindow(p, price, nonceOf(i), validAfter, validBefore),
      })),
    );
    const hash = await wallet(deployer.privateKey).sendTransaction({ to: market.address, data: settlePaymentsData(payments) });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    const settled = paymentOutcomesOf(receipt, payments).filter((o) => o.outcome === "settled").length;
    if (receipt.status !== "success" || settled !== BATCH) throw new Error(`settlePayments settled ${settled} of ${BATCH} (${receipt.status})`);
    const batchGas = Number(receipt.gasUsed);
    rows.push({
      operation: `settlePayments (${BATCH} payers, one listing${label})`,
      gasUsed: batchGas,
      lowerBound: bound(BATCH, BATCH + 3),
      ratio: batchGas / bound(BATCH, BATCH + 3),
      slots: "per payment: its authorization nonce (new), the payer's balance; once: contract's balance, listing slot 0, USDC fees",
      target: `<= 40000 gas/payment (${Math.round(batchGas / BATCH)})`,
      met: batchGas / BATCH <= 40_000,
      ...(withBreakdown ? { breakdown: await gasBreakdown(client, hash, BATCH) } : {}),
    });
  };
  const signWindow = (account: PrivateKeyAccount, value: bigint, nonce: Hex, validAfter: bigint, before: bigint) =>
    account.signTypedData({ domain, primaryType: "TransferWithAuthorization", types: authTypes("TransferWithAuthorization"), message: { from: account.address, to: market.address, value, validAfter, validBefore: before, nonce } } as never);
  await settleBatch(256n * 4_000n, 0n, (i) => toHex(i + 1, { size: 32 }), "");
  const randomNonces = payers.map(() => toHex(randomBytes(32)));
  await settleBatch(256n * 4_001n, now - 600n, (i) => randomNonces[i]!, ", random nonces as x402 clients sign");
  const solo = payers[BATCH]!;
  const soloSig = parseSignature(await sign3009(solo, "TransferWithAuthorization", price, toHex(9, { size: 32 })));
  const plain = await send(deployer.privateKey, usdc, localUsdcAbi as Abi, "transferWithAuthorization", [solo.address, market.address, price, 0n, deadline, toHex(9, { size: 32 }), Number(soloSig.v), soloSig.r, soloSig.s]);
  lastHash = undefined; // a call to the token itself: no marketplace to split from
  await row("transferWithAuthorization (one EIP-3009 transfer per transaction)", plain, 1, 2, "new: authorization nonce; changed: payer's balance, receiver's balance");
  return rows;
}

function printTable(rows: TokenGasRow[]): void {
  for (const r of rows) {
    console.log(`${r.operation.padEnd(66)} gas ${String(r.gasUsed).padStart(8)}  bound ${String(r.lowerBound).padStart(8)}  ratio ${r.ratio.toFixed(3)}${r.target ? `  target ${r.target}: ${r.met ? "met" : "MISSED"}` : ""}`);
    if (r.breakdown) console.log(`  ${r.operation.startsWith("settlePayments") ? "per payment" : "split"}: ${Object.entries(r.breakdown).map(([part, gas]) => `${part} ${gas}`).join(", ")}`);
  }
}

// Run: node --import tsx bench/gas-tokens.ts [--breakdown]
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runTokenGasBench({ breakdown: process.argv.includes("--breakdown") }).then(printTable).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}

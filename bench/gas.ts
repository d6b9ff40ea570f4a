// Gas benchmark of the marketplace contract: runs each operation on a fresh local chain and prints its
// gas (from the receipt) beside the lower bound its storage writes force, computed here from the slots
// it must write (21,000 base + 22,100 per new slot + 5,000 per changed cold slot; calldata and the
// cold reads it cannot avoid are NOT in the bound, so the ratio shows everything above storage).
// Run: node --import tsx bench/gas.ts   (exits non-zero only on an error, never on a missed target)
import { pathToFileURL } from "node:url";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  parseEther,
  keccak256,
  encodePacked,
  toHex,
  type Hex,
  type PublicClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { hardhat } from "viem/chains";
import { startChain, DEV_ACCOUNTS } from "../local/chain.ts";
import { freePort } from "../local/ports.ts";
import { deployMarketplace } from "../src/chain/deploy.ts";
import { marketplaceAbi } from "@agent-rental/core/marketplace";

const BASE = 21_000;
const NEW_SLOT = 22_100;
const CHANGED_COLD_SLOT = 5_000;
const RUN_BATCH_SIZE = 100;
/** Runs charged by one consumeQueries call in the batch rows. */
const CHARGE_BATCH_SIZE = 100;

export interface GasRow {
  operation: string;
  gasUsed: number;
  /** 21,000 + 22,100 x newSlots + 5,000 x changedSlots. */
  lowerBound: number;
  /** The slots behind the bound, in words. */
  slots: string;
  ratio: number;
  /** Calldata gas inside gasUsed (16 per nonzero byte, 4 per zero byte); informational. */
  calldataGas: number;
  /** Target ratio (or, for the run log, gas per run), if the issue sets one. */
  target?: number;
  met?: boolean;
  /** For logRuns and consumeQueries: gas per run at the batch size. */
  perRun?: number;
}

function bound(newSlots: number, changedSlots: number): number {
  return BASE + NEW_SLOT * newSlots + CHANGED_COLD_SLOT * changedSlots;
}

function calldataGas(data: Hex): number {
  let gas = 0;
  for (let i = 2; i < data.length; i += 2) gas += data.slice(i, i + 2) === "00" ? 4 : 16;
  return gas;
}

/** Runs every operation once on its own chain and returns the rows; prints nothing. */
export async function runGasBench(): Promise<GasRow[]> {
  const chain = await startChain({ port: await freePort() });
  try {
    return await measure(chain.rpcUrl);
  } finally {
    await chain.stop();
  }
}

async function measure(rpcUrl: string): Promise<GasRow[]> {
  const [deployer, authorityAccount, feeAccount, creatorAccount, renterA, renterB] = DEV_ACCOUNTS;
  const { address } = await deployMarketplace({
    rpcUrl,
    chain: hardhat,
    deployerPrivateKey: deployer.privateKey,
    authority: authorityAccount.address,
    feeRecipient: feeAccount.address,
  });
  const transport = http(rpcUrl);
  const client = createPublicClient({ chain: hardhat, transport }) as PublicClient;
  const wallet = (key: Hex) => createWalletClient({ account: privateKeyToAccount(key), chain: hardhat, transport });
  const creator = wallet(creatorAccount.privateKey);
  const authority = wallet(authorityAccount.privateKey);
  const rows: GasRow[] = [];

  type Wallet = ReturnType<typeof wallet>;
  // Sends one call and returns the receipt's gas and the calldata gas of the transaction.
  async function run(w: Wallet, functionName: string, args: readonly unknown[], value?: bigint) {
    const hash = await w.writeContract({
      address,
      abi: marketplaceAbi,
      functionName: functionName as never,
      args: args as never,
      ...(value === undefined ? {} : { value }),
    } as never);
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== "success") throw new Error(`${functionName} reverted`);
    const tx = await client.getTransaction({ hash });
    return { gasUsed: Number(receipt.gasUsed), calldata: calldataGas(tx.input) };
  }
  function row(operation: string, m: { gasUsed: number; calldata: number }, newSlots: number, changed: number, slots: string, target?: number) {
    const lowerBound = bound(newSlots, changed);
    const ratio = m.gasUsed / lowerBound;
    rows.push({
      operation,
      gasUsed: m.gasUsed,
      lowerBound,
      slots,
      ratio,
      calldataGas: m.calldata,
      ...(target === undefined ? {} : { target, met: ratio <= target }),
    });
  }

  const price = 10n ** 15n; // 0.001 ETH: the 2.5% fee is nonzero
  const idOf = (seed: Hex) => keccak256(encodePacked(["address", "bytes32"], [creatorAccount.address, seed]));
  const seeds = { oneTime: toHex(1, { size: 32 }), sub: toHex(2, { size: 32 }), perQuery: toHex(3, { size: 32 }) };
  const uri = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi/manifest.json";

  const created = await run(creator, "createListing", [seeds.oneTime, 0, price, uri]);
  // New: listing slot 0, listing slot 1, and the URI (length word + ceil(len/32) data slots).
  const uriSlots = 1 + Math.ceil(new TextEncoder().encode(uri).length / 32);
  row("createListing", created, 2 + uriSlots, 0, `new: listing x2, uri x${uriSlots}`);
  await run(creator, "createListing", [seeds.sub, 1, price, uri]);
  await run(creator, "createListing", [seeds.perQuery, 2, price, uri]);
  const [oneTime, sub, perQuery] = [idOf(seeds.oneTime), idOf(seeds.sub), idOf(seeds.perQuery)];

  const a = wallet(renterA.privateKey);
  const b = wallet(renterB.privateKey);
  const storage3 = "new: credential; changed: listing slot 0 (escrow), protocol slot (fees)";
  row("purchaseOneTime", await run(a, "purchaseOneTime", [oneTime], price), 1, 2, storage3, 1.25);
  const thirtyDays = 2_592_000n;
  // A subscription payment also writes the listing's vesting (each payment vests over its own period):
  // the vesting slot, the day its stream ends and that day's bit. At the listing's first sale all three
  // are new; the second sale here ends on the same day (a changed day, its bit already set).
  row(
    "purchaseSubscription",
    await run(a, "purchaseSubscription", [sub, thirtyDays], price),
    4,
    2,
    "new: credential, vesting slot, vesting day, word of day bits; changed: listing slot 0 (escrow), protocol slot (fees)",
    1.25,
  );
  row(
    "purchaseSubscription (listing sold before)",
    await run(b, "purchaseSubscription", [sub, thirtyDays], price),
    1,
    4,
    "new: credential; changed: listing slot 0, protocol slot, vesting slot, vesting day (its bit set already)",
    1.25,
  );
  // A renewal of a running subscription vests from the day its current period ends (that day holds the
  // current stream's end already: changed) to the renewed expiry's day (new), both bits in one word.
  row(
    "renewSubscription",
    await run(a, "renewSubscription", [sub, thirtyDays], price),
    1,
    6,
    "new: the renewal's end day; changed: credential, listing slot 0, protocol slot, vesting slot, its start day, word of day bits",
  );
  row("purchasePerQuery", await run(a, "purchasePerQuery", [perQuery], price * 10n), 1, 0, "new: perQueryBalances record", 1.25);
  row("topUpBalance", await run(a, "topUpBalance", [perQuery], price * 10n), 0, 1, "changed: perQueryBalances record", 1.25);
  row(
    "consumeQuery",
    await run(authority, "consumeQuery", [perQuery, renterA.address, keccak256(toHex("run-1")), price]),
    1,
    3,
    "new: run marker; changed: record, listing slot 0, protocol slot",
    1.3,
  );
  // The same charge for a renter who set a charge cap (decisions 0196, 0245): every charge reads the
  // cap's slot (a cold read) and writes the period's charges and number into the renter's record, which
  // it writes anyway; the first charge of a new period writes nothing more. Both against the uncapped
  // consumeQuery above, measured in this run: the bound is 5,000 gas more.
  const uncapped = rows.at(-1)!.gasUsed;
  const cappedRenter = privateKeyToAccount(generatePrivateKey());
  await createTestClient({ mode: "hardhat", transport }).setBalance({ address: cappedRenter.address, value: parseEther("10") });
  const capped = createWalletClient({ account: cappedRenter, chain: hardhat, transport });
  await run(capped, "purchasePerQuery", [perQuery], price * 10n);
  await run(capped, "setChargeCap", [perQuery, price * 5n, 86_400n]);
  const capRow = (operation: string, m: { gasUsed: number; calldata: number }, changed: number, slots: string) => {
    row(`${operation} (+${m.gasUsed - uncapped} over consumeQuery)`, m, 1, changed, slots);
    const last = rows.at(-1)!;
    last.target = 5_000;
    last.met = m.gasUsed - uncapped <= 5_000;
  };
  capRow("consumeQuery, capped renter, within the period", await run(authority, "consumeQuery", [perQuery, cappedRenter.address, keccak256(toHex("run-cap-1")), price]), 3, "new: run marker; changed: record, listing slot 0, protocol slot (+ reading the cap)");
  await client.request({ method: "evm_increaseTime", params: [86_400] } as never);
  capRow("consumeQuery, capped renter, first charge of a period", await run(authority, "consumeQuery", [perQuery, cappedRenter.address, keccak256(toHex("run-cap-2")), price]), 3, "new: run marker; changed: record (its new period too), listing slot 0, protocol slot (+ reading the cap)");
  row(
    "consumeQuery (run charged before: no-op)",
    await run(authority, "consumeQuery", [perQuery, renterA.address, keccak256(toHex("run-1")), price]),
    0,
    0,
    "none (reads the run marker)",
  );

  // consumeQueries: a batch of 100 charges as the settler sends it, with dense run references from an
  // aligned block of 256 (one word of run marks). Two shapes: 100 renters of one listing (each renter's
  // record paid cold once) and 100 runs of one renter (the record warm after the first charge).
  // Their bound counts the slots a batch must write (the events, about 2,700 gas a run, are not in it).
  const batchRow = (operation: string, m: { gasUsed: number; calldata: number }, changedSlots: number, slots: string, target: number) => {
    const perRun = m.gasUsed / CHARGE_BATCH_SIZE;
    const lowerBound = bound(1, changedSlots);
    rows.push({ operation, gasUsed: m.gasUsed, lowerBound, slots, ratio: m.gasUsed / lowerBound, calldataGas: m.calldata, perRun, target, met: perRun <= target });
  };
  const testClient = createTestClient({ mode: "hardhat", transport });
  const renters = await Promise.all(
    Array.from({ length: CHARGE_BATCH_SIZE }, async () => {
      const account = privateKeyToAccount(generatePrivateKey());
      await testClient.setBalance({ address: account.address, value: parseEther("10") });
      return createWalletClient({ account, chain: hardhat, transport });
    }),
  );
  for (const r of renters) await run(r, "purchasePerQuery", [perQuery], price * 2n);
  const block = 256n * 1_000n; // an aligned block of dense references
  const charge = (buyer: `0x${string}`, ref: bigint) => ({ listingId: perQuery, buyer, runRef: toHex(ref, { size: 32 }), maxPrice: price });
  batchRow(
    `consumeQueries (${CHARGE_BATCH_SIZE} renters, one listing)`,
    await run(authority, "consumeQueries", [renters.map((r, i) => charge(r.account.address, block + BigInt(i)))]),
    CHARGE_BATCH_SIZE + 2,
    "per charge: renter's record (cold), its QueryConsumed event; once: listing slot 0, protocol slot, a new word of run marks",
    15_000,
  );
  await run(a, "topUpBalance", [perQuery], price * BigInt(CHARGE_BATCH_SIZE));
  batchRow(
    `consumeQueries (${CHARGE_BATCH_SIZE} runs of one renter)`,
    await run(authority, "consumeQueries", [Array.from({ length: CHARGE_BATCH_SIZE }, (_, i) => charge(renterA.address, block + 256n + BigInt(i)))]),
    3,
    "per charge: its QueryConsumed event; once: the record, listing slot 0, protocol slot, a new word of run marks",
    8_000,
  );

  const logged = await run(authority, "logRuns", [keccak256(toHex("batch-0")), RUN_BATCH_SIZE]);
  const logRow: GasRow = {
    operation: `logRuns (batch of ${RUN_BATCH_SIZE})`,
    gasUsed: logged.gasUsed,
    lowerBound: bound(1, 1),
    slots: "new: batch root; changed: protocol slot (batch counter)",
    ratio: logged.gasUsed / bound(1, 1),
    calldataGas: logged.calldata,
    perRun: logged.gasUsed / RUN_BATCH_SIZE,
    target: 5_000,
    met: logged.gasUsed / RUN_BATCH_SIZE <= 5_000,
  };
  rows.push(logRow);

  row("withdrawEarnings", await run(creator, "withdrawEarnings", [oneTime, 1n]), 0, 1, "changed: listing slot 0");
  // A day passes, so part of the subscription earnings has vested.
  await client.request({ method: "evm_increaseTime", params: [86_400] } as never);
  row("withdrawEarnings (subscription: vested share)", await run(creator, "withdrawEarnings", [sub, 1n]), 0, 1, "changed: listing slot 0 (reads the vesting slot and a word of day bits)");
  await run(b, "purchasePerQuery", [perQuery], price * 2n);
  await run(creator, "revokePerQueryAccess", [perQuery, renterB.address]);
  row("withdrawUnspentBalance (revoked: at once)", await run(b, "withdrawUnspentBalance", [perQuery]), 0, 1, "changed: perQueryBalances record");
  // A renter leaving after a price rise: the request (its time in a new slot), then the withdrawal.
  await run(creator, "updateListing", [perQuery, price + 1n, uri]);
  row("requestBalanceWithdrawal", await run(a, "requestBalanceWithdrawal", [perQuery]), 1, 1, "new: request time; changed: perQueryBalances record");
  await client.request({ method: "evm_increaseTime", params: [3_600] } as never);
  row("withdrawUnspentBalance (after a request)", await run(a, "withdrawUnspentBalance", [perQuery]), 0, 1, "changed: perQueryBalances record (+ reading the request time)");
  row("closeListingAndWithdraw (one_time)", await run(creator, "closeListingAndWithdraw", [oneTime]), 0, 1, "changed: listing slot 0 (escrow and status)");
  row("withdrawFees", await run(authority, "withdrawFees", []), 0, 1, "changed: protocol slot");
  return rows;
}

function printTable(rows: GasRow[]): void {
  const header = ["operation", "gas used", "lower bound", "ratio", "calldata gas", "target", "met", "bound from"];
  const lines = rows.map((r) => [
    r.operation,
    String(r.gasUsed),
    String(r.lowerBound),
    r.ratio.toFixed(3),
    String(r.calldataGas),
    r.target === undefined ? "-" : r.operation.includes("capped renter") ? `<= +${r.target} gas` : r.perRun !== undefined ? `<= ${r.target} gas/run (${r.perRun.toFixed(0)})` : `<= ${r.target}x`,
    r.met === undefined ? "-" : r.met ? "yes" : "NO",
    r.slots,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const fmt = (cells: string[]) => "| " + cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ") + " |";
  console.log(fmt(header));
  console.log("|" + widths.map((w) => "-".repeat(w + 2)).join("|") + "|");
  for (const l of lines) console.log(fmt(l));
  const targeted = rows.filter((r) => r.met !== undefined);
  const missed = targeted.filter((r) => !r.met);
  console.log(
    missed.length === 0
      ? `\nall ${targeted.length} targets met`
      : `\n${missed.length} of ${targeted.length} targets missed: ${missed.map((r) => r.operation).join(", ")}`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runGasBench().then(printTable).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}


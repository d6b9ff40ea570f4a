// Raising alerts after a charge (docs/design/alerts.md): the settlement calls `alertAfterCharge` once a
// per-task run's charge is in a block. It looks at what the charge moved (each spending limit's window
// the run held, the per-task balance it was taken from, the renter's on-chain charge cap on the listing
// if there is one), raises an alert for every threshold newly reached (once per crossing: the marker's
// conditional put decides), and queues each for delivery.
// Alerts never hold up or fail a settlement: the caller does not wait, and errors are logged.
import type { Address, Hex } from "viem";
import type { Services } from "./services.ts";
import { listApiKeys } from "../auth/api-keys.ts";
import { getGrant } from "../oauth/grant.store.ts";
import { readPerQueryBalance } from "../chain/read-per-query-balance.ts";
import { toListingId } from "../listings/ids.ts";
import { spendLedger } from "../execution/money/spend-ledger.store.ts";
import { storedSpendLimits, windowOf, type SpendLimit } from "../execution/money/spend-limits.ts";
import { getAlertSettings, type AlertSettings } from "./alert-settings.store.ts";
import { clearCrossing, createAlert, markCrossing, type AlertType } from "./alert.store.ts";
import { balanceIsLow, limitThresholdsReached } from "./crossings.ts";
import { chargeCapAlerts } from "./cap-alert.ts";

export interface ChargedRun {
  runId: string;
  wallet: Address;
  onChainId: Hex;
  priceWei: bigint;
  spendHolds?: readonly string[] | undefined;
  /** "token": the balance lives on the TokenMarketplace. */
  market?: "token" | undefined;
}

/** A hold's limit: `spend#<key|app>#<id>#<currency>#<period>` / its window. */
function limitOfHold(hold: string): { kind: "key" | "app"; id: string; currency: string; period: string; window: { pk: string; sk: string } } | null {
  const at = hold.lastIndexOf("|");
  const pk = hold.slice(0, at);
  const parts = pk.split("#");
  if (parts.length !== 5 || parts[0] !== "spend" || (parts[1] !== "key" && parts[1] !== "app")) return null;
  return { kind: parts[1], id: parts[2]!, currency: parts[3]!, period: parts[4]!, window: { pk, sk: hold.slice(at + 1) } };
}

async function limitsOf(services: Services, wallet: Address, kind: "key" | "app", id: string): Promise<SpendLimit[]> {
  if (kind === "key") return (await listApiKeys(services.tables, wallet)).find((key) => key.key_id === id)?.spend_limits ?? [];
  return storedSpendLimits((await getGrant(services.tables, id))?.spend_limits);
}

async function raise(services: Services, settings: AlertSettings | null, wallet: Address, type: AlertType, crossing: string, data: Record<string, unknown>): Promise<void> {
  if (!(await markCrossing(services.tables, wallet, crossing))) return;
  const alert = await createAlert(services.tables, { wallet, type, data }, settings?.url != null);
  services.logger.info("alert raised", { alert_id: alert.alert_id, type, delivery: alert.delivery });
}

async function limitAlerts(services: Services, settings: AlertSettings | null, run: ChargedRun): Promise<void> {
  for (const hold of run.spendHolds ?? []) {
    const held = limitOfHold(hold);
    if (!held) continue;
    const limit = (await limitsOf(services, run.wallet, held.kind, held.id)).find((l) => l.currency === held.currency && l.period === held.period);
    if (!limit) continue;
    const window = await spendLedger(services.tables).read(held.window);
    if (!window) continue;
    const amount = BigInt(limit.amount);
    const resetsAt = limit.period === "total" ? null : (windowOf(limit.period, new Date()).resetsAt?.toISOString() ?? null);
    for (const threshold of limitThresholdsReached(amount, window.spent, run.priceWei)) {
      const remaining = amount - window.committed;
      await raise(services, settings, run.wallet, "spend_limit", `limit#${held.kind}#${held.id}#${held.currency}#${held.period}#${held.window.sk}#${limit.amount}#${threshold}`, {
        threshold,
        scope: held.kind,
        id: held.id,
        currency: limit.currency,
        period: limit.period,
        amount: limit.amount,
        spent: window.spent.toString(),
        remaining: (remaining > 0n ? remaining : 0n).toString(),
        resets_at: resetsAt,
        run_id: run.runId,
      });
    }
  }
}

async function balanceAlert(services: Services, settings: AlertSettings, run: ChargedRun): Promise<void> {
  const runs = settings.lowBalanceRuns;
  if (runs === null) return;
  const balance = await readPerQueryBalance(services.chain, { listingId: run.onChainId, buyer: run.wallet, market: run.market ?? "eth" });
  const crossing = `low#${run.onChainId.toLowerCase()}`;
  if (!balanceIsLow(balance.balanceWei, run.priceWei, runs)) {
    // Back at or above the threshold (a top-up): the next fall below it alerts again.
    await clearCrossing(services.tables, run.wallet, crossing);
    return;
  }
  await raise(services, settings, run.wallet, "low_balance", crossing, {
    listing_id: toListingId(run.onChainId),
    balance_wei: balance.balanceWei.toString(),
    price_wei: run.priceWei.toString(),
    runs_left: (balance.balanceWei / run.priceWei).toString(),
    threshold_runs: runs,
    run_id: run.runId,
  });
}

/** How long a process keeps a wallet's alert settings (or their absence) before reading them again: a
 * change reaches alerts within this long. */
const SETTINGS_KEPT_MS = 10_000;
/** Charges a process holds for checking at most; past it a charge is not checked (logged). */
const MAX_WAITING = 10_000;

interface Checker {
  waiting: number;
  tail: Promise<void>;
  settings: Map<string, { at: number; value: AlertSettings | null }>;
}
const checkers = new WeakMap<object, Checker>();

async function settingsOf(services: Services, checker: Checker, wallet: Address): Promise<AlertSettings | null> {
  const kept = checker.settings.get(wallet);
  if (kept && Date.now() - kept.at < SETTINGS_KEPT_MS) return kept.value;
  const value = await getAlertSettings(services, wallet);
  if (checker.settings.size >= MAX_WAITING) checker.settings.clear();
  checker.settings.set(wallet, { at: Date.now(), value });
  return value;
}

async function check(services: Services, checker: Checker, run: ChargedRun): Promise<void> {
  try {
    const settings = await settingsOf(services, checker, run.wallet.toLowerCase() as Address);
    await Promise.all([
      limitAlerts(services, settings, run),
      settings ? balanceAlert(services, settings, run) : undefined,
      // Whether the renter has a cap is read with it, not taken from the run's admission: a cap set while
      // the run was in flight is the cap its charge met.
      chargeCapAlerts(services, run, (type, crossing, data) => raise(services, settings, run.wallet, type, crossing, data)),
    ]);
  } catch (error) {
    services.logger.warn("alerts not checked after a charge", { run_id: run.runId, cause: error instanceof Error ? error.message : String(error) });
  }
}

/**
 * What a landed per-task charge may alert, checked in the background one charge at a time per process:
 * the settlement never waits for it, and its reads never crowd the reads and writes that release a run's
 * answer. Returns at once; never throws.
 */
export function alertAfterCharge(services: Services, run: ChargedRun): void {
  let checker = checkers.get(services.tables);
  if (!checker) checkers.set(services.tables, (checker = { waiting: 0, tail: Promise.resolve(), settings: new Map() }));
  if (checker.waiting >= MAX_WAITING) {
    services.logger.warn("alerts not checked after a charge: too many charges waiting", { run_id: run.runId });
    return;
  }
  checker.waiting += 1;
  const current = checker;
  current.tail = current.tail.then(() => check(services, current, run)).finally(() => void (current.waiting -= 1));
}

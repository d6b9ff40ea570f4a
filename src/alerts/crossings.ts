// When a charge crosses an alert's threshold (docs/design/alerts.md). Pure: the stores decide "once".
//  - A spending limit alerts at 80% of its amount spent, and at 100%: when what is left in the period no
//    longer pays for another run at the price just charged (the next such run is refused). A limit of
//    7.5 runs never has 100% of its wei spent, yet it is exhausted after the seventh run: that is when
//    its holder needs to know.
//  - A per-task balance alerts when it falls below the renter's chosen number of runs at the listing's
//    price, and again only after it was seen back at or above it (a top-up).

export const LIMIT_THRESHOLDS = [80, 100] as const;
export type LimitThreshold = (typeof LIMIT_THRESHOLDS)[number];

/** The thresholds a limit of `amount` has reached with `spent` charged in its period, after a charge of
 * `price`. */
export function limitThresholdsReached(amount: bigint, spent: bigint, price: bigint): LimitThreshold[] {
  if (amount <= 0n) return [];
  const reached: LimitThreshold[] = [];
  if (spent * 100n >= amount * 80n) reached.push(80);
  if (spent + price > amount) reached.push(100);
  return reached;
}

/** Whether a per-task balance is below `runs` runs at `price`. */
export function balanceIsLow(balance: bigint, price: bigint, runs: number): boolean {
  return price > 0n && balance < price * BigInt(runs);
}

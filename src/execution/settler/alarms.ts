// Settlement never stalls silently: the settler raises an alarm when its charges wait (an error line
// when it starts, an info line when it ends) and keeps the alarms on in storage, where GET /v1/health
// reads them. The alarms (docs/guides/operator.md, "What to alarm on at 3 am"):
//  - fee_ceiling: the base fee is at the network's maximum fee per gas, or a batch's gas would cost more
//    than the network's share of its charges: the settler sends nothing and waits for lower fees;
//  - settlement_stalled: a charge has waited unsent or unmined longer than SETTLEMENT_STALL_MS;
//  - nonce_gap: the chain's nonce fell below one the settler sent (a reorganisation, a dropped
//    transaction); on until the transactions that filled the gap are mined;
//  - deep_reorg: the chain reorganised deeper than the finality depth; on until the new chain's head at
//    the reorganisation is final.
// Each alarm goes off when its condition ends (settler.ts looks at each every round), never on a timer.
import type { Logger } from "../../logger.ts";
import type { Tables } from "../../adapters/tables/dynamo.ts";
import { putSettlerAlarms, type SettlerAlarm } from "./alarms.store.ts";

/** An alarm that is on is written again this often (health shows it while the settler keeps it). */
const REWRITE_MS = 5_000;

export interface SettlerAlarms {
  /** Turns `name` on (with what it says now) or off. */
  set(name: SettlerAlarm["name"], message: string | undefined): void;
  /** Writes the alarms when they changed, or every few seconds while one is on. */
  flush(): Promise<void>;
}

export function createSettlerAlarms(tables: Tables, authority: string, logger: Logger): SettlerAlarms {
  const on = new Map<SettlerAlarm["name"], SettlerAlarm>();
  let changed = true;
  let writtenAt = 0;
  return {
    set(name, message) {
      const current = on.get(name);
      if (message === undefined) {
        if (!current) return;
        on.delete(name);
        changed = true;
        logger.info(`settlement alarm off: ${name}`);
        return;
      }
      if (!current) {
        logger.error(`settlement alarm on: ${name}: ${message}`, { alarm: name });
        changed = true;
      }
      on.set(name, { name, since: current?.since ?? new Date().toISOString(), message });
    },
    async flush() {
      if (!changed && (on.size === 0 || Date.now() - writtenAt < REWRITE_MS)) return;
      const alarms = [...on.values()];
      await putSettlerAlarms(tables, authority, alarms).then(
        () => ((changed = false), (writtenAt = Date.now())),
        () => undefined,
      );
    },
  };
}

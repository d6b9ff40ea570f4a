// Settlement never stalls silently: the settler raises an alarm when its charges wait (an error line
// when it starts, an info line when it ends) and keeps the alarms on in storage, where GET /v1/health
// reads them. The alarms (docs/guides/operator.md, "What to alarm on at 3 am"):
//  - fee_ceiling: the base fee is at the network's maximum fee per gas, or a batch's gas would cost more
//    than the network's share of its charges: the settler sends nothing and waits for lower fees;
//  - settlement_stalled: a charge has waited unsent or unmined longer than SETTLEMENT_STALL_MS;
//  - nonce_gap: the chain's nonce fell below one the settler sent (a reorganisation, a dropped
//    transaction); the gap was filled (on for a minute after the last one);
//  - deep_reorg: the chain reorganised deeper than the finality depth (on for ten minutes).
import type { Logger } from "../../logger.ts";
import type { Tables } from "../../adapters/tables/dynamo.ts";
import { putSettlerAlarms, type SettlerAlarm } from "./alarms.store.ts";

/** How long a nonce gap and a deep reorganisation keep their alarm on after the last one. */
const LINGER_MS: Partial<Record<SettlerAlarm["name"], number>> = { nonce_gap: 60_000, deep_reorg: 10 * 60_000 };
/** An alarm that is on is written again this often (health shows it while the settler keeps it). */
const REWRITE_MS = 5_000;

export interface SettlerAlarms {
  /** Turns `name` on (with what it says now) or off. */
  set(name: SettlerAlarm["name"], message: string | undefined): void;
  /** Writes the alarms when they changed, or every few seconds while one is on. */
  flush(): Promise<void>;
}

export function createSettlerAlarms(tables: Tables, authority: string, logger: Logger): SettlerAlarms {
  const on = new Map<SettlerAlarm["name"], SettlerAlarm & { until?: number }>();
  let changed = true;
  let writtenAt = 0;
  return {
    set(name, message) {
      const current = on.get(name);
      if (message === undefined) {
        if (!current || (current.until !== undefined && current.until > Date.now())) return;
        on.delete(name);
        changed = true;
        logger.info(`settlement alarm off: ${name}`);
        return;
      }
      const linger = LINGER_MS[name];
      if (!current) {
        logger.error(`settlement alarm on: ${name}: ${message}`, { alarm: name });
        changed = true;
      }
      on.set(name, { name, since: current?.since ?? new Date().toISOString(), message, ...(linger ? { until: Date.now() + linger } : {}) });
    },
    async flush() {
      for (const [name, alarm] of on) if (alarm.until !== undefined && alarm.until <= Date.now()) (on.delete(name), (changed = true));
      if (!changed && (on.size === 0 || Date.now() - writtenAt < REWRITE_MS)) return;
      const alarms = [...on.values()].map(({ name, since, message }) => ({ name, since, message }));
      await putSettlerAlarms(tables, authority, alarms).then(
        () => ((changed = false), (writtenAt = Date.now())),
        () => undefined,
      );
    },
  };
}

// What the execution area uses of the process's services (src/ports.ts): a narrow view, satisfied by
// the wiring's bag (src/services.ts), which this area never imports.
import type { Ports } from "../ports.ts";
import type { ChargeRefs } from "./money/charge-refs.ts";
import type { SettlementWatcher } from "./money/settlement-watcher.ts";

export type Services = Pick<Ports, "authority" | "blobs" | "chain" | "config" | "egress" | "egressRules" | "keys" | "logger" | "metrics" | "queue" | "runtimeEntry" | "sandbox" | "tables"> & {
  /** This process's dense charge references for per-query runs. */
  chargeRefs: ChargeRefs;
  /** How this process's requests learn that their runs' charges landed. */
  settlementWatcher: SettlementWatcher;
};

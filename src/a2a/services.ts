// What the A2A area uses of the process's services: the execution area's (its tasks are runs) and the
// card's signer; satisfied by the wiring's bag (src/services.ts), which this area never imports.
import type { Services as ExecutionServices } from "../execution/services.ts";
import type { CardSigner } from "./signing.ts";

export type Services = ExecutionServices & {
  /** Signs Agent Cards; null when no key is configured (cards go unsigned). */
  cardSigner: CardSigner | null;
};

// What the x402 area uses of the process's services: the execution area's view (src/execution/services.ts),
// since a paid run is admitted and performed as any other; the wiring's bag (src/services.ts) is never
// imported here.
export type { Services } from "../execution/services.ts";

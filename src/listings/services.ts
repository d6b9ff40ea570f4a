// What the listings area uses of the process's services (src/ports.ts): a narrow view, satisfied by the
// wiring's bag (src/services.ts), which this area never imports.
import type { Ports } from "../ports.ts";

export type Services = Pick<Ports, "blobs" | "keys" | "tables">;

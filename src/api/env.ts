import type { Principal } from "../auth/principal.ts";
import type { Services } from "../services.ts";

/** Hono context variables shared by every route. */
export interface AppEnv {
  Variables: {
    requestId: string;
    services: Services;
    principal: Principal;
  };
}

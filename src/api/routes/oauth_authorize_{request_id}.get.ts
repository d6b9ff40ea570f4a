// GET /oauth/authorize/{request_id}: where the browser returns after the person decided in the
// dashboard; the authorization server sends it on to the app.
import { z, type OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { answerAs, defineRoute } from "../route.ts";
import { serveOAuthRequest } from "../oauth.ts";

export const route = defineRoute({
  method: "get",
  path: "/oauth/authorize/{request_id}",
  operationId: "resumeAuthorization",
  tag: "OAuth",
  access: "public",
  rateLimit: { rule: "default", failMode: "open" },
  summary: "Finish an app's sign-in after the decision",
  description:
    "The `redirect_to` of POST /v1/oauth/requests/{request_id}/approve and …/deny. Only the browser that started the sign-in at GET /oauth/authorize can finish it (a cookie set there, on the API's origin, binds the two), and after an approval only with the one-time `approval` secret the approval answered that browser in `redirect_to`; an attempt without both is refused and voids the approval (a consent link sent to someone else grants nothing). Redirects to the app's redirect URI with `code`, `state` and `iss` after an approval, or `error=access_denied` after a denial.",
  request: { params: z.object({ request_id: z.string() }) },
  responses: {
    302: { description: "Back to the app: `code`, `state` and `iss`, or an `error`" },
    400: { description: "Another browser, an approval secret missing or wrong (the approval is then void), an expired request, or one not decided yet (plain text)", content: { "text/plain": { schema: { type: "string" } } } },
  },
  errors: {},
});

export function register(app: OpenAPIHono<AppEnv>): void {
  app.openapi(route, async (c) => answerAs(route, await serveOAuthRequest(c)));
}

// Creator onboarding for tests: apply through the API, and approve as the file's protocol authority.
import type { Hono } from "hono";
import type { TestContext } from "./services.ts";
import { signIn } from "./auth.ts";

type AppLike = Pick<Hono, "request">;

export async function authorityToken(ctx: TestContext, app: AppLike): Promise<string> {
  return (await signIn(app, ctx.authority)).token;
}

export async function approveCreator(ctx: TestContext, app: AppLike, wallet: string, creatorToken: string, displayName = "Test Creator"): Promise<void> {
  const applied = await app.request("/v1/creators", { method: "POST", headers: { authorization: `Bearer ${creatorToken}`, "content-type": "application/json" }, body: JSON.stringify({ display_name: displayName }) });
  if (applied.status !== 200) throw new Error(`apply failed: ${applied.status} ${await applied.text()}`);
  const res = await app.request(`/v1/reviews/creators/${wallet}`, {
    method: "POST",
    headers: { authorization: `Bearer ${await authorityToken(ctx, app)}`, "content-type": "application/json" },
    body: JSON.stringify({ decision: "approve" }),
  });
  if (res.status !== 200) throw new Error(`approval failed: ${res.status} ${await res.text()}`);
}

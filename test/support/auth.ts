// Sign-in helpers for tests: a wallet signs in through the real endpoints.
import type { Hono } from "hono";
import type { PrivateKeyAccount } from "viem/accounts";

type AppLike = Pick<Hono, "request">;

export async function signIn(app: AppLike, account: PrivateKeyAccount): Promise<{ token: string; expires_at: number }> {
  const challenge = (await (await app.request(`/v1/auth/challenge?wallet=${account.address}`)).json()) as { challenge: string };
  const signature = await account.signMessage({ message: challenge.challenge });
  const res = await app.request("/v1/auth/token", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ wallet: account.address, challenge: challenge.challenge, signature }) });
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { token: string; expires_at: number };
}

export async function createKey(app: AppLike, account: PrivateKeyAccount, bearer: string, label = "test key"): Promise<{ key: string; key_id: string }> {
  const headers = { authorization: `Bearer ${bearer}`, "content-type": "application/json" };
  const request = (await (await app.request("/v1/keys/challenge", { method: "POST", headers, body: JSON.stringify({ label }) })).json()) as { nonce: string; message: string };
  const signature = await account.signMessage({ message: request.message });
  const res = await app.request("/v1/keys", { method: "POST", headers, body: JSON.stringify({ nonce: request.nonce, signature }) });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { key: string; key_id: string };
}

// Hands a web request (what Hono gives a route, on Lambda and on the Node server alike) to the
// authorization server, a Koa app that wants Node's request and response, and turns its answer back
// into a web Response. light-my-request (Fastify's injection library) builds the Node objects in
// memory: no socket, no port, the same on Lambda as locally. OAuth answers are small and whole, so
// buffering them costs nothing.
import { inject } from "light-my-request";
import type Provider from "oidc-provider";

/** Request headers never passed on: the client's claims about proxies (the service sets the one it
 * means), and hop-by-hop headers. */
const DROPPED = new Set(["x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port", "forwarded", "connection", "transfer-encoding", "content-length", "host"]);

export async function callProvider(provider: Provider, request: Request, clientIp: string | undefined): Promise<Response> {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    if (!DROPPED.has(name.toLowerCase())) headers[name] = value;
  });
  // The provider runs with `proxy` on: it learns the scheme the service was called with from here (its
  // issuer says the rest), so cookies are Secure exactly when the call was HTTPS.
  headers["x-forwarded-proto"] = url.protocol.slice(0, -1);
  headers.host = url.host;
  const body = request.method === "GET" || request.method === "HEAD" ? undefined : Buffer.from(await request.arrayBuffer());
  const answer = await inject(provider.callback(), {
    method: request.method as "GET",
    url: `${url.pathname}${url.search}`,
    headers,
    ...(body && body.length > 0 ? { payload: body } : {}),
    remoteAddress: clientIp ?? "127.0.0.1",
  });
  const out = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined || name === "content-length" || name === "transfer-encoding" || name === "connection") continue;
    for (const one of Array.isArray(value) ? value : [value]) out.append(name, String(one));
  }
  const noBody = answer.statusCode === 204 || answer.statusCode === 304 || request.method === "HEAD";
  return new Response(noBody ? null : new Uint8Array(answer.rawPayload), { status: answer.statusCode, headers: out });
}

// What the Node server knows about a request that the app cannot see: that its HTTP parser refused the
// request after handing it to the app (a malformed chunk in the body, the request timeout), or that the
// client went away before the request arrived whole. Either way the app's reading of the body fails,
// and without this the failure would be logged and counted as the app's own (500 internal_error), an
// error log and a 5xx figure anyone could inflate without signing in. The access log and the error
// renderer read it, so such a request is logged as what it was. No Node import: on Lambda there is no
// connection to ask about (API Gateway receives the whole request first), and the answer is always none.
import type { ErrorCode } from "../errors.ts";

/** How a request's connection ended before the app could answer it. `requestId` is the id of the answer
 * the server wrote itself, when it wrote one; `cause` the parser's or the socket's code, when known. */
export type ConnectionOutcome =
  /** The server's parser refused the request and answered it itself, in the error envelope. */
  | { kind: "refused"; status: number; code: ErrorCode; requestId: string; cause: string }
  /** The client closed the connection (or stopped sending) before its request arrived whole. */
  | { kind: "client_closed"; requestId?: string; cause?: string };

/** The status logged for a request whose client closed the connection before it arrived whole (as
 * nginx logs it: no answer was sent, and it is no failure of the service). */
export const CLIENT_CLOSED_STATUS = 499;
export const CLIENT_CLOSED_CODE = "client_closed_request";

/** The parts of Node's IncomingMessage read here. */
interface IncomingRequest {
  complete: boolean;
  destroyed: boolean;
  socket?: { destroyed: boolean } | null;
}

const marks = new WeakMap<object, ConnectionOutcome>();

/** Records how the server saw the connection of `incoming` (a request the app has been handed) end. */
export function markConnection(incoming: object, outcome: ConnectionOutcome): void {
  marks.set(incoming, outcome);
}

/** How the connection of the request with these bindings ended early, or undefined when it did not (or
 * when there is no connection: Lambda, a request handed to the app in-process). */
export function connectionOutcome(env: unknown): ConnectionOutcome | undefined {
  const incoming = (env as { incoming?: IncomingRequest } | undefined)?.incoming;
  if (incoming === undefined || incoming === null || typeof incoming !== "object") return undefined;
  const marked = marks.get(incoming);
  if (marked) return marked;
  if (!incoming.complete && (incoming.destroyed || incoming.socket?.destroyed === true)) return { kind: "client_closed" };
  return undefined;
}

// The webhook signature against the `standardwebhooks` library (both ways), and the event-stream
// parser on the splits a network can produce.
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { SseParser, type SseEvent } from "./event-stream.ts";
import { signWebhook, verifyWebhook, webhookHeaders, webhookKey, WebhookSecretError } from "./webhook-signature.ts";

const SECRET = `whsec_${randomBytes(24).toString("base64")}`;
const BODY = JSON.stringify({ type: "run.requested", run_id: "run_1", task: "naïve ✓", input: { a: [1, 2] } });

describe("webhook signature", () => {
  it("signs as the standardwebhooks library does, and the library verifies our headers", () => {
    const at = new Date("2030-01-02T03:04:05.678Z");
    expect(signWebhook(SECRET, "run_1", Math.floor(at.getTime() / 1000), BODY)).toBe(new Webhook(SECRET).sign("run_1", at, BODY));
    const headers = webhookHeaders(SECRET, "run_1", BODY);
    expect(headers["webhook-id"]).toBe("run_1");
    expect(headers["webhook-timestamp"]).toMatch(/^\d+$/);
    expect(new Webhook(SECRET).verify(BODY, { ...headers })).toEqual(JSON.parse(BODY));
  });

  it("verifies what the library signs, and refuses tampering, another secret and stale timestamps", () => {
    const now = new Date();
    const library = new Webhook(SECRET);
    const headers = { "webhook-id": "msg_1", "webhook-timestamp": String(Math.floor(now.getTime() / 1000)), "webhook-signature": library.sign("msg_1", now, BODY) };
    expect(verifyWebhook(SECRET, headers, BODY)).toBe(true);
    expect(verifyWebhook(SECRET, new Headers(headers), BODY)).toBe(true);
    expect(verifyWebhook(SECRET, headers, `${BODY} `)).toBe(false);
    expect(verifyWebhook(SECRET, { ...headers, "webhook-id": "msg_2" }, BODY)).toBe(false);
    expect(verifyWebhook(`whsec_${randomBytes(24).toString("base64")}`, headers, BODY)).toBe(false);
    expect(verifyWebhook(SECRET, headers, BODY, { now: new Date(now.getTime() + 301_000) })).toBe(false);
    expect(verifyWebhook(SECRET, headers, BODY, { now: new Date(now.getTime() - 301_000) })).toBe(false);
    expect(verifyWebhook(SECRET, { ...headers, "webhook-signature": `v1,${"A".repeat(44)} ${headers["webhook-signature"]}` }, BODY)).toBe(true);
    expect(verifyWebhook(SECRET, { ...headers, "webhook-signature": headers["webhook-signature"].replace("v1,", "v2,") }, BODY)).toBe(false);
    expect(verifyWebhook(SECRET, { "webhook-id": "msg_1", "webhook-timestamp": headers["webhook-timestamp"] }, BODY)).toBe(false);
  });

  it("accepts only whsec_ secrets of 24 to 64 bytes, never quoting them", () => {
    expect(webhookKey(SECRET).byteLength).toBe(24);
    for (const bad of [SECRET.slice("whsec_".length), "whsec_", "whsec_c2hvcnQ=", `whsec_${randomBytes(65).toString("base64")}`, `whsec_${"!".repeat(32)}`]) {
      let caught: unknown;
      try {
        webhookKey(bad);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(WebhookSecretError);
      if (bad.length > "whsec_".length) expect((caught as Error).message).not.toContain(bad.slice("whsec_".length));
    }
  });
});

function parseAll(chunks: string[]): { events: SseEvent[]; unfinished: boolean } {
  const parser = new SseParser();
  const events = chunks.flatMap((chunk) => parser.feed(chunk));
  return { events, unfinished: parser.end() };
}

describe("event-stream parser", () => {
  const stream = [
    ": a comment\r\n",
    "retry: 1000\r\n",
    "id: 7\r\n",
    "\r\n", // no data: not dispatched
    "event: output\r\n",
    'data: {"delta":\r\n',
    'data: "a"}\r\n',
    "\r\n",
    "event:result\n",
    "data:x\n",
    "data\n", // a field without a colon: empty value
    "data:  two spaces\n",
    "\n",
    "data: unnamed\r",
    "\r",
  ].join("");
  const expected: SseEvent[] = [
    { type: "output", data: '{"delta":\n"a"}' },
    { type: "result", data: "x\n\n two spaces" },
    { type: "message", data: "unnamed" },
  ];

  it("parses comments, CRLF, CR and LF, multi-line data and field spellings", () => {
    expect(parseAll([stream])).toEqual({ events: expected, unfinished: false });
  });

  it("gives the same events whatever the chunking, including a CRLF split in two", () => {
    expect(parseAll([...stream])).toEqual({ events: expected, unfinished: false });
    for (let cut = 1; cut < stream.length; cut++) expect(parseAll([stream.slice(0, cut), stream.slice(cut)]).events).toEqual(expected);
    expect(parseAll(["data: a\r", "\ndata: b\r", "\n\r", "\n"]).events).toEqual([{ type: "message", data: "a\nb" }]);
  });

  it("dispatches an event as soon as its blank line arrives", () => {
    const parser = new SseParser();
    expect(parser.feed("event: output\ndata: 1\n")).toEqual([]);
    expect(parser.feed("\n")).toEqual([{ type: "output", data: "1" }]);
    expect(parser.feed("data: 2\r\n\r")).toEqual([{ type: "message", data: "2" }]);
  });

  it("counts the characters of the event not finished yet, whatever the chunking and line ends", () => {
    // After the whole stream: nothing pending. At each cut: the characters since the last blank line.
    const pendingAt = (text: string) => {
      // Every line end as one "\n"; the stream starts as if after a line end.
      const lines = `\n${text.replace(/\r\n/g, "\n").replace(/\r/g, "\n")}`;
      const boundary = lines.lastIndexOf("\n\n");
      return boundary < 0 ? lines.length - 1 : lines.length - boundary - 2;
    };
    for (let cut = 0; cut <= stream.length; cut++) {
      const parser = new SseParser();
      parser.feed(stream.slice(0, Math.floor(cut / 2)));
      parser.feed(stream.slice(Math.floor(cut / 2), cut));
      expect(parser.pendingChars, JSON.stringify(stream.slice(0, cut))).toBe(pendingAt(stream.slice(0, cut)));
    }
    const parser = new SseParser();
    parser.feed(`data: ${"x".repeat(1000)}`);
    expect(parser.pendingChars).toBe(1006);
    parser.feed("\r");
    parser.feed("\n");
    expect(parser.pendingChars).toBe(1007);
    parser.feed("\r\n");
    expect(parser.pendingChars).toBe(0);
  });

  it("reports an event left without its blank line at the end, but not a trailing comment", () => {
    expect(parseAll(["data: x\n"]).unfinished).toBe(true);
    expect(parseAll(["data: x"]).unfinished).toBe(true);
    expect(parseAll(["data: x\n\n: bye"]).unfinished).toBe(false);
  });
});

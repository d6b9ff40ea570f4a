// A Server-Sent Events reader over a fetch response body (the text/event-stream format), parsed by
// `eventsource-parser`: the same parser the service reads connected agents' streams with.
import { createParser } from "eventsource-parser";

export interface SseMessage {
  event: string;
  data: string;
  id: string | undefined;
}

/** Yields each event of `body`. A read error (a dropped connection) is thrown to the caller; the
 * reader is released when the iteration ends or is abandoned. An event the body ends before finishing
 * (no blank line after it) is not yielded. */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parsed: SseMessage[] = [];
  const parser = createParser({ onEvent: (event) => parsed.push({ event: event.event || "message", data: event.data, id: event.id }) });
  let done = false;
  try {
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) {
        done = true;
        parser.feed(decoder.decode());
      } else {
        parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
      while (parsed.length > 0) yield parsed.shift()!;
      if (done) return;
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

// A connected agent's text/event-stream answer, parsed incrementally by `eventsource-parser` (the WHATWG
// event-stream format: CRLF, LF or CR line ends, also when a CRLF is split between chunks; comments;
// multi-line data; a blank line dispatches; an event without data is not dispatched). The one thing the
// library does not say is whether the stream ended inside an unfinished event, which a delivery treats
// as a cut answer: `end()` finds out by finishing the stream as a blank line would.
import { createParser, type EventSourceParser } from "eventsource-parser";

export interface SseEvent {
  /** The `event` field, "message" when absent. */
  type: string;
  /** The `data` lines joined with "\n". */
  data: string;
}

export class SseParser {
  private readonly completed: SseEvent[] = [];
  private readonly parser: EventSourceParser = createParser({
    onEvent: (event) => this.completed.push({ type: event.event ?? "message", data: event.data }),
  });

  /** Feeds the next piece of decoded text; returns the events it completed. */
  feed(text: string): SseEvent[] {
    this.parser.feed(text);
    return this.completed.splice(0);
  }

  /** At the end of the stream: whether an event was left unfinished (data without its blank line). */
  end(): boolean {
    // Two line ends finish a partial line and then the event, so an unfinished event dispatches here; a
    // trailing comment or a finished stream dispatches nothing.
    this.parser.feed("\n\n");
    const unfinished = this.completed.length > 0;
    this.completed.length = 0;
    this.parser.reset();
    return unfinished;
  }
}

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
  /** Characters fed since the last blank line (the end of the last event): what the parser holds. */
  private sinceBoundary = 0;
  /** The last character fed ended a line (CR, LF, or the LF of a CRLF). */
  private atLineStart = true;
  /** The last character fed was a CR (a following LF belongs to the same line end). */
  private afterCr = false;

  /** Feeds the next piece of decoded text; returns the events it completed. */
  feed(text: string): SseEvent[] {
    this.track(text);
    this.parser.feed(text);
    return this.completed.splice(0);
  }

  /** How many characters of an event not finished yet the parser holds: a reader refuses an event that
   * grows past its bound as soon as it does, rather than after reading it whole. */
  get pendingChars(): number {
    return this.sinceBoundary;
  }

  /** Counts the characters since the last blank line (line ends CR, LF or CRLF, as the parser reads them):
   * one linear pass, no copy. */
  private track(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x0a && this.afterCr) {
        this.afterCr = false; // the LF of a CRLF: the line already ended
        continue;
      }
      this.afterCr = c === 0x0d;
      if (c === 0x0a || c === 0x0d) {
        if (this.atLineStart) this.sinceBoundary = 0; // a blank line: the event ends
        else {
          this.atLineStart = true;
          this.sinceBoundary += 1;
        }
      } else {
        this.atLineStart = false;
        this.sinceBoundary += 1;
      }
    }
  }

  /** At the end of the stream: whether an event was left unfinished (data without its blank line). */
  end(): boolean {
    // Two line ends finish a partial line and then the event, so an unfinished event dispatches here; a
    // trailing comment or a finished stream dispatches nothing.
    this.parser.feed("\n\n");
    const unfinished = this.completed.length > 0;
    this.completed.length = 0;
    this.parser.reset();
    this.sinceBoundary = 0;
    this.atLineStart = true;
    this.afterCr = false;
    return unfinished;
  }
}

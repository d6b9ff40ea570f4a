// Server-Sent Events in tests, read by the parser the service and the SDK read them with
// (eventsource-parser), so a test reads a stream the way a client does.
import { createParser } from "eventsource-parser";

export interface SseEvent {
  event: string;
  id?: string;
  data: string;
}

/** The events of a whole event-stream body, in order; an event the body ends before finishing is dropped. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({ onEvent: (event) => events.push({ event: event.event ?? "message", ...(event.id === undefined ? {} : { id: event.id }), data: event.data }) });
  parser.feed(text);
  return events;
}

/** As parseSse, each event's data parsed as JSON (null for an empty data field). */
export function parseSseJson(text: string): { event: string; id?: string; data: unknown }[] {
  return parseSse(text).map((event) => ({ ...event, data: JSON.parse(event.data === "" ? "null" : event.data) as unknown }));
}

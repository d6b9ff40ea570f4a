"""A Server-Sent Events reader (the text/event-stream format) over a line source."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Optional


@dataclass(frozen=True)
class SseMessage:
    event: str
    data: str
    id: Optional[str]


def read_sse(readline: Callable[[], bytes]) -> Iterator[SseMessage]:
    """Yields each complete event read through ``readline`` (which answers b"" at the end).

    An event the stream ends before finishing (no blank line after it) is not yielded; a read error (a
    dropped connection) propagates to the caller.
    """
    event = ""
    data: list[str] = []
    last_id: Optional[str] = None
    event_id: Optional[str] = None
    buffer = b""
    first = True
    while True:
        raw = readline()
        if raw == b"":
            return
        buffer += raw
        if not buffer.endswith(b"\n") and not buffer.endswith(b"\r"):
            continue  # a line longer than the reader's chunk: keep reading it
        line = buffer.decode("utf-8").rstrip("\r\n")
        buffer = b""
        if first:
            line = line.lstrip("\ufeff")
            first = False
        if line == "":
            if data or event:
                yield SseMessage(event=event or "message", data="\n".join(data), id=event_id)
            event, data, event_id = "", [], last_id
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
        elif name == "id" and "\0" not in value:
            last_id = value
            event_id = value

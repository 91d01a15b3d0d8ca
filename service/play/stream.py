"""The event stream client: Server-Sent Events parsed into messages, a stream followed
per viewer with reconnection (Last-Event-ID), checked against the actions' replies."""

from __future__ import annotations

import http.client
import json
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from service.play.constants import (
    RECONNECT_SECONDS,
    RETRIES,
)
from service.play.transport import StreamBody, Transport

# ----- the event stream ------------------------------------------------------------


class Message(NamedTuple):
    """One Server-Sent Event: ``id`` (the last ``id:`` seen, a seq here), ``event`` (its
    type; "message" when unnamed) and ``data`` (text; JSON here)."""

    id: str | None
    event: str
    data: str

    def json(self) -> Any:
        return json.loads(self.data)


def sse_messages(chunks: Iterable[bytes]) -> Iterator[Message]:
    """The events of a Server-Sent Events byte stream, as the WHATWG rules read it:
    ``field: value`` lines, a blank line dispatches, ``:`` starts a comment, ``id``
    persists to the next events, ``retry`` and unknown fields are ignored. (Lines end
    with LF or CRLF; a lone CR, which this service never sends, is not a line end.)"""
    buffer, last_id, event = b"", None, ""
    data: list[str] = []
    for chunk in chunks:
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for raw in lines:
            line = raw.removesuffix(b"\r").decode()
            if not line:
                if data:
                    yield Message(last_id, event or "message", "\n".join(data))
                event, data = "", []
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
            elif name == "id" and "\0" not in value:
                last_id = value


class EventStream:
    """Follows one event stream in a thread of its own: ``messages`` in arrival order,
    each with the time it arrived. When the server ends the stream (it does after a
    bounded time, and when it stops) the stream is opened again at once with
    ``Last-Event-ID`` (the id of the last event received), so nothing is missed or
    repeated; after ``RECONNECT_SECONDS`` when the connection failed or brought no
    event. It ends for good after the game's ``game-ended`` event or a 204 (a finished
    game, all of it seen: ``finished``), on :meth:`close`, or after ``RETRIES``
    failures in a row (``error``). ``wait_for(seq)`` / ``wait_past(seq)`` block until
    an event with an id of at least / beyond ``seq`` arrived (or the stream ended)."""

    def __init__(self, transport: Transport, path: str, headers: dict[str, str]):
        self.messages: list[tuple[float, Message]] = []
        self._arrivals: dict[int, float] = {}  # seq -> when its event arrived
        self.ended = False  # for good
        self.finished = False  # the server has nothing more to send (204, game-ended)
        self.connections = 0  # streams opened (1 + the reconnections)
        self.error: BaseException | None = None
        self._transport, self._path, self._headers = transport, path, headers
        self._closed = False
        self._changed = threading.Condition()
        self._body = self._open()  # the first one in the caller's thread: errors raise
        self.finished = self._body is None
        self._thread = threading.Thread(target=self._follow, daemon=True)
        self._thread.start()

    def _open(self) -> StreamBody | None:
        """GET the stream, resuming after the last event received (if any)."""
        with self._changed:
            last = next((m.id for _, m in reversed(self.messages) if m.id), None)
            self.connections += 1
        resume = {} if last is None else {"Last-Event-ID": last}
        return self._transport.stream(self._path, {**self._headers, **resume})

    def _follow(self) -> None:
        body, quiet = self._body, 0
        try:
            while body is not None:
                received = len(self.messages)
                try:
                    self._read(body)
                except (OSError, http.client.HTTPException):
                    pass  # the connection dropped: open it again
                if self._closed or self.finished:
                    return
                # a connection that brought nothing counts as a failure: a pause first
                quiet = 0 if len(self.messages) > received else quiet + 1
                if quiet > RETRIES:
                    self.error = OSError(f"{quiet} connections in a row brought no event")
                    return
                body = self._reopen(pause=quiet > 0)
        except ValueError as error:  # not SSE, or not JSON where an id is expected
            self.error = error
        finally:
            with self._changed:
                self.ended = True
                self._changed.notify_all()

    def _reopen(self, pause: bool) -> StreamBody | None:
        """The stream opened again after the last event received; None when it ends
        for good: 204 (``finished``), or ``RETRIES`` failures in a row (``error``)."""
        for attempt in range(RETRIES + 1):
            if pause or attempt:
                time.sleep(RECONNECT_SECONDS)
            try:
                body = self._open()
            except (OSError, http.client.HTTPException) as error:
                if attempt == RETRIES or self._closed:
                    self.error = error
                    return None
                continue
            if body is None:
                self.finished = True
                return None
            with self._changed:
                self._body = body
            if self._closed:  # close() ran while it was opening
                body.close()
            return body
        return None

    def _read(self, body: StreamBody) -> None:
        for message in sse_messages(body):
            with self._changed:
                now = time.perf_counter()
                self.messages.append((now, message))
                if message.id and message.id.isdigit():
                    self._arrivals.setdefault(int(message.id), now)
                self.finished = self.finished or message.event == "game-ended"
                self._changed.notify_all()

    @property
    def last_seq(self) -> int:
        """The id of the last event received (0 before any)."""
        with self._changed:
            return max(self._arrivals, default=0)

    def first(self, timeout: float) -> Message | None:
        """The first event (the opening ``view``), waiting up to ``timeout`` s."""
        with self._changed:
            self._changed.wait_for(lambda: self.messages or self.ended, timeout)
            return self.messages[0][1] if self.messages else None

    def arrival(self, seq: int) -> float:
        """When (``perf_counter``) the first event with id >= ``seq`` arrived; inf if
        none did yet."""
        with self._changed:
            if seq in self._arrivals:
                return self._arrivals[seq]
            return min((at for s, at in self._arrivals.items() if s >= seq), default=float("inf"))

    def wait_for(self, seq: int, timeout: float) -> float | None:
        """:meth:`arrival` of ``seq``, waiting up to ``timeout`` s for it; None if it
        did not come (timeout, or the stream ended)."""
        with self._changed:
            self._changed.wait_for(lambda: self.last_seq >= seq or self.ended, timeout)
        at = self.arrival(seq)
        return None if at == float("inf") else at

    def wait_past(self, seq: int, timeout: float) -> bool:
        """Wait up to ``timeout`` s for news after event ``seq``: a later event, or the
        end of the stream. True if there is some."""
        with self._changed:
            return self._changed.wait_for(lambda: self.last_seq > seq or self.ended, timeout)

    def close(self) -> None:
        """Stop following."""
        self._closed = True
        with self._changed:
            body = self._body
        if body is not None:
            body.close()

"""The HTTP transport of the game-playing client: one request per call, retried over
transport failures, 503s and 429s with the same Idempotency-Key."""

from __future__ import annotations

import http.client
import json
import socket
from collections.abc import Iterator
from typing import Any, NamedTuple, Protocol
from urllib.parse import urlsplit

from service.play.constants import (
    STREAM_TIMEOUT,
)

# ----- transport -------------------------------------------------------------------


class Reply(NamedTuple):
    """One HTTP response: status, parsed JSON body (None when empty), headers."""

    status: int
    body: Any
    headers: dict[str, str]


def _seconds(retry_after: str | None) -> float:
    """A ``Retry-After`` in seconds (1 when absent or not a number), from 0.1 (a
    limit's window ending within the second says 0) to 5."""
    try:
        return min(max(float(retry_after or 1), 0.1), 5.0)
    except ValueError:
        return 1.0


class Transport(Protocol):
    """Sends one request: ``request("POST", "/v1/games", {"game": ...}, headers)``;
    ``stream(path, headers)`` opens an event stream: its body, or None when the
    server answers 204 (a finished game with nothing more to see); :class:`OSError`
    for any other status."""

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> Reply: ...

    def stream(self, path: str, headers: dict[str, str]) -> StreamBody | None: ...


class StreamBody(Protocol):
    """An open event stream: its bytes as they arrive; ``close()`` from any thread."""

    def __iter__(self) -> Iterator[bytes]: ...

    def close(self) -> None: ...


class HTTPTransport:
    """A keep-alive ``http.client`` connection to ``url`` (http only), reopened after a
    dropped connection. Not thread safe: one per thread."""

    def __init__(self, url: str, timeout: float = 30.0):
        parts = urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"expected an http://host:port URL, not {url!r}")
        self.host, self.port = parts.hostname, parts.port or 80
        self.prefix = parts.path.rstrip("/")
        self.timeout = timeout
        self.connection: http.client.HTTPConnection | None = None

    def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> Reply:
        data = None if body is None else json.dumps(body).encode()
        sent = {"Accept": "application/json", **(headers or {})}
        if data is not None:
            sent["Content-Type"] = "application/json"
        if self.connection is None:
            self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            self.connection.request(method, self.prefix + path, body=data, headers=sent)
            response = self.connection.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException):
            self.close()
            raise
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:  # not JSON (an HTML error page from a proxy...)
            parsed = raw.decode(errors="replace")
        return Reply(response.status, parsed, {k.lower(): v for k, v in response.getheaders()})

    def close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def stream(self, path: str, headers: dict[str, str]) -> HTTPStream | None:
        """GET ``path`` as an event stream, on a connection of its own (None: 204)."""
        stream = HTTPStream(self.host, self.port, self.prefix + path, headers)
        return None if stream.status == 204 else stream


class HTTPStream:
    """An open event stream: iterate for its bytes as they arrive; :meth:`close`, from
    any thread, ends it. ``status`` is 200, or 204 (closed at once: nothing to read);
    :class:`OSError` for any other status."""

    def __init__(self, host: str, port: int, path: str, headers: dict[str, str]):
        self.connection = http.client.HTTPConnection(host, port, timeout=STREAM_TIMEOUT)
        try:
            self.connection.request("GET", path, headers={"Accept": "text/event-stream", **headers})
            self.response = self.connection.getresponse()
            if self.connection.sock is not None:  # then wait as long as it is open
                self.connection.sock.settimeout(None)
        except BaseException:
            self.connection.close()
            raise
        self.status = self.response.status
        if self.status != 200:
            self.connection.close()
            if self.status != 204:
                raise OSError(f"GET {path}: HTTP {self.status}")

    def __iter__(self) -> Iterator[bytes]:
        try:
            while chunk := self.response.read1(65536):
                yield chunk
        except (OSError, http.client.HTTPException, AttributeError):
            return  # shut down by close() (http.client may trip over its closed file)
        finally:
            self.connection.close()

    def close(self) -> None:
        """Shut the socket down: the reading thread's iteration ends."""
        sock = self.connection.sock
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

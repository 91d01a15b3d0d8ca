"""Play complete games against a running Card Referee over HTTP (a load and soak client).

    python -m service.play --url http://127.0.0.1:8000 --game two-way --games 20 \\
        [--seed N] [--wrong-rate 0.1] [--players N] [--options JSON] \\
        [--position FILE] [--idle-seconds N]

Games: two-way, sequence, sequence-numbers, halves, solitaire-frenzy.

Each game is created with ``POST /v1/games`` and played to its end through the public
API only, each seat acting with its own bearer token:

* the seat to move is the ``turn`` of the latest view (the referee's view at the
  start; after an action the acting seat's view, which shows the same ``turn``); when
  that seat has nothing to do, every seat's ``legal-actions`` is asked in turn, then
  the referee's (``"dealing": "table"``: the referee reports the deal and the draws);
* the seat's ``GET /v1/games/{id}/legal-actions`` gives complete bodies; a correct
  declaration (2-Way Cards, TW-D) is always preferred, otherwise one body is picked at
  random;
* 2-Way Cards only: with probability ``--wrong-rate`` per step (when no correct
  declaration is open) the seat instead declares a WRONG line: a straight contiguous
  line of 3..6 occupied spaces of its own view of the grid, whose length slot is
  still free and which is not among the legal declarations. The service records a
  ``declaration-rejected`` event and the seat's next turn is skipped (TW-D5, TW-T5);
* one client plays every seat, so it never waits for a turn and never polls: the
  next seat comes from the reply to the last action, and ``GET /v1/games/{id}`` is
  read once, at the end (the revealed seed);
* every action is POSTed with ``expected_version`` and an ``Idempotency-Key``; a
  dropped connection or a 503 is retried with the same key (so never applied twice);
* table mode: the referee reports every card drawn (what is really in the deck); a
  seat's own ``draw`` bodies, which list every card the seat cannot rule out (G-M2),
  are left aside.
* each game is followed on the referee's event stream (``GET /v1/games/{id}/stream``,
  :class:`EventStream`) instead of asking for it: the game's first view comes from
  the stream's opening ``view`` event, and at the end of the game every acknowledged
  action's events must have been streamed (an error otherwise, after waiting up to
  ``STREAM_TIMEOUT``), so a run also checks the live feed of every game it plays and
  measures its delivery (``--no-follow``: without streams). Streams the server ends
  (after a bounded time) are opened again with ``Last-Event-ID``.

Sequence and Sequence Numbers (``--game sequence|sequence-numbers --players N``,
seats ``p1``..``pN``) are played the same way (random legal bodies; they have no
declarations, so ``--wrong-rate`` does not apply).

Real-time games (the catalog says ``realtime``: Halves, Solitaire Frenzy) are raced
(:class:`Racer`): one thread per seat, each with its own connection and token, loops
``legal-actions`` -> one random body -> POST (no version: the body's ``based_on``
names what it aimed at), all seats at once, until the game is over; each seat
follows its own event stream, and a seat with nothing to do waits for the next event
it may see (a new top card, a foundation card, the end) instead of polling, then asks
its legal actions again; Solitaire Frenzy seats turn their hand only when
nothing else is legal (``FALLBACK_ONLY``), as players do. ``--at-once K`` races K
games side by side. The
summary counts play POSTs, accepted plays, stale refusals (``stale-*``, lost races),
other refusals by code, the events of accepted actions (e.g. Halves' block moves
``bottom-card-moved`` and ``pile-turned``) and winners. In table dealing the seats
report nothing (the referee does), so those games are played as above.

At the end a summary is printed: games, turns, actions, declarations (valid/wrong),
penalties (missed turns), winners, errors (any unexpected non-2xx, unfinished game,
seed that does not match its commitment, event not streamed), actions/s, and the
events streamed with the slowest delivery (reply to stream). The exit status is 1 when
errors > 0. ``--seed`` makes a run reproducible: the client's choices come from
``random.Random(seed)`` and each game's seed (64 hex digits) is drawn from it too.

``--position FILE`` starts every game from the position in FILE (G-P1: JSON in the
game's notation, e.g. what ``GET /v1/games/{id}/position`` gave the referee; its
``game`` is the game played, ``--game`` may be left out). ``--idle-seconds N`` sets
the games' option ``idle_seconds`` (G-T1: a seat idle that long loses its turn or is
treated as stuck, so a game whose seat stops acting still ends).

The core (:class:`Player`) takes any :class:`Transport`, so tests drive it in process.
"""
from __future__ import annotations

import argparse
import hashlib
import http.client
import json
import random
import socket
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol
from urllib.parse import urlsplit

TWO_WAY = "two-way"
GAMES = ("two-way", "sequence", "sequence-numbers", "halves", "solitaire-frenzy")
GRID_DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # TW-D1: row, column, diagonals
MAX_ACTIONS_PER_GAME = 20_000  # a guard: a game that has not ended by then is an error
RETRIES = 4  # transport failures and 503s, retried with the same Idempotency-Key
THROTTLED = 120  # 429s in a row waited out (each for its Retry-After) before giving up
REFEREE_ONLY = {"penalty", "retire"}  # disciplinary referee actions: never chosen
# race mode: action types a seat takes only when it has nothing else to do, as a player
# would (Solitaire Frenzy: turning the hand, SF-H1)
FALLBACK_ONLY = {"turn"}
STREAM_TIMEOUT = 10.0  # seconds an acknowledged action's events may take to be streamed
RECONNECT_SECONDS = 0.2  # a stream whose connection failed is opened again after this


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

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> Reply: ...

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

    def request(self, method: str, path: str, body: Any = None,
                headers: dict[str, str] | None = None) -> Reply:
        data = None if body is None else json.dumps(body).encode()
        sent = {"Accept": "application/json", **(headers or {})}
        if data is not None:
            sent["Content-Type"] = "application/json"
        if self.connection is None:
            self.connection = http.client.HTTPConnection(self.host, self.port,
                                                         timeout=self.timeout)
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
            self.connection.request("GET", path,
                                    headers={"Accept": "text/event-stream", **headers})
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
    buffer, last_id, event, data = b"", None, "", []
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
            return min((at for s, at in self._arrivals.items() if s >= seq),
                       default=float("inf"))

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
            return self._changed.wait_for(lambda: self.last_seq > seq or self.ended,
                                          timeout)

    def close(self) -> None:
        """Stop following."""
        self._closed = True
        with self._changed:
            body = self._body
        if body is not None:
            body.close()


# ----- statistics ------------------------------------------------------------------


@dataclass
class Stats:
    """What a run did (see :meth:`summary`)."""

    games: int = 0
    finished: int = 0
    turns: int = 0
    actions: int = 0
    requests: int = 0
    declarations_valid: int = 0
    declarations_wrong: int = 0
    penalties: int = 0
    retries: int = 0
    winners: Counter = field(default_factory=Counter)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    seconds: float = 0.0
    streamed: int = 0  # acknowledged actions whose events the stream delivered
    stream_lag: float = 0.0  # the slowest: seconds from the reply to the stream

    def error(self, text: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 20:
            self.error_samples.append(text)

    @property
    def actions_per_second(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0

    def summary(self) -> str:
        """One line: games, turns, actions, declarations, penalties, winners, errors,
        actions/s."""
        winners = ", ".join(f"{who} {n}" for who, n in sorted(
            self.winners.items(), key=lambda item: (item[0] == "draw", item[0])))
        return (f"games {self.games} (finished {self.finished}) | turns {self.turns} | "
                f"actions {self.actions} | declarations {self.declarations_valid} valid, "
                f"{self.declarations_wrong} wrong | penalties {self.penalties} | "
                f"winners {winners or '-'} | errors {self.errors} | "
                f"{self.actions_per_second:.0f} actions/s ({self.seconds:.1f} s, "
                f"{self.requests} requests) | streamed {self.streamed}, slowest "
                f"{self.stream_lag * 1000:.0f} ms")


# ----- strategy helpers (2-Way Cards) ----------------------------------------------


def grid_lines(grid: list[list[Any]], lengths: set[int]) -> list[list[list[int]]]:
    """Every straight, contiguous line (TW-D1) of occupied spaces of ``grid`` (None is
    empty) whose length is in ``lengths``, each listed once in reading direction."""
    size = len(grid)
    out = []
    for r in range(size):
        for c in range(size):
            for dr, dc in GRID_DIRECTIONS:
                for n in sorted(lengths):
                    cells = [[r + i * dr, c + i * dc] for i in range(n)]
                    if all(0 <= y < size and 0 <= x < size and grid[y][x] is not None
                           for y, x in cells):
                        out.append(cells)
    return out


def free_lengths(view: dict, seat: str) -> set[int]:
    """TW-D3: the declaration lengths ``seat`` still has a free slot for (its view's
    ``slots``: {seat: {length: {allowed, held}}}); the only limit on lengths (TW-T3)."""
    return {int(n) for n, slot in view["slots"][seat].items() if slot["held"] < slot["allowed"]}


def wrong_declarations(view: dict, seat: str, legal: list[dict]) -> list[list[list[int]]]:
    """Lines ``seat`` could declare that are NOT correct: occupied, free length, and
    not among the legal declarations (in either direction)."""
    correct = {frozenset(map(tuple, a["cells"])) for a in legal if a["type"] == "declare"}
    return [cells for cells in grid_lines(view["grid"], free_lengths(view, seat))
            if frozenset(map(tuple, cells)) not in correct]


def winner_of(view: dict) -> str:
    """"draw" or the winning seats joined by "+" (a team: ``p1+p3``), from a finished
    game's view: its ``result.winners`` (the one result shape of every game)."""
    return "+".join(view["result"]["winners"]) or "draw"


# ----- the player ------------------------------------------------------------------


class Unexpected(Exception):
    """A reply the player did not expect (already counted as an error)."""


@dataclass
class GameRun:
    """One game being played: its id, tokens (seat -> bearer token, plus
    "referee"), version and latest view."""

    id: str
    game: str
    tokens: dict[str, str]
    seed_commitment: str
    version: int = 1
    view: dict = field(default_factory=dict)
    status: str = "active"
    actions: int = 0
    stream: EventStream | None = None  # the referee's event stream, when followed
    acked: list[tuple[int, float]] = field(default_factory=list)  # (last seq, replied at)

    @property
    def seats(self) -> list[str]:
        return [s for s in self.tokens if s != "referee"]

    def auth(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}


class Player:
    """Plays whole games through a :class:`Transport` and counts into :class:`Stats`.

    ``wrong_rate``: probability per step of a wrong declaration (2-Way Cards).
    ``on_reply``: optional callback ``(method, path, reply)`` for every response
    (tests use it to watch the traffic). ``follow``: follow each game on the
    referee's event stream (see the module docstring), when the transport can open
    one (has ``stream``). ``position``: start every game from it (G-P1).
    """

    def __init__(self, transport: Transport, rng: random.Random, wrong_rate: float = 0.0,
                 stats: Stats | None = None,
                 on_reply: Callable[[str, str, Reply], None] | None = None,
                 follow: bool = True, position: dict | None = None):
        self.transport = transport
        self.position = position
        self.rng = rng
        self.wrong_rate = wrong_rate
        self.stats = stats or Stats()
        self.on_reply = on_reply
        self.follow = follow and hasattr(transport, "stream")

    # ----- requests -----

    def _send(self, method: str, path: str, body: Any = None,
              headers: dict[str, str] | None = None, retry: bool = False) -> Reply:
        """One request; transport failures and 503 retried when ``retry`` (a GET, or a
        POST carrying an Idempotency-Key). A 429 (the server's rate limit: nothing was
        done) is sent again after its ``Retry-After``, up to ``THROTTLED`` times."""
        throttled = 0
        attempt = -1
        while attempt < RETRIES:
            attempt += 1
            try:
                reply = self.transport.request(method, path, body, headers)
            except (OSError, http.client.HTTPException) as error:
                if not retry or attempt == RETRIES:
                    self.stats.error(f"{method} {path}: {error!r}")
                    raise Unexpected(str(error)) from error
                self.stats.retries += 1
                time.sleep(0.05 * (attempt + 1))
                continue
            self.stats.requests += 1
            if self.on_reply is not None:
                self.on_reply(method, path, reply)
            if reply.status == 429 and throttled < THROTTLED:
                throttled += 1
                self.stats.retries += 1
                attempt -= 1  # not a failure: the server asked us to wait
                time.sleep(_seconds(reply.headers.get("retry-after")))
                continue
            if reply.status == 503 and retry and attempt < RETRIES:
                self.stats.retries += 1
                time.sleep(min(float(reply.headers.get("retry-after", "1") or 1), 1.0) * 0.2)
                continue
            return reply
        raise AssertionError("unreachable")

    def _ok(self, method: str, path: str, body: Any = None, headers: dict | None = None,
            retry: bool = False, expect: int = 200) -> Any:
        reply = self._send(method, path, body, headers, retry)
        if reply.status != expect:
            detail = reply.body.get("code") if isinstance(reply.body, dict) else reply.body
            self.stats.error(f"{method} {path} -> {reply.status} {detail}")
            raise Unexpected(f"{reply.status} {detail}")
        return reply.body

    @staticmethod
    def _key() -> str:
        """A fresh Idempotency-Key (random, not from the seeded rng: keys must not
        repeat across runs against the same server)."""
        return f"play-{uuid.uuid4().hex}"

    # ----- a game -----

    def create(self, game: str, options: dict, look: bool = True) -> GameRun:
        """POST /v1/games with a seed drawn from the player's rng; then (``look``) the
        referee's view, from its stream's opening event when following, else read."""
        body = {"game": game, "options": options, "seed": f"{self.rng.getrandbits(256):064x}"}
        if self.position is not None:
            body["position"] = self.position
        created = self._ok("POST", "/v1/games", body,
                           {"Idempotency-Key": self._key()}, retry=True, expect=201)
        tokens = {seat: entry["token"] for seat, entry in created["seats"].items()}
        tokens["referee"] = created["referee_token"]
        run = GameRun(created["id"], game, tokens, created["seed_commitment"],
                      version=created["version"], status=created["status"])
        if look and self.follow:
            self.open_stream(run)
        elif look:
            self.refresh(run)
        return run

    def open_stream(self, run: GameRun) -> None:
        """Follow the game on the referee's stream; its opening ``view`` event gives
        the version, status and view (as GET /v1/games/{id} would)."""
        run.stream = self.follow_stream(run, "referee")
        body = run.stream.messages[0][1].json()
        run.version, run.status, run.view = body["version"], body["status"], body["view"]

    def follow_stream(self, run: GameRun, who: str) -> EventStream:
        """``who``'s event stream of the game, once its opening ``view`` event came
        (within ``STREAM_TIMEOUT``)."""
        path = f"/v1/games/{run.id}/stream"
        try:
            stream = EventStream(self.transport, path, run.auth(who))
        except (OSError, http.client.HTTPException) as error:
            self.stats.error(f"GET {path}: {error!r}")
            raise Unexpected(str(error)) from error
        first = stream.first(STREAM_TIMEOUT)
        if first is None or first.event != "view":
            stream.close()
            self.stats.error(f"GET {path}: no opening view event ({first!r}, {stream.error!r})")
            raise Unexpected("no view event")
        return stream

    def check_stream(self, run: GameRun) -> None:
        """Every acknowledged action's events were streamed (waiting up to
        ``STREAM_TIMEOUT`` for the last); counts them and the slowest delivery."""
        if run.stream is None or not run.acked:
            return
        last = run.acked[-1][0]
        if run.stream.wait_for(last, STREAM_TIMEOUT) is None:
            self.stats.error(f"game {run.id}: event {last} was not streamed within "
                             f"{STREAM_TIMEOUT:g} s ({run.stream.error or 'no error'})")
            return
        for seq, replied in run.acked:
            self.stats.streamed += 1
            self.stats.stream_lag = max(self.stats.stream_lag,
                                        run.stream.arrival(seq) - replied)

    def refresh(self, run: GameRun) -> None:
        """The referee's view: version, status, turn."""
        body = self._ok("GET", f"/v1/games/{run.id}", headers=run.auth("referee"), retry=True)
        run.version, run.status, run.view = body["version"], body["status"], body["view"]

    def legal(self, run: GameRun, seat: str) -> tuple[int, list[dict]]:
        body = self._ok("GET", f"/v1/games/{run.id}/legal-actions", headers=run.auth(seat),
                        retry=True)
        return body["version"], body["actions"]

    def seat_to_move(self, run: GameRun) -> tuple[str, int, list[dict]] | None:
        """(seat, version, its legal actions): the view's ``turn`` first, then every
        seat in order, then the referee (table mode: the deal and the draws); None when
        nobody has anything to do. The referee's disciplinary actions (``penalty``,
        SQ-T6; ``retire``, HV-T6) are never chosen, nor a seat's own table-mode draw
        (the referee reports it: it knows which cards are left)."""
        turn = run.view.get("turn")
        candidates = ([turn] if turn in run.seats else []) + [s for s in run.seats if s != turn]
        for seat in [*candidates, "referee"]:
            version, actions = self.legal(run, seat)
            if seat == "referee":
                actions = [a for a in actions if a["type"] not in REFEREE_ONLY]
            else:
                actions = [a for a in actions if not (a["type"] == "draw" and "card" in a)]
            if actions:
                return seat, version, actions
        return None

    def choose(self, run: GameRun, seat: str, actions: list[dict]) -> dict:
        """A correct declaration if any; else (2-Way Cards, with probability
        ``wrong_rate``) a wrong one; else a random legal body."""
        declarations = [a for a in actions if a["type"] == "declare"]
        if declarations:
            return self.rng.choice(declarations)
        if (run.game == TWO_WAY and seat in run.seats and self.wrong_rate
                and self.rng.random() < self.wrong_rate):
            own = self._ok("GET", f"/v1/games/{run.id}", headers=run.auth(seat), retry=True)
            lines = wrong_declarations(own["view"], seat, actions)
            if lines:
                cells = self.rng.choice(lines)
                if self.rng.random() < 0.5:
                    cells = cells[::-1]  # TW-D1: either direction
                return {"type": "declare", "cells": cells}
        return self.rng.choice(actions)

    def act(self, run: GameRun, seat: str, version: int, action: dict) -> dict:
        """POST the action as ``seat`` based on ``version``; counts its events and
        notes their last seq for :meth:`check_stream`."""
        body = {**action, "expected_version": version}
        reply = self._ok("POST", f"/v1/games/{run.id}/actions", body,
                         {**run.auth(seat), "Idempotency-Key": self._key()}, retry=True)
        replied = time.perf_counter()
        self.stats.actions += 1
        run.actions += 1
        run.version, run.status, run.view = reply["version"], reply["status"], reply["view"]
        for event in reply["events"]:
            kind = event["type"]
            self.stats.declarations_valid += kind == "declared"
            self.stats.declarations_wrong += kind == "declaration-rejected"
            self.stats.penalties += kind == "turn-skipped"
        if reply["events"]:
            run.acked.append((max(e["seq"] for e in reply["events"]), replied))
        return reply

    def finish(self, run: GameRun) -> None:
        """Read the game as the referee and count it finished: turns, winner, and the
        revealed seed against its commitment (an error if it is not finished)."""
        body = self._ok("GET", f"/v1/games/{run.id}", headers=run.auth("referee"), retry=True)
        run.version, run.status, run.view = body["version"], body["status"], body["view"]
        if run.status != "finished":
            self.stats.error(f"game {run.id}: {run.status}, not finished")
            return
        view = body["view"]
        self.stats.finished += 1
        self.stats.turns += int(view.get("turn_number") or 0)
        self.stats.winners[winner_of(view)] += 1
        seed = body.get("seed") or ""
        if hashlib.sha256(seed.encode()).hexdigest() != run.seed_commitment:
            self.stats.error(f"game {run.id}: the revealed seed does not match its commitment")

    def play_game(self, game: str, options: dict | None = None) -> GameRun | None:
        """Create one game and play it to its end. Returns the run (None if it could
        not even be created); problems are counted in ``stats``, never raised."""
        self.stats.games += 1
        try:
            run = self.create(game, dict(options or {}))
        except Unexpected:
            return None
        try:
            self._play_to_end(run)
            self.check_stream(run)
        finally:
            if run.stream is not None:
                run.stream.close()
        return run

    def _play_to_end(self, run: GameRun) -> None:
        failures = 0
        while run.status == "active" and run.actions < MAX_ACTIONS_PER_GAME:
            try:
                found = self.seat_to_move(run)
                if found is None:
                    self.stats.error(f"game {run.id}: active but no seat has a legal action")
                    return
                seat, version, actions = found
                self.act(run, seat, version, self.choose(run, seat, actions))
                failures = 0
            except Unexpected:
                failures += 1
                if failures >= 3:
                    return
                try:
                    self.refresh(run)
                except Unexpected:
                    return
        if run.status != "finished":
            self.stats.error(f"game {run.id}: not finished after {run.actions} actions")
            return
        try:
            self.finish(run)
        except Unexpected:
            pass

    def play(self, game: str, games: int, options: dict | None = None) -> Stats:
        """Play ``games`` games one after the other; ``stats.seconds`` is the wall time."""
        start = time.perf_counter()
        for _ in range(games):
            self.play_game(game, options)
        self.stats.seconds += time.perf_counter() - start
        return self.stats


# ----- real-time games: one concurrent client per seat ---------------------------------


@dataclass
class RaceStats(Stats):
    """:class:`Stats` of raced games, plus: POSTs and accepted actions per action type,
    refusals per problem code, events of accepted actions per type, and the seconds
    of every play POST."""

    posts: Counter = field(default_factory=Counter)
    accepted: Counter = field(default_factory=Counter)
    refused: Counter = field(default_factory=Counter)
    events: Counter = field(default_factory=Counter)
    play_seconds: list[float] = field(default_factory=list)
    waits: int = 0  # times a seat with nothing to do waited for its stream's next event
    streams: int = 0  # streams the seats opened (reconnections included)

    def merge(self, other: RaceStats) -> None:
        """Add the counts of one game's host or seat thread (each counts into its own)."""
        self.requests += other.requests
        self.retries += other.retries
        self.actions += other.actions
        self.finished += other.finished
        self.waits += other.waits
        self.streams += other.streams
        self.winners.update(other.winners)
        for name in ("posts", "accepted", "refused", "events"):
            getattr(self, name).update(getattr(other, name))
        self.play_seconds += other.play_seconds
        for sample in other.error_samples:
            self.error(sample)
        self.errors += other.errors - len(other.error_samples)

    @property
    def stale(self) -> int:
        return sum(n for code, n in self.refused.items() if code.startswith("stale"))

    def summary(self) -> str:
        """One line: games, plays (accepted, stale, other refusals), events, winners,
        errors, accepted plays/s."""
        other = ", ".join(f"{code} {n}" for code, n in sorted(self.refused.items())
                          if not code.startswith("stale")) or "none"
        events = ", ".join(f"{kind} {n}" for kind, n in sorted(self.events.items())
                           if kind not in ("played", "game-ended")) or "none"
        winners = ", ".join(f"{who} {n}" for who, n in sorted(self.winners.items()))
        rate = self.accepted["play"] / self.seconds if self.seconds else 0.0
        return (f"games {self.games} (finished {self.finished}) | plays {self.posts['play']} "
                f"(accepted {self.accepted['play']}, stale {self.stale}) | other refusals "
                f"{other} | events {events} | winners {winners or '-'} | errors "
                f"{self.errors} | {rate:.0f} accepted plays/s ({self.seconds:.1f} s, "
                f"{self.requests} requests, {self.streams} streams, {self.waits} waits)")


class Racer:
    """Races real-time games: one thread per seat, each with its own transport
    (``connect()``, which must open streams) and its own event stream, loops
    legal-actions -> a random body -> POST until the game is over, and waits for its
    stream's next event when it has nothing to do (never polls). ``on_action(run,
    seat, action, reply, seconds)`` is called for every action POST (from the seat
    threads). ``position``: start every game from it (G-P1)."""

    def __init__(self, connect: Callable[[], Transport], rng: random.Random,
                 stats: RaceStats | None = None,
                 on_action: Callable[[GameRun, str, dict, Reply, float], None] | None = None,
                 position: dict | None = None):
        self.connect = connect
        self.position = position
        self.rng = rng
        self.stats = stats or RaceStats()
        self.on_action = on_action
        self.lock = threading.Lock()
        self.runs: list[GameRun] = []  # every game created, in order
        self.plays_sent = 0  # play POSTs so far, games under way included

    def race_game(self, game: str, options: dict | None = None) -> GameRun | None:
        """Create one game and race it to its end; None if it could not be created."""
        with self.lock:
            self.stats.games += 1
            seed = self.rng.getrandbits(64)
        host = Player(self.connect(), random.Random(seed), stats=RaceStats(),
                      position=self.position)
        seats: list[Player] = []
        run = None
        try:
            run = host.create(game, dict(options or {}), look=False)  # the seats look
            with self.lock:
                self.runs.append(run)
            seats = [Player(self.connect(), random.Random(seed + i), stats=RaceStats())
                     for i in range(1, len(run.seats) + 1)]
            threads = [threading.Thread(target=self.play_seat, args=(run, seat, player))
                       for seat, player in zip(run.seats, seats)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            host.finish(run)
        except Unexpected:
            pass
        finally:
            _close(host.transport)
            with self.lock:
                for player in (host, *seats):
                    self.stats.merge(player.stats)  # type: ignore[arg-type]
        return run

    def play_seat(self, run: GameRun, seat: str, player: Player) -> None:
        """One seat's loop (a thread) until the game is over; problems are counted,
        never raised. The seat follows its own event stream: with nothing to do, it
        waits for the next event it may see (another seat's play, a new top card or
        foundation card, the game's end) before it asks its legal actions again."""
        stats: RaceStats = player.stats  # type: ignore[assignment]
        path = f"/v1/games/{run.id}"
        stream = None
        try:
            stream = player.follow_stream(run, seat)
            while True:
                seen = stream.last_seq
                _, actions = player.legal(run, seat)
                if not actions:
                    if stream.finished:
                        return
                    if stream.ended:
                        stats.error(f"game {run.id}: {seat}'s stream ended ({stream.error!r})")
                        return
                    stats.waits += 1
                    stream.wait_past(seen, STREAM_TIMEOUT)
                    continue
                action = race_choice(player.rng, actions)
                begin = time.perf_counter()
                reply = player._send("POST", path + "/actions", action,
                                     {**run.auth(seat), "Idempotency-Key": player._key()},
                                     retry=True)
                seconds = time.perf_counter() - begin
                if self.on_action is not None:
                    self.on_action(run, seat, action, reply, seconds)
                if action["type"] == "play":
                    with self.lock:
                        self.plays_sent += 1
                if self._count(stats, action, reply, seconds):
                    return
        except Unexpected:
            return
        finally:
            if stream is not None:
                stats.streams += stream.connections
                stream.close()
            _close(player.transport)

    @staticmethod
    def _count(stats: RaceStats, action: dict, reply: Reply, seconds: float) -> bool:
        """Count one action reply; True when the seat is done (the game is over)."""
        kind = action["type"]
        stats.posts[kind] += 1
        if kind == "play":
            stats.play_seconds.append(seconds)
        if reply.status == 200:
            stats.actions += 1
            stats.accepted[kind] += 1
            stats.events.update(e["type"] for e in reply.body["events"])
            return reply.body["status"] != "active"
        code = reply.body.get("code") if isinstance(reply.body, dict) else None
        if reply.status == 409 and code:
            stats.refused[code] += 1
            return code == "game-over"
        stats.error(f"{kind} -> {reply.status} {code or reply.body}")
        return True

    def race(self, game: str, games: int, options: dict | None = None,
             at_once: int = 1, plays: int | None = None) -> RaceStats:
        """Race ``games`` games, ``at_once`` side by side (a lane starts its next game
        as soon as its last one ended); with ``plays``, no game is started once that
        many play POSTs were sent (the games under way finish). ``stats.seconds`` is
        the wall time."""
        start = time.perf_counter()
        left = iter(range(games))

        def lane() -> None:
            while True:
                with self.lock:
                    if next(left, None) is None or (
                            plays is not None and self.plays_sent >= plays):
                        return
                self.race_game(game, options)

        lanes = [threading.Thread(target=lane) for _ in range(max(1, at_once))]
        for thread in lanes:
            thread.start()
        for thread in lanes:
            thread.join()
        self.stats.seconds += time.perf_counter() - start
        return self.stats


def race_choice(rng: random.Random, actions: list[dict]) -> dict:
    """A racing seat's pick: a random body, of the types in ``FALLBACK_ONLY`` only when
    nothing else is legal."""
    return rng.choice([a for a in actions if a["type"] not in FALLBACK_ONLY] or actions)


def _close(transport: Transport) -> None:
    close = getattr(transport, "close", None)
    if close is not None:
        close()


def is_realtime(transport: Transport, game: str) -> bool:
    """The catalog's ``realtime`` flag of ``game`` (False if it is not listed)."""
    reply = transport.request("GET", "/v1/games/catalog")
    if reply.status != 200:
        return False
    return any(entry["game"] == game and entry.get("realtime")
               for entry in reply.body["games"])


# ----- command line ----------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m service.play", description=__doc__.split(
        "\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--game", default=None, help="the game: " + ", ".join(GAMES) + (
        f" (default {TWO_WAY}, or the game of --position)"))
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=None,
                        help="seeds the client's choices and the games' seeds")
    parser.add_argument("--wrong-rate", type=float, default=0.1,
                        help="2-Way Cards: probability per step of a wrong declaration")
    parser.add_argument("--players", type=int, default=None,
                        help="Sequence, Halves...: the number of players (seats p1..pN)")
    parser.add_argument("--at-once", type=int, default=1,
                        help="real-time games: how many games race side by side")
    parser.add_argument("--options", type=json.loads, default={},
                        help="game options as a JSON object (see GET /v1/games/catalog)")
    parser.add_argument("--no-follow", dest="follow", action="store_false",
                        help="do not follow the games' event streams")
    parser.add_argument("--position", metavar="FILE", default=None,
                        help="start every game from the position in FILE (JSON in the "
                             "game's notation, G-P1; its game is the game played)")
    parser.add_argument("--idle-seconds", type=int, default=None,
                        help="option idle_seconds of the games (G-T1: an idle seat loses "
                             "its turn or is treated as stuck)")
    args = parser.parse_args(argv)
    args.position = _position(parser, args.position)
    stated = None if args.position is None else args.position.get("game")
    if args.game is not None and stated is not None and args.game != stated:
        parser.error(f"--game {args.game} but the position is of {stated}")
    args.game = args.game or stated or TWO_WAY
    if args.idle_seconds is not None:
        if args.idle_seconds < 1:
            parser.error("--idle-seconds must be at least 1")
        args.options = {**args.options, "idle_seconds": args.idle_seconds}
    if not 0 <= args.wrong_rate <= 1:
        parser.error("--wrong-rate is a probability (0..1)")
    if args.games < 1 or args.at_once < 1:
        parser.error("--games and --at-once must be at least 1")
    if not isinstance(args.options, dict):
        parser.error("--options must be a JSON object")
    if args.players is not None:
        args.options = {**args.options, "players": args.players}
    return args


def _position(parser: argparse.ArgumentParser, path: str | None) -> dict | None:
    """The JSON object in ``path`` (None without one); a parser error otherwise."""
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as source:
            position = json.load(source)
    except (OSError, ValueError) as error:
        parser.error(f"--position {path}: {error}")
    if not isinstance(position, dict):
        parser.error(f"--position {path}: not a JSON object")
    return position


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    transport = HTTPTransport(args.url)
    rng = random.Random(args.seed)
    try:
        if args.options.get("dealing") != "table" and is_realtime(transport, args.game):
            racer = Racer(lambda: HTTPTransport(args.url), rng, position=args.position)
            stats = racer.race(args.game, args.games, args.options, args.at_once)
        else:
            player = Player(transport, rng, args.wrong_rate, follow=args.follow,
                            position=args.position)
            stats = player.play(args.game, args.games, args.options)
    except OSError as error:  # the catalog could not be read: nothing was played
        stats = Stats(games=args.games)
        stats.error(f"{args.url}: {error!r}")
    finally:
        transport.close()
    for sample in stats.error_samples:
        print(f"error: {sample}", file=sys.stderr)
    print(stats.summary())
    return 1 if stats.errors else 0


if __name__ == "__main__":
    sys.exit(main())

"""The event feed's watcher: which games have open streams in this process, and when
their logs grow.

A stream (:mod:`service.api.stream`) registers the game it follows
(:meth:`Feed.watch`) and waits (:meth:`Watch.wait`) until the game's last seq passes
the last one it sent; then it reads the new events (:meth:`Watch.page`: one
``GameStore.page`` per game and resume point in this process, shared by the streams
of that game that wake together) and filters them for its viewer.
A waiting stream holds no database connection: ONE thread per process (a greenlet
under gunicorn's gevent workers) learns of every commit to a watched game, made by
any worker or host:

* PostgreSQL: ``LISTEN`` on :data:`FEED_CHANNEL` over one dedicated connection. Every
  accepted action sends ``pg_notify(FEED_CHANNEL, "<game id>:<last_seq>")`` from its
  own statement (:mod:`service.store.records`), so the notification leaves at commit
  and never for a rolled-back action. As the fallback for a missed notification (the
  listener reconnecting after the database restarted...), the watched games'
  ``last_seq`` is also polled every ``fallback_seconds`` and right after LISTEN starts.
  A game's notifications wake its streams at most once per ``hold_seconds`` (0.05 s):
  the first at once, what comes during the hold at its end, together (in a race of
  several seats, one page read per hold instead of one per action; issue 23).
* SQLite (and any other database): that poll alone, every ``poll_seconds``: one
  statement per process per interval for all the games its streams watch.

The thread runs only while some game is watched, and stops when the last stream
ends. :meth:`Feed.close` (app teardown; a worker told to stop, see gunicorn.conf.py)
wakes every stream so that it ends at once.
"""

from __future__ import annotations

import logging
import math
import threading
import time
import weakref
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from service.store.records import FEED_CHANNEL, EventPage, GameRecord, GameStore

log = logging.getLogger(__name__)

POLL_SECONDS = 0.25  # SQLite: how often the watched games' last_seq is read
FALLBACK_SECONDS = 1.0  # PostgreSQL: the same poll, behind LISTEN/NOTIFY
POLL_CHUNK = 500  # game ids per poll statement
HOLD_SECONDS = 0.05  # PostgreSQL: a game's NOTIFYs wake its streams at most once per this
CATCH_UP_SECONDS = 0.5  # G-T1: a game's streams in one process read it at most this often
_FEEDS: weakref.WeakSet[Feed] = weakref.WeakSet()


@dataclass
class _Game:
    """A watched game: the highest ``last_seq`` learnt, its streams' wake-up, and the
    last page read for them (``after``, page)."""

    changed: threading.Condition
    last_seq: int = 0
    credentials: int | None = None  # the game's token re-issues, once learnt
    revocations: int = 0  # times credentials moved while watched
    watchers: int = 0
    reading: threading.Lock = field(default_factory=threading.Lock)
    page: tuple[int, EventPage] | None = None
    caught: tuple[float, GameRecord] | None = None  # (monotonic time, the record)


@dataclass
class Watch:
    """One stream's registration on a game (see :meth:`Feed.watch`)."""

    feed: Feed
    game_id: str
    game: _Game = field(repr=False)

    @property
    def known(self) -> int:
        """The highest last seq of the game learnt so far."""
        with self.feed.lock:
            return self.game.last_seq

    def page(self, after: int, limit: int) -> EventPage:
        """``GameStore.page(game, after, limit)``, read once for all the streams of the
        game in this process that ask for the same ``after`` while nothing newer is
        known (the others wait for that read instead of making their own)."""
        game = self.game
        with game.reading:
            if game.page is not None:
                read_after, page = game.page
                if read_after == after and page.game.last_seq >= game.last_seq:
                    return page
            page = self.feed.store.page(self.game_id, after, limit)
            game.page = (after, page)
            return page

    def catch_up(self, not_before: float | None = None) -> GameRecord:
        """``GameStore.current(game)`` (G-T1: what an idle deadline triggers is
        recorded), once per :data:`CATCH_UP_SECONDS` for all the streams of the game in
        this process (the others that wake together take its answer). ``not_before``
        (monotonic): an answer read before that moment is not taken (a stream woken
        at a deadline needs a read made after it)."""
        game = self.game
        with game.reading:
            caught = game.caught
            if (
                caught is not None
                and time.monotonic() - caught[0] < CATCH_UP_SECONDS
                and (not_before is None or caught[0] >= not_before)
            ):
                return caught[1]
            began = time.monotonic()  # the read's moment: when it began
            record = self.feed.store.current(self.game_id)
            game.caught = (began, record)
            return record

    @property
    def revocations(self) -> int:
        """How often a token of the game was re-issued while it was watched here."""
        with self.feed.lock:
            return self.game.revocations

    def wait(self, after: int, timeout: float, revocations: int | None = None) -> bool:
        """Block until the game's last seq is known to exceed ``after`` (True), or
        ``timeout`` seconds passed or the feed closed (False); with ``revocations``
        (what :attr:`revocations` was), also wake (True) when a token of the game
        was re-issued since."""
        feed, game = self.feed, self.game
        with feed.lock:
            return (
                game.changed.wait_for(
                    lambda: (
                        feed.closed
                        or game.last_seq > after
                        or (revocations is not None and game.revocations != revocations)
                    ),
                    timeout,
                )
                and not feed.closed
            )


class Feed:
    """The per-process watcher over one :class:`GameStore` (see the module docstring).

    ``listen``: use LISTEN/NOTIFY when the database is PostgreSQL (default True; the
    poll alone otherwise). ``poll_seconds``: the poll of SQLite; ``fallback_seconds``:
    the poll behind LISTEN.
    """

    def __init__(
        self,
        store: GameStore,
        *,
        listen: bool = True,
        poll_seconds: float = POLL_SECONDS,
        fallback_seconds: float = FALLBACK_SECONDS,
        hold_seconds: float = HOLD_SECONDS,
    ):
        self.store = store
        self.hold = hold_seconds
        # the feed thread's own: per game on hold, the highest last seq held meanwhile
        # (0: none yet), and the holds as (when it ends, game id), oldest first
        self._held: dict[str, int] = {}
        self._holds: deque[tuple[float, str]] = deque()
        url = store.uow.engine.url
        self.listen = listen and url.get_backend_name() == "postgresql"
        self.interval = fallback_seconds if self.listen else poll_seconds
        self._conninfo = url.set(drivername="postgresql").render_as_string(hide_password=False)
        self.lock = threading.Lock()
        self.closed = False
        self._games: dict[str, _Game] = {}
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()  # set by close(): ends the thread's sleeps
        _FEEDS.add(self)

    @contextmanager
    def watch(self, game_id: str) -> Iterator[Watch]:
        """Register a stream on ``game_id`` for the block: start watching (and the
        thread) if it is the game's first. Register BEFORE reading the log, so that a
        commit after the read is always learnt."""
        with self.lock:
            game = self._games.get(game_id)
            new = game is None
            if game is None:
                game = self._games[game_id] = _Game(threading.Condition(self.lock))
            game.watchers += 1
            if self._thread is None and not self.closed:
                self._thread = threading.Thread(target=self._run, name="feed", daemon=True)
                self._thread.start()
        try:
            if new:
                self._learn(game_id)
            yield Watch(self, game_id, game)
        finally:
            with self.lock:
                game.watchers -= 1
                if not game.watchers and self._games.get(game_id) is game:
                    del self._games[game_id]

    def _learn(self, game_id: str) -> None:
        """What the feed counts from for a game it begins to watch: its ``last_seq``
        and token re-issues, read now. Left to the next poll, a re-issue made meanwhile
        would be in the count it starts from, and the streams would not check their
        tokens until their heartbeat (a stream checks its own once it watches: a
        re-issue before this read ends it then). A database error leaves it to the
        poll."""
        try:
            known = self.store.last_seqs([game_id]).get(game_id)
        except Exception:  # noqa: BLE001 - the poll learns it as before
            log.warning("event feed: could not read game %s as it began watching it", game_id)
            return
        if known is not None:
            self.advance(game_id, *known)

    def advance(self, game_id: str, last_seq: int, credentials: int | None = None) -> None:
        """The game's log reached ``last_seq`` (and its tokens were re-issued
        ``credentials`` times): wake its streams (unwatched games and stale news are
        ignored); a change of ``credentials`` counts as a revocation, which makes each
        stream check its token (see :mod:`service.api.stream`)."""
        with self.lock:
            game = self._games.get(game_id)
            if game is None:
                return
            wake = last_seq > game.last_seq
            game.last_seq = max(game.last_seq, last_seq)
            if credentials is not None:
                if game.credentials is not None and credentials > game.credentials:
                    game.revocations += 1
                    wake = True
                game.credentials = max(game.credentials or 0, credentials)
            if wake:
                game.changed.notify_all()

    def close(self) -> None:
        """Wake every stream (they end) and stop the thread; no new one starts."""
        with self.lock:
            self.closed = True
            for game in self._games.values():
                game.changed.notify_all()
        self._stop.set()

    def watched(self) -> list[str]:
        with self.lock:
            return list(self._games)

    # ----- the thread ---------------------------------------------------------------

    def _active(self) -> bool:
        """False (and the thread forgets itself) once nothing is watched or the feed
        closed; a later :meth:`watch` starts a new thread."""
        with self.lock:
            if self._games and not self.closed:
                return True
            self._thread = None
            return False

    def _run(self) -> None:
        connection = None
        try:
            while self._active():
                if self.listen:
                    connection = self._listen_round(connection)
                else:
                    self.poll()
                    self._stop.wait(self.interval)
        finally:
            if connection is not None:
                connection.close()

    def poll(self) -> None:
        """Read the watched games' ``last_seq`` (one statement per :data:`POLL_CHUNK`
        games) and wake the streams of those that moved. A database error is logged
        and the next poll tries again."""
        ids = self.watched()
        try:
            for start in range(0, len(ids), POLL_CHUNK):
                chunk = self.store.last_seqs(ids[start : start + POLL_CHUNK])
                for game_id, (last_seq, credentials) in chunk.items():
                    self.advance(game_id, last_seq, credentials)
        except Exception:  # noqa: BLE001 - the feed thread must survive a bad moment
            log.exception("event feed: polling the watched games failed")

    def _listen_round(self, connection: Any) -> Any:
        """One round of LISTEN (about ``interval`` seconds): connect and LISTEN first
        if ``connection`` is None, poll (what committed before LISTEN took effect, and
        the fallback for a missed notification), then take notifications until the
        interval is over. Returns the connection, or None after a connection error
        (logged; the poll covers the gap and the next round connects again)."""
        import psycopg

        try:
            if connection is None:
                connection = psycopg.connect(self._conninfo, autocommit=True)
                connection.execute(f"LISTEN {FEED_CHANNEL}")
            self.poll()
            end = time.monotonic() + self.interval
            while True:
                until = min(end, self._release_due())
                left = until - time.monotonic()
                if left > 0:
                    for notify in connection.notifies(timeout=left):
                        self._notified(notify.payload)
                        if self._release_due() < until:
                            break  # a hold began that ends before this wait would
                self._release()
                if time.monotonic() >= end:
                    return connection
        except (psycopg.Error, OSError):
            log.exception("event feed: LISTEN failed; polling until it reconnects")
            if connection is not None:
                connection.close()
            self.poll()
            self._stop.wait(self.interval)
            return None

    def _notified(self, payload: str) -> None:
        """``"<game id>:<last_seq>"`` (an action: see :meth:`_hold`) or
        ``"<game id>:<last_seq>:<credentials>"`` (a token re-issue: at once); game ids
        hold no colon."""
        game_id, _, rest = payload.partition(":")
        numbers = rest.split(":")
        if not all(n.isdigit() for n in numbers):
            return
        if len(numbers) == 2:
            self.advance(game_id, int(numbers[0]), int(numbers[1]))
        elif len(numbers) == 1:
            self._hold(game_id, int(numbers[0]))

    def _hold(self, game_id: str, last_seq: int) -> None:
        """A watched game's log grew: wake its streams at once, unless a hold is on
        (they were woken less than ``hold`` seconds ago); then hold what comes next
        until the hold ends (:meth:`_release`). The streams of a game in a fast race
        read one page per ``hold``, not one per action; a lone action still reaches
        them at once, and none waits longer than ``hold``."""
        with self.lock:
            if game_id not in self._games:
                return
        if game_id in self._held:
            self._held[game_id] = max(self._held[game_id], last_seq)
        else:
            self.advance(game_id, last_seq)
            self._begin_hold(game_id, time.monotonic())

    def _begin_hold(self, game_id: str, now: float) -> None:
        self._held[game_id] = 0
        self._holds.append((now + self.hold, game_id))  # they end in the order they began

    def _release_due(self) -> float:
        """When the first hold ends (``inf``: none is on)."""
        return self._holds[0][0] if self._holds else math.inf

    def _release(self) -> None:
        """End the holds that are due: wake the streams of each game that had news
        held (and begin a new hold), forget the others."""
        now = time.monotonic()
        while self._holds and self._holds[0][0] <= now:
            _, game_id = self._holds.popleft()
            held = self._held.pop(game_id)
            if held:
                self.advance(game_id, held)
                self._begin_hold(game_id, now)


def close_all() -> None:
    """:meth:`Feed.close` every feed of this process (a worker that is stopping)."""
    for feed in list(_FEEDS):
        feed.close()

"""The real-time racer: one concurrent client per seat (Halves, Solitaire Frenzy), each
posting its legal plays as fast as it can; stale refusals are counted, not errors."""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from service.play.constants import (
    FALLBACK_ONLY,
    STREAM_TIMEOUT,
)
from service.play.player import GameRun, Player, Unexpected
from service.play.stats import Stats
from service.play.transport import Reply, Transport

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
        other = (
            ", ".join(
                f"{code} {n}"
                for code, n in sorted(self.refused.items())
                if not code.startswith("stale")
            )
            or "none"
        )
        events = (
            ", ".join(
                f"{kind} {n}"
                for kind, n in sorted(self.events.items())
                if kind not in ("played", "game-ended")
            )
            or "none"
        )
        winners = ", ".join(f"{who} {n}" for who, n in sorted(self.winners.items()))
        rate = self.accepted["play"] / self.seconds if self.seconds else 0.0
        return (
            f"games {self.games} (finished {self.finished}) | plays {self.posts['play']} "
            f"(accepted {self.accepted['play']}, stale {self.stale}) | other refusals "
            f"{other} | events {events} | winners {winners or '-'} | errors "
            f"{self.errors} | {rate:.0f} accepted plays/s ({self.seconds:.1f} s, "
            f"{self.requests} requests, {self.streams} streams, {self.waits} waits)"
        )


class Racer:
    """Races real-time games: one thread per seat, each with its own transport
    (``connect()``, which must open streams) and its own event stream, loops
    legal-actions -> a random body -> POST until the game is over, and waits for its
    stream's next event when it has nothing to do (never polls). ``on_action(run,
    seat, action, reply, seconds)`` is called for every action POST (from the seat
    threads). ``position``: start every game from it (G-P1)."""

    def __init__(
        self,
        connect: Callable[[], Transport],
        rng: random.Random,
        stats: RaceStats | None = None,
        on_action: Callable[[GameRun, str, dict, Reply, float], None] | None = None,
        position: dict | None = None,
    ):
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
        host = Player(
            self.connect(), random.Random(seed), stats=RaceStats(), position=self.position
        )
        seats: list[Player] = []
        run = None
        try:
            run = host.create(game, dict(options or {}), look=False)  # the seats look
            with self.lock:
                self.runs.append(run)
            seats = [
                Player(self.connect(), random.Random(seed + i), stats=RaceStats())
                for i in range(1, len(run.seats) + 1)
            ]
            threads = [
                threading.Thread(target=self.play_seat, args=(run, seat, player))
                for seat, player in zip(run.seats, seats)
            ]
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
                reply = player._send(
                    "POST",
                    path + "/actions",
                    action,
                    {**run.auth(seat), "Idempotency-Key": player._key()},
                    retry=True,
                )
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

    def race(
        self,
        game: str,
        games: int,
        options: dict | None = None,
        at_once: int = 1,
        plays: int | None = None,
    ) -> RaceStats:
        """Race ``games`` games, ``at_once`` side by side (a lane starts its next game
        as soon as its last one ended); with ``plays``, no game is started once that
        many play POSTs were sent (the games under way finish). ``stats.seconds`` is
        the wall time."""
        start = time.perf_counter()
        left = iter(range(games))

        def lane() -> None:
            while True:
                with self.lock:
                    if next(left, None) is None or (plays is not None and self.plays_sent >= plays):
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
    return any(entry["game"] == game and entry.get("realtime") for entry in reply.body["games"])

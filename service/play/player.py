"""The turn-based player: plays whole games, each seat (and the referee in table mode)
with its own token, asking the seat to move for its legal actions."""

from __future__ import annotations

import hashlib
import http.client
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from service.play.constants import (
    FRENZY,
    MAX_ACTIONS_PER_GAME,
    REFEREE_ONLY,
    RETRIES,
    STREAM_TIMEOUT,
    THROTTLED,
    TWO_WAY,
)
from service.play.stats import Stats, winner_of, wrong_declarations
from service.play.stream import EventStream
from service.play.transport import Reply, Transport, _seconds

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

    def __init__(
        self,
        transport: Transport,
        rng: random.Random,
        wrong_rate: float = 0.0,
        stats: Stats | None = None,
        on_reply: Callable[[str, str, Reply], None] | None = None,
        follow: bool = True,
        position: dict | None = None,
    ):
        self.transport = transport
        self.position = position
        self.rng = rng
        self.wrong_rate = wrong_rate
        self.stats = stats or Stats()
        self.on_reply = on_reply
        self.follow = follow and hasattr(transport, "stream")

    # ----- requests -----

    def _send(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        retry: bool = False,
    ) -> Reply:
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

    def _ok(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict | None = None,
        retry: bool = False,
        expect: int = 200,
    ) -> Any:
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
        created = self._ok(
            "POST", "/v1/games", body, {"Idempotency-Key": self._key()}, retry=True, expect=201
        )
        tokens = {seat: entry["token"] for seat, entry in created["seats"].items()}
        tokens["referee"] = created["referee_token"]
        run = GameRun(
            created["id"],
            game,
            tokens,
            created["seed_commitment"],
            version=created["version"],
            status=created["status"],
        )
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
            self.stats.error(
                f"game {run.id}: event {last} was not streamed within "
                f"{STREAM_TIMEOUT:g} s ({run.stream.error or 'no error'})"
            )
            return
        for seq, replied in run.acked:
            self.stats.streamed += 1
            self.stats.stream_lag = max(self.stats.stream_lag, run.stream.arrival(seq) - replied)

    def refresh(self, run: GameRun) -> None:
        """The referee's view: version, status, turn."""
        body = self._ok("GET", f"/v1/games/{run.id}", headers=run.auth("referee"), retry=True)
        run.version, run.status, run.view = body["version"], body["status"], body["view"]

    def legal(self, run: GameRun, seat: str) -> tuple[int, list[dict]]:
        body = self._ok(
            "GET", f"/v1/games/{run.id}/legal-actions", headers=run.auth(seat), retry=True
        )
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
        if run.game == FRENZY and run.view.get("options", {}).get("dealing") == "table":
            return "referee", version, [self.round_report(run)]
        return None

    def round_report(self, run: GameRun) -> dict:
        """Solitaire Frenzy at a table (SF-M1): the referee records the round, which
        legal actions do not list (its figures are the table's): one seat at random
        goes out, the others' boards and 13-piles at random within the rules."""
        seats = list(run.view["active"])
        out = self.rng.choice(seats)
        results = {
            seat: {
                "board": self.rng.randint(0, 13),
                "pile": 0 if seat == out else self.rng.randint(1, 13),
                "out": seat == out,
            }
            for seat in seats
        }
        return {"type": "record-round", "round": run.view["round"], "results": results}

    def choose(self, run: GameRun, seat: str, actions: list[dict]) -> dict:
        """A correct declaration if any; else (2-Way Cards, with probability
        ``wrong_rate``) a wrong one; else a random legal body."""
        declarations = [a for a in actions if a["type"] == "declare"]
        if declarations:
            return self.rng.choice(declarations)
        if (
            run.game == TWO_WAY
            and seat in run.seats
            and self.wrong_rate
            and self.rng.random() < self.wrong_rate
        ):
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
        reply = self._ok(
            "POST",
            f"/v1/games/{run.id}/actions",
            body,
            {**run.auth(seat), "Idempotency-Key": self._key()},
            retry=True,
        )
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

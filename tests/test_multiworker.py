"""gunicorn with 4 workers on one database (PostgreSQL when TEST_DATABASE_URL is set,
and an SQLite file), concurrent clients playing 2-Way Cards games over HTTP, about half
of the action POSTs conflicting (a stale ``expected_version``, or a lost race) or
repeated with the same ``Idempotency-Key`` (one after the other, or two at once).

At the end, for every game: every action acknowledged with a 200 has its events in
the log exactly once (0 lost), no event is there that no acknowledged action made
(0 duplicated), versions run 2, 3 ... one per acknowledged action, repeats answer the
first reply byte for byte, no 5xx was ever answered, and folding every stored event
from None gives the stored snapshot.

Each backend gets its own database (PostgreSQL: a randomly named one created from
TEST_DATABASE_URL, migrated by Alembic, dropped at the end: other test sessions share
the server) and its own gunicorn on a free port, always stopped at the end; both are
shared with the race tests of the session (tests/realtime.py, ``gunicorn_server``).
"""

from __future__ import annotations

import http.client
import random
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field

import pytest

from realtime import BACKENDS
from service.play import HTTPTransport, Reply
from service.store import GameStore

GAMES_AT_ONCE = 5
THREADS_PER_GAME = 2
# backend -> action POSTs to send in all (PostgreSQL: the >= 1,000 of the brief)
TARGETS = {"sqlite": 400, "postgresql": 1000}
TIME_LIMIT = 120.0  # a hang guard: seconds of traffic before the clients give up (fails)


# ----- the traffic -----------------------------------------------------------------


@dataclass
class Game:
    id: str
    tokens: dict[str, str]  # seat -> token, plus "referee"
    setup_seq: int  # the last seq of the setup events (game-created, deals)

    def auth(self, who: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}"}


@dataclass
class Ledger:
    """Everything the clients saw, shared by the threads (under ``lock``)."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    posts: Counter = field(default_factory=Counter)  # kind of POST -> count
    outcomes: Counter = field(default_factory=Counter)  # applied / conflict / repeated
    statuses: Counter = field(default_factory=Counter)
    acks: dict[tuple[str, str, str], dict] = field(default_factory=dict)  # (game, seat, key)
    fresh_200: Counter = field(default_factory=Counter)  # (game, seat, key) -> non-replayed 200s
    problems: list[str] = field(default_factory=list)
    games: list[Game] = field(default_factory=list)

    def sent(self) -> int:
        with self.lock:
            return sum(self.posts.values())

    def problem(self, text: str) -> None:
        with self.lock:
            self.problems.append(text)


class Table:
    """One game slot played by several threads; a finished game is replaced by a new
    one while the clients still have POSTs to send."""

    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        self.lock = threading.Lock()
        self.game: Game | None = None

    def current(self, client: Client) -> Game:
        with self.lock:
            if self.game is None:
                self.game = client.create()
            return self.game

    def replace(self, finished: Game, client: Client) -> None:
        with self.lock:
            if self.game is finished:
                self.game = client.create()


class Client:
    """One thread's HTTP client (own keep-alive connection)."""

    def __init__(self, base: str, ledger: Ledger, rng: random.Random):
        self.base = base
        self.http = HTTPTransport(base)
        self.ledger = ledger
        self.rng = rng

    def send(
        self,
        method: str,
        path: str,
        body=None,
        headers=None,
        transport: HTTPTransport | None = None,
    ) -> Reply:
        """One request; a dropped connection is retried (a POST carries its
        Idempotency-Key, so the retry has no second effect)."""
        for attempt in range(5):
            try:
                reply = (transport or self.http).request(method, path, body, headers)
            except (OSError, http.client.HTTPException) as error:
                self.ledger.problem(f"{method} {path}: {error!r} (retried)")
                time.sleep(0.05 * (attempt + 1))
                continue
            with self.ledger.lock:
                self.ledger.statuses[reply.status] += 1
            return reply
        raise AssertionError(f"{method} {path}: no answer")

    def create(self) -> Game:
        reply = self.send("POST", "/v1/games", {"game": "two-way", "options": {}})
        assert reply.status == 201, reply
        created = reply.body
        tokens = {seat: entry["token"] for seat, entry in created["seats"].items()}
        tokens["referee"] = created["referee_token"]
        game = Game(created["id"], tokens, 0)
        events = self.send("GET", f"/v1/games/{game.id}/events", headers=game.auth("referee"))
        game.setup_seq = events.body["last_seq"]
        with self.ledger.lock:
            self.ledger.games.append(game)
        return game

    # -- one step: read the referee view, build an action for the seat to move, POST --

    def action_for(self, view: dict) -> tuple[str, dict]:
        """(seat, a legal action body) from the referee's view (TW-T2: place, draw,
        discard; tiles named by the seat's own faces)."""
        seat = view["turn"]
        hand = view["hands"][seat]
        if view["phase"] == "place":
            empty = [[r, c] for r in range(7) for c in range(7) if view["grid"][r][c] is None]
            return seat, {
                "type": "place",
                "tile": self.rng.choice(hand)[seat],
                "cell": self.rng.choice(empty),
            }
        if view["phase"] == "draw":
            return seat, {"type": "draw"}
        tiles = self.rng.sample(hand, view["discards_due"])
        return seat, {"type": "discard", "tiles": [t[seat] for t in tiles]}

    def step(self, table: Table) -> None:
        game = table.current(self)
        reply = self.send("GET", f"/v1/games/{game.id}", headers=game.auth("referee"))
        assert reply.status == 200, reply
        if reply.body["status"] != "active":
            table.replace(game, self)
            return
        version, view = reply.body["version"], reply.body["view"]
        seat, action = self.action_for(view)
        roll = self.rng.random()
        if roll < 0.12 and version > 1:
            self.post_stale(game, seat, action, version)
        elif roll < 0.2:
            self.post_twice_at_once(game, seat, action, version)
        else:
            self.post(game, seat, action, version, retry=self.rng.random() < 0.2)

    def _post(
        self,
        game: Game,
        seat: str,
        action: dict,
        version: int,
        key: str,
        kind: str,
        transport: HTTPTransport | None = None,
    ) -> Reply:
        reply = self.send(
            "POST",
            f"/v1/games/{game.id}/actions",
            {**action, "expected_version": version},
            {**game.auth(seat), "Idempotency-Key": key},
            transport,
        )
        outcome = (
            "repeated"
            if kind in ("repeat", "twin")
            else "applied"
            if reply.status == 200
            else "conflict"
            if reply.status == 412
            else "other"
        )
        with self.ledger.lock:
            self.ledger.posts[kind] += 1
            self.ledger.outcomes[outcome] += 1
        return reply

    def record(self, game: Game, seat: str, key: str, reply: Reply) -> None:
        """Check a reply to (game, seat, key): 200 (the first is the ack, any later one
        must repeat it byte for byte, marked Idempotent-Replayed) or 412."""
        ident = (game.id, seat, key)
        replayed = reply.headers.get("idempotent-replayed") == "true"
        with self.ledger.lock:
            if reply.status == 200:
                if not replayed:
                    self.ledger.fresh_200[ident] += 1
                first = self.ledger.acks.setdefault(ident, reply.body)
                if first != reply.body:
                    self.ledger.problems.append(f"{ident}: a repeat answered another body")
            elif reply.status == 412:
                if reply.body.get("code") != "version-mismatch":
                    self.ledger.problems.append(f"{ident}: 412 {reply.body}")
            else:
                self.ledger.problems.append(f"{ident}: unexpected {reply.status} {reply.body}")

    def post(self, game: Game, seat: str, action: dict, version: int, retry: bool) -> None:
        key = uuid.uuid4().hex
        reply = self._post(game, seat, action, version, key, "fresh")
        self.record(game, seat, key, reply)
        if retry:  # the same request again: the first reply again, no second effect
            again = self._post(game, seat, action, version, key, "repeat")
            if reply.status == 200 and again.headers.get("idempotent-replayed") != "true":
                self.ledger.problem(f"{game.id}: a repeat was not marked replayed")
            self.record(game, seat, key, again)

    def post_stale(self, game: Game, seat: str, action: dict, version: int) -> None:
        key = uuid.uuid4().hex
        reply = self._post(game, seat, action, version - 1, key, "stale")
        if reply.status != 412 or reply.body.get("version", 0) < version:
            self.ledger.problem(f"{game.id}: stale version answered {reply.status} {reply.body}")

    def post_twice_at_once(self, game: Game, seat: str, action: dict, version: int) -> None:
        """The same key from two connections at the same moment: one effect; the key is
        looked up under the game's row lock, so the other waits and replays the same
        reply (a 409 key-in-flight is a problem: no request can see another in flight)."""
        key = uuid.uuid4().hex
        twin = HTTPTransport(self.base)
        replies: list[Reply] = []
        start = threading.Barrier(2)

        def other() -> None:
            start.wait()
            replies.append(self._post(game, seat, action, version, key, "twin", twin))

        helper = threading.Thread(target=other)
        helper.start()
        start.wait()
        replies.append(self._post(game, seat, action, version, key, "fresh"))
        helper.join()
        twin.close()
        stale = all(r.status == 412 for r in replies)  # a 412 is not kept under its key
        if not stale and sum(r.headers.get("idempotent-replayed") != "true" for r in replies) != 1:
            self.ledger.problem(
                f"{game.id}: twins not one fresh reply and one replay: "
                f"{[(r.status, r.headers.get('idempotent-replayed')) for r in replies]}"
            )
        for reply in replies:
            self.record(game, seat, key, reply)


def run_traffic(base: str, target: int, seed: int) -> Ledger:
    ledger = Ledger()
    tables = [Table(ledger) for _ in range(GAMES_AT_ONCE)]
    deadline = time.monotonic() + TIME_LIMIT
    failures: list[BaseException] = []

    def worker(table: Table, rng: random.Random) -> None:
        client = Client(base, ledger, rng)
        try:
            while ledger.sent() < target and time.monotonic() < deadline:
                client.step(table)
        except BaseException as error:  # reported by the test, not lost in a thread
            failures.append(error)
        finally:
            client.http.close()

    threads = [
        threading.Thread(
            target=worker, args=(tables[i % GAMES_AT_ONCE], random.Random(seed * 100 + i))
        )
        for i in range(GAMES_AT_ONCE * THREADS_PER_GAME)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failures:
        raise failures[0]
    return ledger


def referee_log(transport: HTTPTransport, game: Game) -> list[dict]:
    events, after = [], 0
    while True:
        reply = transport.request(
            "GET", f"/v1/games/{game.id}/events?after={after}", headers=game.auth("referee")
        )
        assert reply.status == 200, reply
        events += reply.body["events"]
        if reply.body["last_seq"] == after:
            return events
        after = reply.body["last_seq"]


def check_game(transport: HTTPTransport, ledger: Ledger, game: Game) -> int:
    """0 lost, 0 duplicated, versions one per ack; returns the number of acks."""
    log = referee_log(transport, game)
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    by_seq = {e["seq"]: e for e in log}
    acks = {ident: body for ident, body in ledger.acks.items() if ident[0] == game.id}
    claimed: Counter = Counter()
    for (_, seat, _), body in acks.items():
        assert body["events"], "an accepted action records at least one event"
        for event in body["events"]:
            claimed[event["seq"]] += 1
            stored = by_seq.get(event["seq"])
            assert stored is not None, f"lost: {event}"  # acknowledged but not in the log
            assert (stored["type"], stored["seat"]) == (event["type"], event["seat"])
        assert body["events"][0]["seat"] == seat
    assert all(n == 1 for n in claimed.values()), "one event acknowledged twice"
    # every event after the setup was made by exactly one acknowledged action
    assert sorted(claimed) == list(range(game.setup_seq + 1, len(log) + 1))
    versions = sorted(body["version"] for body in acks.values())
    view = transport.request("GET", f"/v1/games/{game.id}", headers=game.auth("referee"))
    assert versions == list(range(2, view.body["version"] + 1))
    return len(acks)


@pytest.mark.slow
@pytest.mark.parametrize("backend", BACKENDS)
def test_four_workers_lose_and_duplicate_nothing(backend, gunicorn_server):
    target = TARGETS[backend]
    server = gunicorn_server(backend)
    start = server.log_end()
    ledger = run_traffic(server.base, target, seed=len(backend))
    reader = HTTPTransport(server.base)
    try:
        acked = sum(check_game(reader, ledger, game) for game in ledger.games)
    finally:
        reader.close()
    server_log = server.log_since(start)
    store = GameStore(server.url)
    try:
        reports = [store.replay(game.id) for game in ledger.games]
    finally:
        store.dispose()

    print(
        f"{backend}: {len(ledger.games)} games, {acked} actions applied, POSTs "
        f"{dict(ledger.posts)}, outcomes {dict(ledger.outcomes)}, "
        f"statuses {dict(ledger.statuses)}"
    )
    assert not ledger.problems, ledger.problems[:10]
    assert not [s for s in ledger.statuses if s >= 500], ledger.statuses
    assert "Traceback" not in server_log and "database is locked" not in server_log
    assert all(n == 1 for n in ledger.fresh_200.values()), "a key took effect twice"
    assert len(ledger.fresh_200) == acked
    for report in reports:
        assert report.ok, report.game_id  # replay from None == the stored snapshot
    sent = sum(ledger.posts.values())
    assert sent >= target
    # about half: repeats of a key, or refused as stale (sent stale, or a lost race)
    odd = ledger.outcomes["repeated"] + ledger.outcomes["conflict"]
    assert 0.35 <= odd / sent <= 0.7, (ledger.posts, ledger.outcomes)
    assert ledger.posts["stale"] and ledger.posts["repeat"] and ledger.posts["twin"]
    assert ledger.outcomes["conflict"] > ledger.posts["stale"], "lost races, not only stale"

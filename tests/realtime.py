"""Reusable harness for multi-worker tests: a fresh migrated database per backend, a
gunicorn with several workers on it, and races of real-time games over real HTTP.

* :func:`database` / :func:`gunicorn`: context managers (SQLite file, or a randomly
  named PostgreSQL database created from TEST_DATABASE_URL and dropped afterwards;
  gunicorn on a free loopback port, always stopped); :class:`Servers`: one of each
  per backend, shared by the tests of a session (the ``gunicorn_server`` fixture).
* :func:`race`: one client thread per seat (``service.play.Racer``), ``at_once`` games
  side by side, until at least ``plays`` play POSTs were sent; every action POST is
  kept as a :class:`Post`.
* :func:`check_race`: the invariants every real-time game owes, read back from the
  database: no 5xx, every refusal a clean 409 problem with an expected code and its
  rule, every game finished, the log gapless, its setup exactly ``new_game`` of the
  revealed seed, every accepted reply's events in the log once (none lost, none
  doubled, none unacknowledged), one version per accepted action, and a replay of the
  events equal to the snapshot. It returns each game's stored events for the game's
  own checks (conservation, one winner per race...).
* :func:`check_served`: from the server's request log, the clients followed their
  streams instead of polling: one stream per seat and game (reconnections aside),
  one read of each game (the host's, at its end), one ``legal-actions`` per action
  POST plus one per wait.

A game's test then reads: ``server = gunicorn_server(backend)``, ``log =
race(server.base, "halves", {...}, plays=2000)``, then ``check_race(server.url, log,
codes)``.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from conftest import migrate
from service.games import engine
from service.play import GameRun, HTTPTransport, RaceStats, Racer, Reply
from service.store import GameStore

ROOT = Path(__file__).resolve().parent.parent
WORKERS = 4
BACKENDS = ["sqlite"] + (["postgresql"] if os.environ.get("TEST_DATABASE_URL") else [])


# ----- database and server -----------------------------------------------------------


@contextmanager
def database(backend: str, tmp_path: Path) -> Iterator[str]:
    """A fresh database migrated with `alembic upgrade head`, removed afterwards."""
    if backend == "sqlite":
        url = f"sqlite:///{tmp_path / f'{backend}-{secrets.token_hex(4)}.sqlite3'}"
        migrate(url)
        yield url
        return
    admin_url = os.environ["TEST_DATABASE_URL"]
    name = f"multiworker_{secrets.token_hex(6)}"
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)
            migrate(url)
            yield url
        finally:
            with admin.connect() as connection:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def healthy(port: int) -> bool:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status == 200
    except OSError:
        return False
    finally:
        connection.close()


def stop(process: subprocess.Popen) -> None:
    """SIGTERM to the gunicorn master (it stops its workers); SIGKILL to its process
    group (the one it leads: started with start_new_session) if it lingers."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=5)


@contextmanager
def gunicorn(
    url: str,
    log_path: Path,
    workers: int = WORKERS,
    app: str = "service:create_app()",
    env: dict[str, str] | None = None,
) -> Iterator[str]:
    """``gunicorn -w workers`` serving ``app`` (``fake_engine:create_app()``: with the
    "counter" engine; tests/ is on its path) on ``url``'s database, with ``env`` added
    to the environment; yields its base URL once /healthz answers. Another free port
    is tried if the chosen one was taken in the meantime."""
    for _ in range(3):
        port = free_port()
        with log_path.open("ab") as log:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "gunicorn",
                    "--workers",
                    str(workers),
                    "--bind",
                    f"127.0.0.1:{port}",
                    "--graceful-timeout",
                    "5",
                    "--no-control-socket",
                    "--pythonpath",
                    str(ROOT / "tests"),
                    app,
                ],
                cwd=ROOT,
                env={**os.environ, "DATABASE_URL": url, **(env or {})},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            deadline = time.monotonic() + 60  # 4 workers importing the app on a busy machine
            while process.poll() is None and time.monotonic() < deadline:
                if healthy(port):
                    yield f"http://127.0.0.1:{port}"
                    return
                time.sleep(0.1)
        finally:
            stop(process)
    raise AssertionError(f"gunicorn did not start:\n{log_path.read_text()[-3000:]}")


@dataclass(frozen=True)
class Server:
    """A gunicorn serving ``base`` on the database ``url``, logging to ``log_path``."""

    url: str
    base: str
    log_path: Path

    def log_end(self) -> int:
        """The log's size now: pass it to :meth:`log_since`."""
        return self.log_path.stat().st_size

    def log_since(self, offset: int) -> str:
        """What the server logged after ``offset`` (its lines for one test)."""
        with self.log_path.open("rb") as log:
            log.seek(offset)
            return log.read().decode(errors="replace")


class Servers:
    """One database and one gunicorn (``WORKERS`` workers) per backend, started when
    first asked for (:meth:`get`) and shared by every test that asks for it in the
    session, all stopped by :meth:`close` (starting a server and creating and
    migrating a database take seconds a test need not spend again)."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.stack = ExitStack()
        self.started: dict[str, Server] = {}

    def get(self, backend: str) -> Server:
        if backend not in self.started:
            url = self.stack.enter_context(database(backend, self.tmp_path))
            log_path = self.tmp_path / f"gunicorn-{backend}.log"
            base = self.stack.enter_context(gunicorn(url, log_path))
            self.started[backend] = Server(url, base, log_path)
        return self.started[backend]

    def close(self) -> None:
        self.stack.close()


# ----- races -------------------------------------------------------------------------


@dataclass(frozen=True)
class Post:
    """One action POST of a race and its reply."""

    game_id: str
    seat: str
    action: dict
    reply: Reply
    seconds: float


@dataclass
class RaceLog:
    """What the clients of :func:`race` sent and got."""

    game: str
    options: dict
    stats: RaceStats
    runs: list[GameRun]
    posts: list[Post] = field(default_factory=list)

    def accepted(self, game_id: str) -> list[Post]:
        return [p for p in self.posts if p.game_id == game_id and p.reply.status == 200]


def race(
    base: str,
    game: str,
    options: dict,
    plays: int,
    at_once: int = 2,
    seed: int = 1,
    time_limit: float = 600.0,
) -> RaceLog:
    """Race games of ``game`` on the server at ``base``, ``at_once`` side by side (a
    new one as soon as one ends), one client thread per seat, until at least ``plays``
    play POSTs were sent (whole games: those under way finish). Slower than
    ``time_limit`` seconds (a guard, not a target: Solitaire Frenzy on PostgreSQL
    took 330 s on a shared 2-CPU machine): AssertionError."""
    posts: list[Post] = []
    lock = threading.Lock()

    def keep(run: GameRun, seat: str, action: dict, reply: Reply, seconds: float) -> None:
        with lock:
            posts.append(Post(run.id, seat, action, reply, seconds))

    racer = Racer(lambda: HTTPTransport(base), random.Random(seed), on_action=keep)
    racer.race(game, 10**6, options, at_once, plays=plays)
    assert racer.stats.seconds < time_limit, f"race too slow: {racer.stats.summary()}"
    return RaceLog(game, options, racer.stats, racer.runs, posts)


def check_race(url: str, log: RaceLog, refusals: set[str]) -> dict[str, list[dict]]:
    """Assert the invariants every raced game owes (see the module docstring); return
    {game id: its stored events in seq order} for the game's own checks."""
    stats = log.stats
    assert stats.errors == 0, stats.error_samples
    assert stats.games == stats.finished == len(log.runs)
    for post in log.posts:
        status, body = post.reply.status, post.reply.body
        assert status < 500, (post.action, status, body)
        if status != 200:
            assert status == 409 and isinstance(body, dict), (post.action, status, body)
            assert body.get("code") in refusals and body.get("rule"), body
            assert post.reply.headers["content-type"].startswith("application/problem+json")
    module = engine(log.game)
    store = GameStore(url)
    logs = {}
    try:
        for run in log.runs:
            record, stored = store.events(run.id)
            assert record.finished
            assert [e.seq for e in stored] == list(range(1, record.last_seq + 1)), "gaps"
            accepted = log.accepted(run.id)
            claimed = sorted(e["seq"] for p in accepted for e in p.reply.body["events"])
            by_seq = {e.seq: e.event for e in stored}
            for post in accepted:
                for event in post.reply.body["events"]:
                    stored_event = by_seq[event["seq"]]
                    assert (stored_event["type"], stored_event["seat"]) == (
                        event["type"],
                        event["seat"],
                    )
            setup = module.new_game(log.game, dict(log.options), record.seed)
            # the setup is new_game's own (nobody acted), then one accepted action after
            # the other: every later event acknowledged exactly once
            assert [e.event for e in stored[: len(setup)]] == setup
            assert claimed == list(range(len(setup) + 1, record.last_seq + 1))
            assert sorted(p.reply.body["version"] for p in accepted) == list(
                range(2, record.version + 1)
            )
            assert store.replay(run.id).ok, "replay from None differs from the snapshot"
            logs[run.id] = [e.event for e in stored]
    finally:
        store.dispose()
    return logs


def served(server_log: str) -> Counter:
    """How many requests the server logged, per (method, route) (the JSON lines of
    the ``service.request`` logger)."""
    out: Counter = Counter()
    for line in server_log.splitlines():
        entry = json.loads(line) if line.startswith("{") else {}
        if entry.get("message") == "request":
            out[entry["method"], entry["route"]] += 1
    return out


def check_served(server_log: str, log: RaceLog) -> None:
    """The racing clients followed their event streams instead of polling (see the
    module docstring): every request the server logged is accounted for."""
    routes, stats, game = served(server_log), log.stats, "/v1/games/<game_id>"
    seats = sum(len(run.seats) for run in log.runs)
    posts, retried = sum(stats.posts.values()), stats.retries  # retries: sent twice
    assert routes["POST", "/v1/games"] == len(log.runs)
    assert routes["GET", game] == len(log.runs), "a client polled the game"
    assert routes["GET", game + "/stream"] == stats.streams >= seats
    assert 0 <= routes["POST", game + "/actions"] - posts <= retried
    # each seat: one look per POST, per wait for its stream, and its last look
    assert (
        posts + stats.waits
        <= routes["GET", game + "/legal-actions"]
        <= posts + stats.waits + seats + retried
    )

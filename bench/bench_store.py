"""Benchmark the game store over HTTP (run by hand; prints figures and ratios).

    .venv/bin/python bench/bench_store.py [--seconds 8] [--threads 4] [--workers 4]
        [--backends sqlite,postgresql] [--pg-url postgresql+psycopg://postgres@127.0.0.1:5432/test]

For each backend, on a fresh database migrated by Alembic (PostgreSQL: a randomly
named database created from --pg-url / TEST_DATABASE_URL and dropped at the end):

1. Baseline: a raw SQLAlchemy loop, one event row inserted and committed per
   iteration (``service.store.db.make_engine``: the store's own connection settings),
   into the same ``events`` table of the same database, for a bounded time; once with
   one thread and once with ``--threads`` threads.
2. Actions/s over HTTP: gunicorn ``--workers`` on 127.0.0.1 (as ``make serve``:
   gunicorn.conf.py, gevent workers),
   scripted 2-Way Cards games (place, place, draw, discard; no declarations, so each
   game ends with a full grid, TW-E2), every action POSTed with ``expected_version`` and
   an ``Idempotency-Key``, no GET between actions (each seat's next move is read from
   its own last reply). One client, then ``--threads`` clients each playing its own
   games, for a bounded time. Ratio = HTTP actions/s / raw inserts/s with the same
   number of threads (target >= 0.5).
3. Latency of one action at event ~10 vs ~500 of one game (target <= 1.2): short games
   (replaced every 4 timed actions, one turn, so they stay near event 10) and one whose
   log is padded to ~500 events with filler rows written straight into the bench's
   database (the snapshot stays the game's own); the scripted actions are timed
   alternately on a short game and the long one, so load drift hits both alike;
   medians compared. The store folds the action onto the stored snapshot and appends
   after ``games.last_seq``: its cost must not grow with the log.

``--in-process N`` instead: N scripted actions per mode through the Flask test client
(no gunicorn, no sockets), with and without an ``Idempotency-Key``, printing ms per
action (the actions alone: game creation and the first GETs are not timed);
``--profile`` adds a cProfile of the keyed run (top functions by own time).
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, insert, select, text, update  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

from service.play import HTTPTransport, Reply  # noqa: E402
from service.store.db import make_engine  # noqa: E402
from service.store.models import Event, Game, utcnow  # noqa: E402

DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
PAYLOAD = {"by": "blue", "tile": 17, "cell": [3, 4]}  # the size of a place event


def in_threads(threads: int, work: Callable[[int], None]) -> None:
    """Run ``work(slot)`` for slots 0..threads-1, one thread each, and wait for all;
    the first exception a thread raised is raised here (not lost with its thread)."""
    errors: list[BaseException] = []

    def guarded(slot: int) -> None:
        try:
            work(slot)
        except BaseException as error:
            errors.append(error)

    workers = [threading.Thread(target=guarded, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if errors:
        raise errors[0]


# ----- databases -------------------------------------------------------------------


def migrate(url: str) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["url"] = url
    config.attributes["configure_logger"] = False
    command.upgrade(config, "head")


class Database:
    """A fresh migrated database for one backend; ``drop()`` removes it."""

    def __init__(self, backend: str, pg_url: str):
        self.backend, self.admin_url, self.name = backend, pg_url, None
        if backend == "sqlite":
            self.dir = tempfile.TemporaryDirectory(prefix="bench-store-")
            self.url = f"sqlite:///{self.dir.name}/bench.sqlite3"
        else:
            self.name = f"bench_store_{secrets.token_hex(6)}"
            admin = create_engine(pg_url, isolation_level="AUTOCOMMIT")
            with admin.connect() as connection:
                connection.execute(text(f'CREATE DATABASE "{self.name}"'))
            admin.dispose()
            self.url = make_url(pg_url).set(database=self.name).render_as_string(
                hide_password=False)
        migrate(self.url)

    def drop(self) -> None:
        if self.name is None:
            self.dir.cleanup()
            return
        admin = create_engine(self.admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)'))
        admin.dispose()


# ----- 1. raw insert + commit --------------------------------------------------------


def raw_inserts(url: str, seconds: float, threads: int) -> float:
    """Event rows inserted and committed per second (one row per transaction), each
    thread appending to its own dummy game."""
    engine = make_engine(url)
    ids = [f"raw-{uuid.uuid4().hex[:24]}" for _ in range(threads)]
    with Session(engine) as session, session.begin():
        session.add_all(Game(id=i, game="two-way", options={}, status="active", version=1,
                             snapshot={}, seed="0" * 64, referee_token_hash=uuid.uuid4().hex,
                             created_at=utcnow(), updated_at=utcnow()) for i in ids)
    counts = [0] * threads
    start = time.perf_counter()
    deadline = start + seconds

    def loop(slot: int) -> None:
        seq = 0
        while time.perf_counter() < deadline:
            seq += 1
            with engine.begin() as connection:
                connection.execute(insert(Event.__table__).values(
                    game_id=ids[slot], seq=seq, type="place", seat="blue", payload=PAYLOAD,
                    created_at=utcnow()))
            counts[slot] += 1

    try:
        in_threads(threads, loop)
        elapsed = time.perf_counter() - start
    finally:
        engine.dispose()
    return sum(counts) / elapsed


# ----- the server ------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_gunicorn(url: str, workers: int, args: tuple[str, ...] = ()
                   ) -> tuple[subprocess.Popen, str]:
    """gunicorn as `make serve` starts it (gunicorn.conf.py: gevent workers), ``args``
    added (``("-k", "sync")``...), on a free port: (process, base URL)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "--workers",
         str(workers), "--bind", f"127.0.0.1:{port}", "--log-level", "warning",
         "--no-control-socket", *args, "service:create_app()"],
        cwd=ROOT, env={**os.environ, "DATABASE_URL": url, "RATELIMIT_ENABLED": "false"},
        start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if HTTPTransport(base, timeout=1).request("GET", "/healthz").status == 200:
                return process, base
        except OSError:
            time.sleep(0.1)
    stop(process)
    raise RuntimeError("gunicorn did not start")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


# ----- 2. scripted games over HTTP ---------------------------------------------------


class ScriptedGame:
    """A server-mode 2-Way Cards game played without GETs between actions: each seat's
    hand comes from its own last reply, the empty spaces from the latest reply."""

    def __init__(self, http: HTTPTransport, keys: bool = True):
        self.http, self.keys = http, keys
        created = self.call("POST", "/v1/games", {"game": "two-way", "options": {}}, None, 201)
        self.id, self.version = created["id"], created["version"]
        self.tokens = {s: e["token"] for s, e in created["seats"].items()}
        self.views = {s: self.call("GET", f"/v1/games/{self.id}", None, s)["view"]
                      for s in self.tokens}
        self.latest = next(iter(self.views.values()))
        self.status = "active"
        self.actions = 0
        self.last_seq = 3  # game-created and the two deals

    def call(self, method: str, path: str, body, seat: str | None, expect: int = 200,
             key: bool = False) -> dict:
        headers = {"Authorization": f"Bearer {self.tokens[seat]}"} if seat else {}
        if key:
            headers["Idempotency-Key"] = uuid.uuid4().hex
        reply = self.http.request(method, path, body, headers)
        if reply.status != expect:
            raise RuntimeError(f"{method} {path} -> {reply.status} {reply.body}")
        return reply.body

    def act(self, seat: str, action: dict) -> dict:
        reply = self.call("POST", f"/v1/games/{self.id}/actions",
                          {**action, "expected_version": self.version}, seat, key=self.keys)
        self.version, self.status = reply["version"], reply["status"]
        self.views[seat] = self.latest = reply["view"]
        self.actions += 1
        self.last_seq = reply["events"][-1]["seq"]
        return reply

    def next_action(self) -> tuple[str, dict]:
        seat, phase = self.latest["turn"], self.latest["phase"]  # the game's, any viewer
        hand = self.views[seat]["hands"][seat]  # unchanged since the seat's own last reply
        if phase == "place":
            grid = self.latest["grid"]
            cell = next([r, c] for r in range(7) for c in range(7) if grid[r][c] is None)
            return seat, {"type": "place", "tile": hand[0], "cell": cell}
        if phase == "draw":
            return seat, {"type": "draw"}
        return seat, {"type": "discard", "tiles": hand[:self.latest["discards_due"]]}

    def step(self) -> None:
        self.act(*self.next_action())


def healthz(base: str, seconds: float, threads: int) -> float:
    """GET /healthz per second: the floor of the HTTP layer (no database)."""
    counts = [0] * threads
    start = time.perf_counter()
    deadline = start + seconds

    def client(slot: int) -> None:
        http = HTTPTransport(base)
        while time.perf_counter() < deadline:
            assert http.request("GET", "/healthz").status == 200
            counts[slot] += 1
        http.close()

    in_threads(threads, client)
    return sum(counts) / (time.perf_counter() - start)


def http_actions(base: str, seconds: float, threads: int,
                 on_game: Callable[[ScriptedGame], None] | None = None) -> tuple[float, int]:
    """(actions/s, games finished) of ``threads`` clients playing scripted games
    (``on_game(game)``: called for each new game before its first action)."""
    counts, finished = [0] * threads, [0] * threads
    start = time.perf_counter()
    deadline = start + seconds

    def client(slot: int) -> None:
        http = HTTPTransport(base)
        try:
            while time.perf_counter() < deadline:
                game = ScriptedGame(http)
                if on_game is not None:
                    on_game(game)
                while game.status == "active" and time.perf_counter() < deadline:
                    game.step()
                    counts[slot] += 1
                finished[slot] += game.status == "finished"
        finally:
            http.close()

    in_threads(threads, client)
    return sum(counts) / (time.perf_counter() - start), sum(finished)


# ----- 3. latency at event ~10 vs ~500 -------------------------------------------------


def events_of(game: ScriptedGame) -> int:
    return game.last_seq


FILLER = "bench-filler"
SHORT_SAMPLES = 4  # timed actions per short game: one turn (place, place, draw, discard)


def pad_log(url: str, game_id: str, count: int) -> int:
    """Append ``count`` filler events to the game's log, directly in the bench's own
    database, and move ``games.last_seq`` past them (returned): the log is long, the
    snapshot (and
    so the engine's work) is the game's own. (TW-T3 refuses a second declaration of one
    length in a turn, so rejected declarations no longer pad a 2-Way game to ~500
    events, and a whole game has far fewer.)"""
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            first = connection.execute(select(Game.last_seq).where(Game.id == game_id)).scalar()
            connection.execute(insert(Event.__table__), [
                {"game_id": game_id, "seq": seq, "type": FILLER, "seat": None, "payload": {},
                 "created_at": utcnow()} for seq in range(first + 1, first + count + 1)])
            connection.execute(update(Game.__table__).where(Game.id == game_id)
                               .values(last_seq=first + count))
    finally:
        engine.dispose()
    return first + count


def latency(base: str, url: str, samples: int,
            long_events: int) -> tuple[float, float, str, str]:
    """(median seconds near event 10, median near ``long_events``, and the ranges of
    event seqs the timed actions appended). The timed actions are the scripted game's
    own (place, place, draw, discard), alternating between a short game (replaced every
    SHORT_SAMPLES actions, so each action mix is the same turn) and the long one (a
    fresh game whose log is padded to ``long_events``, see :func:`pad_log`)."""
    http = HTTPTransport(base)
    try:
        long = ScriptedGame(http)
        long.last_seq = pad_log(url, long.id, long_events - events_of(long) - samples // 2)
        near, far, short_seqs = [], [], []
        first_far = events_of(long) + 1
        short = ScriptedGame(http)
        for i in range(samples):
            if (i and i % SHORT_SAMPLES == 0) or short.status != "active":
                short = ScriptedGame(http)
            for game, out in ((short, near), (long, far)):
                seat, action = game.next_action()
                begin = time.perf_counter()
                game.act(seat, action)
                out.append(time.perf_counter() - begin)
            short_seqs.append(events_of(short))
        return (statistics.median(near), statistics.median(far),
                f"{min(short_seqs)}..{max(short_seqs)}", f"{first_far}..{events_of(long)}")
    finally:
        http.close()


# ----- in process: the Flask test client ---------------------------------------------


class TestClientTransport:
    """:class:`HTTPTransport`'s ``request`` over a Flask test client (no sockets)."""

    def __init__(self, app):
        self.client = app.test_client()

    def request(self, method: str, path: str, body=None, headers=None) -> Reply:
        response = self.client.open(path, method=method, json=body,
                                    headers={"Accept": "application/json", **(headers or {})})
        data = response.get_data()
        return Reply(response.status_code, json.loads(data) if data else None,
                     {k.lower(): v for k, v in response.headers.items()})

    def close(self) -> None:
        pass


def timed_actions(transport, count: int, keys: bool) -> float:
    """Seconds per action over ``count`` scripted actions (new games as needed; only the
    actions are timed)."""
    spent, done = 0.0, 0
    while done < count:
        game = ScriptedGame(transport, keys=keys)
        while game.status == "active" and done < count:
            seat, action = game.next_action()
            begin = time.perf_counter()
            game.act(seat, action)
            spent += time.perf_counter() - begin
            done += 1
    return spent / count


def in_process(backend: str, args: argparse.Namespace) -> None:
    from service import create_app
    from service.store import get_store

    try:
        database = Database(backend, args.pg_url)
    except Exception as error:
        print(f"{backend}: skipped ({type(error).__name__}: {error})")
        return
    try:
        app = create_app({"DATABASE_URL": database.url, "RATELIMIT_ENABLED": False})
        transport = TestClientTransport(app)
        timed_actions(transport, 200, True)  # warm up: imports, pool, caches
        rounds = {True: [], False: []}
        for _ in range(args.rounds):  # alternate, so load drift hits both alike
            for keys in (True, False):
                rounds[keys].append(timed_actions(transport, args.in_process, keys))
        profile = None
        if args.profile:
            import cProfile
            profile = cProfile.Profile()
            profile.enable()
            timed_actions(transport, args.in_process, True)
            profile.disable()
        get_store(app).dispose()
    finally:
        database.drop()
    for keys, label in ((True, "with Idempotency-Key"), (False, "without key")):
        figures = ", ".join(f"{t * 1000:.2f}" for t in rounds[keys])
        print(f"{backend}: in process, one action {label}: "
              f"{min(rounds[keys]) * 1000:.2f} ms (best of {args.rounds} x "
              f"{args.in_process}: {figures})")
    if profile is not None:
        import pstats
        stats = pstats.Stats(profile)
        stats.sort_stats("tottime").print_stats(args.profile)
        stats.sort_stats("cumulative").print_stats(args.profile)


# ----- main ------------------------------------------------------------------------


def bench(backend: str, args: argparse.Namespace) -> None:
    try:
        database = Database(backend, args.pg_url)
    except Exception as error:  # PostgreSQL not reachable: say so, bench the rest
        print(f"{backend}: skipped ({type(error).__name__}: {error})")
        return
    try:
        raw_1 = raw_inserts(database.url, args.seconds, 1)
        raw_n = raw_inserts(database.url, args.seconds, args.threads)
        process, base = start_gunicorn(database.url, args.workers)
        try:
            floor_1 = healthz(base, args.seconds / 2, 1)
            floor = healthz(base, args.seconds / 2, args.threads)
            http_1, games_1 = http_actions(base, args.seconds, 1)
            http_n, games_n = http_actions(base, args.seconds, args.threads)
            if args.samples:
                near, far, at_near, at_far = latency(base, database.url, args.samples,
                                                     args.long_events)
        finally:
            stop(process)
    finally:
        database.drop()
    print(f"{backend}: raw insert+commit: {raw_1:,.0f}/s (1 thread), {raw_n:,.0f}/s "
          f"({args.threads} threads)")
    print(f"{backend}: HTTP actions (gunicorn --workers {args.workers}): {http_1:,.0f}/s "
          f"(1 client, {games_1} games ended), {http_n:,.0f}/s ({args.threads} clients, "
          f"{games_n} games ended)")
    # One client: an action is at least one HTTP round trip (>= 1/floor_1 s) plus one
    # insert + commit (>= 1/raw_1 s), one after the other, so HTTP/raw <= this ceiling.
    ceiling = 1 / (1 + raw_1 / floor_1)
    print(f"{backend}: HTTP floor, GET /healthz (no database): {floor_1:,.0f}/s (1 client), "
          f"{floor:,.0f}/s ({args.threads} clients); so with 1 client HTTP/raw cannot "
          f"exceed 1/(1 + raw/healthz) = {ceiling:.2f}")
    print(f"{backend}: ratio HTTP/raw: {http_1 / raw_1:.3f} (1 vs 1), "
          f"{http_n / raw_n:.3f} ({args.threads} vs {args.threads}) [target >= 0.5]")
    if not args.samples:
        return
    print(f"{backend}: one action at events {at_near}: {near * 1000:.2f} ms, at events "
          f"{at_far}: {far * 1000:.2f} ms (medians of {args.samples}); ratio "
          f"{far / near:.2f} [target <= 1.2]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--samples", type=int, default=25, help="latency samples (0: skip)")
    parser.add_argument("--long-events", type=int, default=500)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--pg-url", default=os.environ.get("TEST_DATABASE_URL", DEFAULT_PG))
    parser.add_argument("--in-process", type=int, default=0, metavar="N",
                        help="time N actions per mode through the Flask test client")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", type=int, default=0, metavar="LINES",
                        help="with --in-process: cProfile the keyed run, print LINES rows")
    args = parser.parse_args()
    if args.in_process:
        for backend in args.backends.split(","):
            in_process(backend.strip(), args)
        return
    print(f"bench_store: {os.cpu_count()} CPUs, {args.seconds:g} s per throughput figure")
    for backend in args.backends.split(","):
        bench(backend.strip(), args)


if __name__ == "__main__":
    main()

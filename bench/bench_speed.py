"""Every speed target (issues 14 and 23) in one command, on SQLite and PostgreSQL, each
figure a ratio against a ceiling measured in the same run (run by hand).

    .venv/bin/python bench/bench_speed.py [--seconds 4] [--rounds 3] [--workers 4]
        [--games 16] [--backends sqlite,postgresql] [--baseline DIR]
        [--long-events 2000] [--memory-actions 10000] [--pg-url URL]
        [--race-players 4] [--race-games 4] [--skip-stateless] [--skip-durable]
        [--skip-race]

``--baseline DIR``: a checkout of another revision (``git archive main | tar -x -C
DIR``); its server is measured in the same run, rounds interleaved with this tree's,
so the machine's load (2 cores, shared) hits both alike; every figure is printed as the
range over the rounds, per tree. Which tree goes first alternates from round to round
(the baseline in the first): the second of a round was measured worse (two copies of
one tree, PostgreSQL action p99 at 16 games 45-55 ms first, 74-110 ms second, 3 rounds).

Load generator: separate processes (one per client, up to 16), raw keep-alive sockets with
the request bytes built up front (a few microseconds per request, far below the
server's cost). gunicorn as ``make serve`` starts it (gunicorn.conf.py: gevent
workers), ``--workers`` each, on 127.0.0.1.

Figures (targets of the issue in brackets):

1. Stateless, throughput / ``GET /healthz`` throughput (same server, same clients,
   interleaved): the 6-card check, the 7x7 grid scan, the Sequence move check [each
   >= 0.8]; for reference the grid scan with a new random grid in every request (2,000
   grids in turn: the scan remembers the lines it judged, and these share almost none).
2. Durable actions, ``--games`` clients each playing its own scripted 2-Way Cards
   games (``expected_version`` and an ``Idempotency-Key`` on every action), per
   backend on a fresh migrated database:
   * actions/s / ceiling [>= 0.5], ceiling = 1 / (1/healthz + 1/raw), healthz with
     the same clients, raw = the best of one and ``--games`` writers inserting and
     committing one event row per transaction (the store's connection settings);
   * worker CPU per action / worker CPU per ``/healthz`` [<= 2.5] (utime + stime of
     the gunicorn workers over each phase, /proc; game creation and the first GETs are
     charged to the actions), and both in ms; on PostgreSQL, for reference, the CPU of
     every postgres process per action;
   * actions/s with ``--games`` clients / with a quarter of them [>= 1.5], and the
     p99 / p50 of the action latency with ``--games`` clients [<= 3]; for reference the
     same actions' p50, p99 and p99 / p50 in the server (their ``duration_ms`` in the
     workers' request log: the clients' own waits for a CPU, on the machine they
     share, left out);
   * connections per worker at mid-phase (each worker's sockets that /proc/net/tcp
     lists as ESTABLISHED on the server's port): the busiest worker's count / a fair
     share [<= 1.5], and the counts printed as the run goes;
   * SQLite, no HTTP: 4 processes running write transactions (a read, 2 ms of CPU,
     an insert) through the tree's unit of work: transactions/s, p50, mean, p99;
   * SQLite: the machine's CPU busy share over the phase [>= 90 %], and for
     reference the p99 / p50 of ``/healthz`` with the same clients (the tail the
     machine itself gives a request that does nothing);
   * PostgreSQL: database round trips per action [<= 3], counted in process by a TCP
     proxy between the store and PostgreSQL (one round trip = the client speaks after
     the server did), token lookup included;
   * latency of one action at event ~``--long-events`` / at event ~10 [<= 1.2];
   * worker RSS before and after ``--memory-actions`` more actions [flat].
3. Halves races per backend (``--race-games`` games of ``--race-players`` seats side by
   side, a client thread per seat, service.play.Racer, no version on the plays): an
   action POST's p50 and p99 in the server (its ``duration_ms`` in the workers'
   request log), and PostgreSQL's p50 / SQLite's in the same round [<= 1.5]; for
   reference a play POST's p50 and p99 as the racing client measured them (its own
   time included: 16 seat threads in one process); on PostgreSQL the backends waiting
   on a lock (pg_stat_activity sampled every 20 ms, mean and max); the server's CPU
   per accepted play (the workers, on PostgreSQL with every postgres process: the
   backends work for the server; their share printed apart) and the requests (GETs of
   the legal actions, POSTs) per accepted play.

Not measured here: the peer benchmark against boardgame.io (bench/bench_peer.py), and
latency with 100,000 stored games against 1,000 (bench/bench_growth.py, which also times
an action at event ~10,000).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import secrets
import select
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
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_PG = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
CLIENT_PROCESSES = 16  # at most; one thread each (a client's latency is not a GIL wait)
HZ = os.sysconf("SC_CLK_TCK")

CHECK_6 = {"cards": ["KS", "JK", "2S", "3S", "JK", "5S"]}
# a full grid of tile faces drawn at random (random.Random(14), one colour's 108 faces,
# as bench_two_way_check.py's realistic grids): 10 declarable lines
GRID = {"grid": [["AH", "AD", "QD", "6C", "6D", "3H", "6D"],
                 ["9D", "4C", "7D", "QD", "3C", "10S", "7D"],
                 ["6S", "KD", "8S", "10D", "QC", "QC", "9C"],
                 ["3H", "8D", "3D", "2C", "7C", "KC", "8D"],
                 ["8C", "QC", "3D", "3D", "2H", "7H", "8H"],
                 ["6H", "8D", "7D", "10D", "9H", "2S", "6D"],
                 ["9S", "3H", "QH", "5C", "4S", "JS", "10D"]]}
SEQUENCE_MOVE = {"chips": {"green": [[0, 1], [0, 2], [0, 3], [1, 5], [2, 2]],
                           "blue": [[5, 0], [6, 0], [7, 0], [8, 0], [3, 3]]},
                 "sequences": [], "side": "green", "card": "5S", "cell": [0, 4]}
STATELESS = {"6-card check": ("/v1/two-way/sequences/check", CHECK_6, 0.8),
             "grid scan": ("/v1/two-way/grid/sequences", GRID, 0.8),
             "Sequence move check": ("/v1/sequence/moves/check", SEQUENCE_MOVE, 0.8)}
FRESH_GRIDS = "grid scan, a new grid each request"


# ----- a raw keep-alive HTTP client ---------------------------------------------------


def request_bytes(host: str, method: str, path: str, body: object = None,
                  headers: dict[str, str] | None = None) -> bytes:
    data = b"" if body is None else json.dumps(body).encode()
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}", "Accept: application/json",
             f"Content-Length: {len(data)}"]
    if body is not None:
        lines.append("Content-Type: application/json")
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + data


class Connection:
    """One keep-alive connection: ``send(request bytes) -> (status, body bytes)``."""

    def __init__(self, base: str):
        parts = urlsplit(base)
        self.host = parts.netloc
        self.sock = socket.create_connection((parts.hostname, parts.port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def send(self, data: bytes) -> tuple[int, bytes]:
        self.sock.sendall(data)
        while b"\r\n\r\n" not in self.buffer:
            self._read()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        status = int(lines[0].split()[1])
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(self.buffer) < length:
            self._read()
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, body

    def _read(self) -> None:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("server closed the connection")
        self.buffer += chunk

    def call(self, method: str, path: str, body: object = None,
             headers: dict[str, str] | None = None, expect: int = 200) -> dict:
        status, data = self.send(request_bytes(self.host, method, path, body, headers))
        if status != expect:
            raise RuntimeError(f"{method} {path} -> {status} {data[:300]!r}")
        return json.loads(data) if data else {}

    def close(self) -> None:
        self.sock.close()


class Game:
    """A server-mode 2-Way Cards game played without GETs between actions (each seat's
    hand from its own last reply), every action with ``expected_version`` and an
    ``Idempotency-Key`` (as bench/bench_store.py's ScriptedGame)."""

    def __init__(self, call: Callable[..., dict]):
        self.call = call
        created = call("POST", "/v1/games", {"game": "two-way", "options": {}}, None, 201)
        self.id, self.version = created["id"], created["version"]
        self.tokens = {s: e["token"] for s, e in created["seats"].items()}
        self.views = {s: call("GET", f"/v1/games/{self.id}", None, self._auth(s))["view"]
                      for s in self.tokens}
        self.latest = next(iter(self.views.values()))
        self.status, self.last_seq = "active", 3

    def _auth(self, seat: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def next_action(self) -> tuple[str, dict]:
        seat, phase = self.latest["turn"], self.latest["phase"]
        hand = self.views[seat]["hands"][seat]
        if phase == "place":
            grid = self.latest["grid"]
            cell = next([r, c] for r in range(7) for c in range(7) if grid[r][c] is None)
            return seat, {"type": "place", "tile": hand[0], "cell": cell}
        if phase == "draw":
            return seat, {"type": "draw"}
        return seat, {"type": "discard", "tiles": hand[:self.latest["discards_due"]]}

    def step(self) -> None:
        seat, action = self.next_action()
        headers = {**self._auth(seat), "Idempotency-Key": uuid.uuid4().hex}
        reply = self.call("POST", f"/v1/games/{self.id}/actions",
                          {**action, "expected_version": self.version}, headers)
        self.version, self.status = reply["version"], reply["status"]
        self.views[seat] = self.latest = reply["view"]
        self.last_seq = reply["events"][-1]["seq"]


# ----- load: client processes ---------------------------------------------------------


def _client_process(work: Callable, threads: int, start: float, seconds: float,
                    out: multiprocessing.Queue) -> None:
    results: list = []

    def run() -> None:
        try:
            results.append(work(start, start + seconds))
        except BaseException as error:  # noqa: BLE001 - reported to the parent
            results.append(error)

    pool = [threading.Thread(target=run) for _ in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join()
    out.put([r if not isinstance(r, BaseException) else repr(r) for r in results])


def load(work: Callable[[float, float], tuple[int, list[float]]], clients: int,
         seconds: float) -> tuple[float, list[float]]:
    """``clients`` threads over :data:`CLIENT_PROCESSES` forked processes, each running
    ``work(start, deadline) -> (count, latencies)``: (count per second, latencies)."""
    context = multiprocessing.get_context("fork")
    out = context.Queue()
    start = time.time() + 1.0
    share = [clients // CLIENT_PROCESSES + (i < clients % CLIENT_PROCESSES)
             for i in range(CLIENT_PROCESSES)]
    processes = [context.Process(target=_client_process, args=(work, n, start, seconds, out))
                 for n in share if n]
    for process in processes:
        process.start()
    results = [r for _ in processes for r in out.get()]
    for process in processes:
        process.join()
    errors = [r for r in results if isinstance(r, str)]
    if errors:
        raise RuntimeError(errors[0])
    return (sum(r[0] for r in results) / seconds, [x for r in results for x in r[1]])


def wait_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.time()))


def fixed_requests(base: str, method: str, path: str, body: object = None) -> Callable:
    """The work of a client sending one request again and again (200 expected)."""
    return cycled_requests(base, method, path, [body])


def cycled_requests(base: str, method: str, path: str, bodies: list) -> Callable:
    """The work of a client sending the request with each of ``bodies`` in turn, again
    and again (200 expected); each client starts at its own place in the list."""
    def work(start: float, deadline: float) -> tuple[int, list[float]]:
        connection = Connection(base)
        data = [request_bytes(connection.host, method, path, body) for body in bodies]
        offset = secrets.randbelow(len(data))
        status, reply = connection.send(data[offset])  # connected and warm before the start
        if status != 200:
            raise RuntimeError(f"{path} -> {status} {reply[:300]!r}")
        wait_until(start)
        count, latencies = 0, []
        while time.time() < deadline:
            begin = time.perf_counter()
            status, _ = connection.send(data[(offset + count) % len(data)])
            latencies.append(time.perf_counter() - begin)
            if status != 200:
                raise RuntimeError(f"{path} -> {status}")
            count += 1
        connection.close()
        return count, latencies
    return work


def random_grids(count: int) -> list[dict]:
    """``count`` full grids of one colour's tile faces drawn at random (as GRID): bodies
    no two alike, so no line of one comes back in the next (the scan remembers lines)."""
    rng = random.Random(14)
    faces = [rank + suit for suit in "SHDC" for rank in
             ["A", *map(str, range(2, 11)), "J", "Q", "K"]] * 2 + ["JK"] * 4
    return [{"grid": [[rng.choice(faces) for _ in range(7)] for _ in range(7)]}
            for _ in range(count)]


def playing(base: str) -> Callable:
    """The work of a client playing scripted games; latencies of the actions."""
    def work(start: float, deadline: float) -> tuple[int, list[float]]:
        connection = Connection(base)
        wait_until(start)
        count, latencies = 0, []
        while time.time() < deadline:
            game = Game(connection.call)
            while game.status == "active" and time.time() < deadline:
                begin = time.perf_counter()
                game.step()
                latencies.append(time.perf_counter() - begin)
                count += 1
        connection.close()
        return count, latencies
    return work


# ----- the server and its workers ------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """gunicorn over ``tree`` (its own code, this interpreter), ``workers`` workers."""

    def __init__(self, tree: Path, url: str, workers: int, log: Path | None = None):
        """``log``: the workers' standard error (their request log, one JSON line per
        request) goes to this file, else nowhere."""
        port = free_port()
        env = {**os.environ, "DATABASE_URL": url, "RATELIMIT_ENABLED": "false",
               "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}
        errors = subprocess.DEVNULL if log is None else log.open("ab")
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py",
                 "--workers", str(workers), "--bind", f"127.0.0.1:{port}", "--log-level",
                 "warning", "--no-control-socket", "service:create_app()"],
                cwd=tree, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                stderr=errors)
        finally:
            if log is not None:
                errors.close()
        self.base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                connection = Connection(self.base)
                connection.call("GET", "/healthz")
                connection.close()
                if len(self.workers()) == workers:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError("gunicorn did not start")

    def workers(self) -> list[int]:
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        return [int(p) for p in children.read_text().split()]

    def cpu(self) -> float:
        """Seconds of CPU (user + system) the workers have used so far."""
        total = 0.0
        for pid in self.workers():
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            total += (int(fields[11]) + int(fields[12])) / HZ
        return total

    def connections(self) -> list[int]:
        """The established client connections each worker holds now: its sockets
        whose inode /proc/net/tcp lists as ESTABLISHED on the server's port."""
        port = int(self.base.rpartition(":")[2])
        established = set()
        for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "01" and int(fields[1].rpartition(":")[2], 16) == port:
                established.add(f"socket:[{fields[9]}]")
        counts = []
        for pid in self.workers():
            count = 0
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                try:
                    count += os.readlink(fd) in established
                except OSError:  # closed meanwhile
                    pass
            counts.append(count)
        return counts

    def rss(self) -> list[float]:
        """Each worker's resident set, MiB."""
        out = []
        for pid in self.workers():
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    out.append(int(line.split()[1]) / 1024)
        return out

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


def machine_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine (/proc/stat)."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]
    return sum(values) - idle, sum(values)


def later(delay: float, fn: Callable[[], object]) -> list:
    """``fn()`` in a thread ``delay`` seconds from now; the list gets its result."""
    out: list = []
    thread = threading.Thread(target=lambda: (time.sleep(delay), out.append(fn())),
                              daemon=True)
    thread.start()
    return out


def measured(server: Server, work: Callable, clients: int, seconds: float,
             spread: list | None = None) -> tuple[float, list[float], float, float]:
    """(per second, latencies, worker CPU seconds per unit, machine busy share);
    ``spread`` gets each worker's established connections at mid-phase."""
    cpu, (busy, total) = server.cpu(), machine_ticks()
    sample = later(1.0 + seconds / 2, server.connections)  # load starts in 1 s
    rate, latencies = load(work, clients, seconds)
    if spread is not None and sample:
        spread.extend(sample[0])
    cpu_spent = server.cpu() - cpu
    busy_now, total_now = machine_ticks()
    units = max(rate * seconds, 1)
    return rate, latencies, cpu_spent / units, (busy_now - busy) / max(total_now - total, 1)


# ----- databases ------------------------------------------------------------------


class Database:
    """A fresh database migrated by ``tree``'s Alembic (a baseline's own revision: its
    server refuses a database a later one migrated); ``drop()`` removes it."""

    def __init__(self, backend: str, pg_url: str, tree: Path = ROOT):
        from sqlalchemy import create_engine, text
        from sqlalchemy.engine import make_url
        self.backend, self.admin_url, self.name = backend, pg_url, None
        if backend == "sqlite":
            self.dir = tempfile.TemporaryDirectory(prefix="bench-speed-")
            self.url = f"sqlite:///{self.dir.name}/bench.sqlite3"
        else:
            self.name = f"bench_speed_{secrets.token_hex(6)}"
            admin = create_engine(pg_url, isolation_level="AUTOCOMMIT")
            with admin.connect() as connection:
                connection.execute(text(f'CREATE DATABASE "{self.name}"'))
            admin.dispose()
            self.url = make_url(pg_url).set(database=self.name).render_as_string(
                hide_password=False)
        subprocess.run([sys.executable, "-m", "alembic", "upgrade",
                        "head"], cwd=tree, check=True, capture_output=True,
                       env={**os.environ, "DATABASE_URL": self.url, "PYTHONPATH": str(tree)})

    def drop(self) -> None:
        if self.name is None:
            self.dir.cleanup()
            return
        from sqlalchemy import create_engine, text
        admin = create_engine(self.admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{self.name}" WITH (FORCE)'))
        admin.dispose()


def raw_commits(url: str, writers: int, seconds: float) -> float:
    """Event rows inserted and committed per second, one per transaction, by
    ``writers`` threads over the client processes (the store's connection settings:
    service.store.db.make_engine), each appending to a dummy game of its own."""
    def work(start: float, deadline: float) -> tuple[int, list[float]]:
        from sqlalchemy import text
        from service.store.db import make_engine
        engine = make_engine(url)
        game = f"raw-{uuid.uuid4().hex[:24]}"
        now = "2026-01-01 00:00:00+00"
        with engine.begin() as connection:
            connection.execute(text(
                "INSERT INTO games (id, game, options, status, version, snapshot, last_seq,"
                " seed, referee_token_hash, created_at, updated_at) VALUES (:id, 'two-way',"
                " '{}', 'active', 1, '{}', 0, :seed, :hash, :now, :now)"),
                {"id": game, "seed": "0" * 64, "hash": uuid.uuid4().hex, "now": now})
        insert = text("INSERT INTO events (game_id, seq, type, seat, payload, created_at) "
                      "VALUES (:game, :seq, 'place', 'blue', :payload, :now)")
        payload = json.dumps({"by": "blue", "tile": 17, "cell": [3, 4]})
        wait_until(start)
        seq = 0
        while time.time() < deadline:
            seq += 1
            with engine.begin() as connection:
                connection.execute(insert, {"game": game, "seq": seq, "payload": payload,
                                            "now": now})
        engine.dispose()
        return seq, []
    return load(work, writers, seconds)[0]


def pad_log(url: str, game_id: str, count: int) -> int:
    """Append ``count`` filler events to the game's log straight in the database and
    move ``games.last_seq`` past them: the log is long, the snapshot the game's own."""
    from sqlalchemy import text
    from service.store.db import make_engine
    engine = make_engine(url)
    with engine.begin() as connection:
        first = connection.execute(text("SELECT last_seq FROM games WHERE id = :id"),
                                   {"id": game_id}).scalar()
        connection.execute(text(
            "INSERT INTO events (game_id, seq, type, seat, payload, created_at) VALUES "
            "(:id, :seq, 'bench-filler', NULL, '{}', '2026-01-01 00:00:00+00')"),
            [{"id": game_id, "seq": s} for s in range(first + 1, first + count + 1)])
        connection.execute(text("UPDATE games SET last_seq = :last WHERE id = :id"),
                           {"last": first + count, "id": game_id})
    engine.dispose()
    return first + count


def long_vs_short(base: str, url: str, samples: int, long_events: int) -> float:
    """Median latency of an action at event ~``long_events`` / at event ~10, the
    scripted actions timed alternately on a short game (one turn each) and a long one."""
    connection = Connection(base)
    long = Game(connection.call)
    long.last_seq = pad_log(url, long.id, long_events - long.last_seq - samples // 2)
    near, far = [], []
    short = None
    for i in range(samples):
        if i % 4 == 0 or short.status != "active":
            short = Game(connection.call)
        for game, out in ((short, near), (long, far)):
            begin = time.perf_counter()
            game.step()
            out.append(time.perf_counter() - begin)
    connection.close()
    return statistics.median(far) / statistics.median(near)


# ----- PostgreSQL round trips per action (in process, through a counting proxy) ----------


class CountingProxy:
    """A TCP proxy to ``target`` counting round trips: each time a client speaks after
    the server did (or first), over every connection."""

    def __init__(self, target: tuple[str, int]):
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.trips = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            client, _ = self.listener.accept()
            server = socket.create_connection(self.target)
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, client: socket.socket, server: socket.socket) -> None:
        last = "server"
        while True:
            readable, _, _ = select.select([client, server], [], [])
            for sock in readable:
                data = sock.recv(65536)
                if not data:
                    client.close()
                    server.close()
                    return
                if sock is client:
                    if last == "server":
                        self.trips += 1
                    last = "client"
                    server.sendall(data)
                else:
                    last = "server"
                    client.sendall(data)


def round_trips(tree: Path, url: str, actions: int) -> float:
    """Round trips per action of ``tree``'s code (a child process, in process: the
    Flask test client), token lookup included."""
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--round-trips",
                           url, "--actions", str(actions)], cwd=tree, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": str(tree),
                                          "PYTHONDONTWRITEBYTECODE": "1"}, check=False)
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    return float(done.stdout.split()[-1])


def _count_round_trips(url: str, actions: int) -> None:
    from sqlalchemy.engine import make_url
    from service import create_app
    parsed = make_url(url)
    proxy = CountingProxy((parsed.host or "127.0.0.1", parsed.port or 5432))
    app = create_app({"DATABASE_URL": parsed.set(host="127.0.0.1", port=proxy.port)
                      .render_as_string(hide_password=False), "RATELIMIT_ENABLED": False})
    client = app.test_client()

    def call(method, path, body=None, headers=None, expect=200):
        response = client.open(path, method=method, json=body, headers=headers or {})
        if response.status_code != expect:
            raise RuntimeError(f"{path} -> {response.status_code} {response.get_data()!r}")
        return response.get_json()

    trips = 0
    game, done = Game(call), 0
    while done < actions + 20:
        if game.status != "active":
            game = Game(call)
        before = proxy.trips
        game.step()
        if done >= 20:  # warm: pool filled, statements prepared
            trips += proxy.trips - before
        done += 1
    print(trips / actions)


# ----- SQLite: write transactions of several processes, the store's unit of work ----------


def writers(tree: Path, processes: int, seconds: float) -> list[float]:
    """[transactions/s, p50 s, p99 s, mean s] of ``processes`` processes each running
    write transactions through ``tree``'s UnitOfWork on one SQLite file (a read, 2 ms
    of CPU, an insert: an action's shape), no HTTP (a child process)."""
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--writers",
                           str(processes), "--actions", str(seconds)], cwd=tree,
                          capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONPATH": str(tree),
                               "PYTHONDONTWRITEBYTECODE": "1"})
    if done.returncode:
        raise RuntimeError(done.stderr[-2000:])
    return [float(x) for x in done.stdout.split()[-4:]]


def _writers(processes: int, seconds: float) -> None:
    from sqlalchemy import text
    from service.store.db import make_engine
    from service.store.uow import UnitOfWork
    folder = tempfile.TemporaryDirectory(prefix="bench-speed-writers-")
    url = f"sqlite:///{folder.name}/w.sqlite3"
    engine = make_engine(url)
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, p TEXT)"))
    engine.dispose()

    def work(start: float, deadline: float) -> tuple[int, list[float]]:
        uow = UnitOfWork(make_engine(url))
        latencies: list[float] = []

        def transaction(connection) -> None:
            connection.execute(text("SELECT count(*) FROM t WHERE id < 0")).scalar()
            spin = time.process_time()
            while time.process_time() - spin < 0.002:
                pass
            connection.execute(text("INSERT INTO t (p) VALUES (:p)"), {"p": "x" * 2000})
        wait_until(start)
        while time.time() < deadline:
            begin = time.perf_counter()
            uow.run(transaction, core=True)
            latencies.append(time.perf_counter() - begin)
        return len(latencies), latencies

    rate, latencies = load(work, processes, seconds)
    latencies.sort()
    print(rate, latencies[len(latencies) // 2], latencies[int(len(latencies) * 0.99)],
          statistics.mean(latencies))
    folder.cleanup()


# ----- main ------------------------------------------------------------------------


def span(values: list[float], fmt: str = "{:.2f}") -> str:
    if not values:
        return "-"
    low, high = min(values), max(values)
    return fmt.format(low) if fmt.format(low) == fmt.format(high) else \
        f"{fmt.format(low)}..{fmt.format(high)}"


class Results:
    """Figures per (tree label, figure name), with their target."""

    def __init__(self) -> None:
        self.values: dict[tuple[str, str], list[float]] = {}
        self.targets: dict[str, tuple[str, float]] = {}
        self.order: list[str] = []

    def add(self, tree: str, name: str, value: float, target: tuple[str, float] | None) -> None:
        if name not in self.targets:
            self.order.append(name)
            self.targets[name] = target
        self.values.setdefault((tree, name), []).append(value)

    def print(self, trees: list[str]) -> None:
        width = max(len(n) for n in self.order)
        print(f"\n{'figure':{width}}  " + "  ".join(f"{t:>22}" for t in trees) + "  target")
        for name in self.order:
            cells = []
            target = self.targets[name]
            for tree in trees:
                values = self.values.get((tree, name), [])
                verdict = ""
                if target and values:
                    op, bound = target
                    worst = min(values) if op == ">=" else max(values)
                    verdict = " pass" if (worst >= bound if op == ">=" else worst <= bound) \
                        else " FAIL"
                cells.append(f"{span(values) + verdict:>22}")
            goal = f"{target[0]} {target[1]:g}" if target else ""
            print(f"{name:{width}}  " + "  ".join(cells) + f"  {goal}")


def stateless_round(tree: Path, label: str, args, results: Results) -> None:
    server = Server(tree, "sqlite://", args.workers)
    try:
        clients = args.games
        rates = {}
        works = {name: fixed_requests(server.base, "POST", path, body)
                 for name, (path, body, _) in STATELESS.items()}
        works[FRESH_GRIDS] = cycled_requests(server.base, "POST", STATELESS["grid scan"][0],
                                             random_grids(2000))
        works["healthz"] = fixed_requests(server.base, "GET", "/healthz")
        for work in works.values():  # warm up
            load(work, clients, 1)
        for name in ["healthz", *STATELESS, FRESH_GRIDS, "healthz"]:
            rate, _ = load(works[name], clients, args.seconds)
            rates.setdefault(name, []).append(rate)
        health = statistics.mean(rates["healthz"])
        results.add(label, "healthz req/s (stateless server)", health, None)
        for name, (_, _, target) in STATELESS.items():
            results.add(label, f"{name} / healthz", rates[name][0] / health, (">=", target))
        results.add(label, f"for reference: {FRESH_GRIDS} / healthz",
                    rates[FRESH_GRIDS][0] / health, None)
    finally:
        server.stop()


def durable_round(tree: Path, label: str, backend: str, database: Database, args,
                  results: Results, memory: bool) -> None:
    folder = tempfile.TemporaryDirectory(prefix="bench-durable-")
    log = Path(folder.name) / "requests.log"
    server = Server(tree, database.url, args.workers, log=log)
    tag = f"[{backend}] "
    try:
        work = playing(server.base)
        load(work, args.games, 1)  # warm up
        health, health_latencies, health_cpu, _ = measured(
            server, fixed_requests(server.base, "GET", "/healthz"), args.games, args.seconds)
        spread: list[int] = []
        backends = postgres_cpu()
        logged = log.stat().st_size
        rate, latencies, action_cpu, busy = measured(server, work, args.games, args.seconds,
                                                     spread)
        backends = (postgres_cpu() - backends) / max(rate * args.seconds, 1)
        in_server = action_durations(log, logged)
        few = max(1, args.games // 4)
        few_rate, _, _, _ = measured(server, work, few, args.seconds)
        raw = max(raw_commits(database.url, 1, args.seconds / 2),
                  raw_commits(database.url, args.games, args.seconds / 2))
        ceiling = 1 / (1 / health + 1 / raw)
        results.add(label, tag + "healthz req/s", health, None)
        results.add(label, tag + "raw insert+commit/s (best of 1, N)", raw, None)
        results.add(label, tag + "actions/s", rate, None)
        results.add(label, tag + "actions / ceiling", rate / ceiling, (">=", 0.5))
        results.add(label, tag + "CPU per action / per healthz", action_cpu / health_cpu,
                    ("<=", 2.5))
        results.add(label, tag + "CPU ms per action", action_cpu * 1000, None)
        results.add(label, tag + "CPU ms per healthz", health_cpu * 1000, None)
        if backend == "postgresql":
            results.add(label, tag + "for reference: postgres processes' CPU ms per action",
                        backends * 1000, None)
        latencies.sort()
        p50 = latencies[len(latencies) // 2]
        p99 = latencies[int(len(latencies) * 0.99)]
        results.add(label, tag + "action p50 ms", p50 * 1000, None)
        results.add(label, tag + "action p99 ms", p99 * 1000, None)
        results.add(label, tag + f"actions/s {args.games} games / {few} games",
                    rate / max(few_rate, 1e-9), (">=", 1.5))
        results.add(label, tag + f"connections per worker, busiest / fair share "
                    f"({args.games} games)", max(spread) * len(spread) / max(sum(spread), 1)
                    if spread else 0.0, ("<=", 1.5))
        print(f"    {label} {backend}: connections per worker at {args.games} games: "
              f"{spread}", flush=True)
        results.add(label, tag + f"p99 / p50 ({args.games} games)", p99 / p50, ("<=", 3))
        # the same actions in the server (the request log's duration_ms): the clients'
        # own waits for a CPU left out (they share the machine's 2 CPUs with it)
        server_p50 = in_server[len(in_server) // 2]
        server_p99 = in_server[int(len(in_server) * 0.99)]
        results.add(label, tag + "action p50 ms (server)", server_p50, None)
        results.add(label, tag + "action p99 ms (server)", server_p99, None)
        results.add(label, tag + f"for reference: p99 / p50 in the server ({args.games} "
                    "games)", server_p99 / server_p50, None)
        if backend == "sqlite":
            health_latencies.sort()  # the tail the machine gives any request
            results.add(label, tag + "for reference: healthz p99 / p50",
                        health_latencies[int(len(health_latencies) * 0.99)]
                        / health_latencies[len(health_latencies) // 2], None)
            results.add(label, tag + "machine busy under load", busy, (">=", 0.9))
        if args.samples:
            results.add(label, tag + f"latency event ~{args.long_events} / ~10",
                        long_vs_short(server.base, database.url, args.samples,
                                      args.long_events), ("<=", 1.2))
        if memory and args.memory_actions and label != "baseline":
            before = server.rss()
            done = 0
            while done < args.memory_actions:
                rate, _ = load(work, args.games, 5)
                done += rate * 5
            after = server.rss()
            results.add(label, tag + f"worker RSS growth MiB over {done:.0f} actions",
                        max(a - b for a, b in zip(after, before)), None)
            results.add(label, tag + "worker RSS MiB (largest, after)", max(after), None)
    finally:
        server.stop()
        folder.cleanup()
    if backend == "sqlite":
        rate, p50, p99, mean = writers(tree, 4, args.seconds)
        results.add(label, tag + "4 writer processes, no HTTP: txn/s", rate, None)
        results.add(label, tag + "4 writer processes: p50 ms", p50 * 1000, None)
        results.add(label, tag + "4 writer processes: mean ms", mean * 1000, None)
        results.add(label, tag + "4 writer processes: p99 ms", p99 * 1000, None)
        results.add(label, tag + "4 writer processes: p99 / p50", p99 / p50, None)
    if backend == "postgresql":
        results.add(label, tag + "round trips per action",
                    round_trips(tree, database.url, args.trip_actions), ("<=", 3))


def lock_waits(url: str, stop: threading.Event, out: list[int]) -> None:
    """Sample (every 20 ms, until ``stop``) how many backends of the database wait on
    a lock (pg_stat_activity, wait_event_type 'Lock'): one count per sample."""
    import psycopg
    from sqlalchemy.engine import make_url
    parsed = make_url(url)
    with psycopg.connect(parsed.set(drivername="postgresql").render_as_string(
            hide_password=False), autocommit=True) as connection:
        while not stop.is_set():
            out.append(connection.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = %s"
                " AND wait_event_type = 'Lock'", (parsed.database,)).fetchone()[0])
            time.sleep(0.02)


def postgres_cpu() -> float:
    """Seconds of CPU (user + system) every process named postgres on this machine has
    used so far (the backends of the server under test, and whatever else the local
    PostgreSQL does meanwhile)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "comm").read_text().startswith("postgres"):
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
                total += (int(fields[11]) + int(fields[12])) / HZ
        except OSError:  # gone meanwhile
            pass
    return total


def action_durations(log: Path, offset: int) -> list[float]:
    """The server-side durations (ms, sorted) of the action POSTs that ``log`` (the
    workers' request log) records after byte ``offset``: from the app's first hook to
    its last (``duration_ms``), the time a request waits on the database and behind its
    worker's other requests included, the client's own time not."""
    durations = []
    with log.open("rb") as lines:
        lines.seek(offset)
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:  # not a request log line (a warning, a traceback)
                continue
            if (isinstance(entry, dict) and entry.get("method") == "POST"
                    and entry.get("route") == "/v1/games/<game_id>/actions"):
                durations.append(float(entry["duration_ms"]))
    if not durations:
        raise RuntimeError(f"the request log {log} records no action POST")
    return sorted(durations)


def race_round(tree: Path, label: str, backend: str, database: Database, args,
               results: Results) -> None:
    """Halves races (``--race-players`` seats, ``--race-games`` games side by side, one
    client thread per seat, service.play.Racer): the p50 of an action POST in the
    server (the request log) and of a play POST at the client, on PostgreSQL the
    server's ratio to SQLite's in the same round [<= 1.5] and the backends waiting on
    a lock (sampled every 20 ms); the server's CPU per accepted play (the workers, and
    on PostgreSQL every postgres process) and the requests per accepted
    play (legal-actions GETs and POSTs: a seat asks again after each refusal and after
    each event its stream wakes it for)."""
    import random
    from service.play import HTTPTransport, Racer
    folder = tempfile.TemporaryDirectory(prefix="bench-race-")
    log = Path(folder.name) / "requests.log"
    server = Server(tree, database.url, args.workers, log=log)
    tag = f"[{backend}] "
    options = {"players": args.race_players}
    waits: list[int] = []
    stop = threading.Event()
    try:
        Racer(lambda: HTTPTransport(server.base), random.Random(0)).race(
            "halves", 1, options, 1)  # warm up
        sampler = None
        if backend == "postgresql":
            sampler = threading.Thread(target=lock_waits, args=(database.url, stop, waits),
                                       daemon=True)
            sampler.start()
        racer = Racer(lambda: HTTPTransport(server.base), random.Random(1))
        logged = log.stat().st_size  # the warm-up's requests are before this

        def backends_cpu() -> float:  # on PostgreSQL: its processes work for the server
            return postgres_cpu() if backend == "postgresql" else 0.0

        workers, backends = server.cpu(), backends_cpu()
        deadline = time.monotonic() + args.seconds
        while time.monotonic() < deadline:
            racer.race("halves", args.race_games, options, args.race_games)
        workers, backends = server.cpu() - workers, backends_cpu() - backends
        stop.set()
        if sampler is not None:
            sampler.join()
    finally:
        stop.set()
        server.stop()
    plays = sorted(racer.stats.play_seconds)
    if not plays:
        raise RuntimeError(f"no play in the race: {racer.stats.error_samples[:3]}")
    served = action_durations(log, logged)
    folder.cleanup()
    p50 = plays[len(plays) // 2]
    results.add(label, tag + "race play POST p50 ms (client)", p50 * 1000, None)
    results.add(label, tag + "race play POST p99 ms (client)",
                plays[int(len(plays) * .99)] * 1000, None)
    served_p50 = served[len(served) // 2]
    results.add(label, tag + "race action POST p50 ms (server)", served_p50, None)
    results.add(label, tag + "race action POST p99 ms (server)",
                served[int(len(served) * .99)], None)
    accepted = max(racer.stats.accepted["play"], 1)
    results.add(label, tag + "race: server CPU ms per accepted play",
                (workers + backends) * 1000 / accepted, None)
    if backend == "postgresql":
        results.add(label, tag + "race: of which postgres processes' CPU ms",
                    backends * 1000 / accepted, None)
    results.add(label, tag + "race: requests per accepted play",
                racer.stats.requests / accepted, None)
    if backend == "postgresql":
        sqlite = results.values.get((label, "[sqlite] race play POST p50 ms (client)"))
        if sqlite:
            results.add(label, "race play POST p50 PostgreSQL / SQLite (client)",
                        p50 * 1000 / sqlite[-1], None)
        sqlite = results.values.get((label, "[sqlite] race action POST p50 ms (server)"))
        if sqlite:
            results.add(label, "race action POST p50 PostgreSQL / SQLite (server)",
                        served_p50 / sqlite[-1], ("<=", 1.5))
        results.add(label, tag + "race: backends waiting on a lock (mean of samples)",
                    statistics.mean(waits) if waits else 0.0, None)
        results.add(label, tag + "race: backends waiting on a lock (max)",
                    max(waits, default=0), None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--games", type=int, default=16, help="clients in parallel")
    parser.add_argument("--samples", type=int, default=40, help="long/short samples")
    parser.add_argument("--long-events", type=int, default=2000)
    parser.add_argument("--memory-actions", type=int, default=10000)
    parser.add_argument("--trip-actions", type=int, default=60)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--race-players", type=int, default=4)
    parser.add_argument("--race-games", type=int, default=4, help="races side by side")
    parser.add_argument("--skip-race", action="store_true")
    parser.add_argument("--skip-durable", action="store_true")
    parser.add_argument("--skip-stateless", action="store_true")
    parser.add_argument("--baseline", type=Path, help="a checkout to compare with")
    parser.add_argument("--pg-url", default=os.environ.get("TEST_DATABASE_URL", DEFAULT_PG))
    parser.add_argument("--round-trips", help=argparse.SUPPRESS)
    parser.add_argument("--actions", type=float, default=60, help=argparse.SUPPRESS)
    parser.add_argument("--writers", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.round_trips or args.writers:
        sys.path.insert(0, os.getcwd())
        if args.writers:
            _writers(args.writers, args.actions)
        else:
            _count_round_trips(args.round_trips, int(args.actions))
        return
    sys.path.insert(0, str(ROOT))
    import service.store.db  # noqa: F401 - imported once, before the client processes fork
    trees = [("this tree", ROOT)]
    if args.baseline:
        trees.insert(0, ("baseline", args.baseline.resolve()))
    print(f"bench_speed: {os.cpu_count()} CPUs, gunicorn --workers {args.workers} (gevent), "
          f"{args.games} clients in {min(args.games, CLIENT_PROCESSES)} processes, "
          f"{args.seconds:g} s per figure, {args.rounds} rounds, trees: "
          + ", ".join(f"{label}={path}" for label, path in trees), flush=True)
    results = Results()
    for round_ in range(args.rounds):
        in_turn = trees if round_ % 2 == 0 else trees[::-1]
        if not args.skip_stateless:
            for label, tree in in_turn:
                stateless_round(tree, label, args, results)
                print(f"  stateless {label} done", flush=True)
        for backend in args.backends.split(","):
            backend = backend.strip()
            for label, tree in in_turn:
                database = Database(backend, args.pg_url, tree)
                try:
                    if not args.skip_durable:
                        durable_round(tree, label, backend, database, args, results,
                                      memory=round_ == args.rounds - 1)
                    if not args.skip_race:
                        race_round(tree, label, backend, database, args, results)
                finally:
                    database.drop()
                print(f"  {backend} {label} done", flush=True)
        print(f"round {round_ + 1} done", flush=True)
        results.print([label for label, _ in trees])


if __name__ == "__main__":
    main()

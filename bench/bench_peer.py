"""The peer benchmark of issue 23: our durable actions against boardgame.io's, at 4 and
16 concurrent games, in throughput and in server CPU per action (run by hand).

    npm ci --prefix bench/peer          # once: boardgame.io 0.50.2 (bench/peer/package.json)
    .venv/bin/python bench/bench_peer.py [--seconds 3] [--rounds 2] [--games 4,16]
        [--backends sqlite,postgresql] [--workers 4] [--pg-url URL]

Ours: bench_speed.py's server (gunicorn, gevent workers, ``--workers``) on a fresh
migrated database per backend and round, its scripted 2-Way Cards clients (one client
process per game, up to 16, each action POSTed with ``expected_version`` and an
``Idempotency-Key``, each reply awaited), worker CPU from /proc (bench_speed.measured).

Theirs: bench/peer/server.js (boardgame.io 0.50.2's Server, node, NODE_ENV=production)
serving bench/peer/game.js, a grid game of the same shape (place, place, draw, discard a
turn, 99 moves a match, as ours: 99 actions a game), driven by bench/peer/driver.js (one
node process, a socket.io connection per game, each move's new state awaited before the
next move; boardgame.io sends a move's new state before its writes finish, but takes
the match's next move only after them, so what is counted is durable, give or take
the last move of each match at the window's end), the node process's CPU from /proc
(its threads included, as for the gunicorn workers). Three stores: FlatFile as shipped
(node-persist 3.1's write queue, which paces a lone match at ~1 move/s: its figures
swing from run to run), FlatFile with that queue off (``--write-through``: each write to
its file at once), and, for reference, the in-memory store. Before the runs,
``driver.js --check`` plays one match (write-through FlatFile) through bad moves, which
the server must refuse, to its 99th move.

Each round runs ours and theirs one after the other, each at every ``--games`` count
(after 1 s of warm-up play), so the machine's load (2 cores, shared) hits both alike.
Printed per concurrency, as the range over the rounds: actions/s ours, moves/s theirs,
ours / theirs [target >= 1]; server CPU ms per action ours and theirs, theirs / ours
[target >= 1]; ratios taken within a round. The clients' own CPU per action is shown
too (not counted: ours, 16 Python processes at most; theirs, one node process), as it
takes the same 2 cores from the servers. Creating games (ours: POST /v1/games and a
GET per seat; theirs: create, two joins, a sync) is charged to the actions on both sides.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_speed  # noqa: E402 - bench/ is put on the path just above

PEER = HERE / "peer"
ROOT = HERE.parent
THEIRS = {"FlatFile": ["--dir"], "FlatFile write-through": ["--dir", "--write-through"],
          "in-memory": ["--memory"]}
HEADLINE = ["FlatFile", "FlatFile write-through"]  # the durable stores, held to the target


class PeerServer:
    """bench/peer/server.js on a free port, the FlatFile data in a temporary directory."""

    def __init__(self, flags: list[str]):
        self.dir = tempfile.mkdtemp(prefix="bench-peer-")
        args: list[str] = []
        for flag in flags:
            args += [flag, f"{self.dir}/data"] if flag == "--dir" else [flag]
        self.port = bench_speed.free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process = subprocess.Popen(
            ["node", "server.js", "--port", str(self.port), *args], cwd=PEER,
            env={**os.environ, "NODE_ENV": "production"}, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True)
        line = self.process.stdout.readline()  # "listening <port>", or "" if it died
        if not line.startswith("listening"):
            self.stop()
            raise RuntimeError(f"server.js did not start ({' '.join(args)})")

    def drive(self, *args: str) -> dict:
        done = subprocess.run(["node", "driver.js", "--url", self.url, *args], cwd=PEER,
                              capture_output=True, text=True, check=False)
        if done.returncode:
            raise RuntimeError(f"driver.js {' '.join(args)}: {done.stderr[-2000:]}")
        return json.loads(done.stdout.splitlines()[-1])

    def play(self, games: int, seconds: float, finished: set) -> tuple[float, float, float]:
        """(moves/s, server CPU s per move, driver CPU s per move) of ``games``
        concurrent games; ``finished`` gets the move counts of the matches played out."""
        out = self.drive("--pid", str(self.process.pid), "--games", str(games),
                         "--seconds", str(seconds), "--warmup", "1",
                         "--hz", str(bench_speed.HZ))
        finished.update(out["moves_per_finished_match"])
        return (out["moves_per_s"], out["cpu_ms_per_move"] / 1000,
                out["driver_cpu_ms_per_move"] / 1000)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=20)
        shutil.rmtree(self.dir, ignore_errors=True)


def actions_per_game(base: str) -> int:
    """The actions of one of our scripted games, played to its end."""
    connection = bench_speed.Connection(base)
    game, count = bench_speed.Game(connection.call), 0
    while game.status == "active":
        game.step()
        count += 1
    connection.close()
    return count


def clients_cpu() -> float:
    """CPU seconds of this process's finished children: bench_speed.load's client
    processes, once joined."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def ours(backend: str, args, figures: dict, counts: dict) -> None:
    database = bench_speed.Database(backend, args.pg_url)
    try:
        server = bench_speed.Server(ROOT, database.url, args.workers)
        try:
            counts.setdefault("ours", actions_per_game(server.base))
            work = bench_speed.playing(server.base)
            for games in args.games:
                bench_speed.load(work, games, 1)  # warm up
                before = clients_cpu()
                rate, _, cpu, _ = bench_speed.measured(server, work, games, args.seconds)
                client = (clients_cpu() - before) / max(rate * args.seconds, 1)
                figures.setdefault((f"ours {backend}", games), []).append((rate, cpu, client))
        finally:
            server.stop()
    finally:
        database.drop()


def theirs(store: str, args, figures: dict, counts: dict) -> None:
    server = PeerServer(THEIRS[store])
    try:
        if "theirs" not in counts and store == "FlatFile write-through":
            check = server.drive("--check")
            counts["theirs"] = check["moves"]
            print(f"  driver.js --check: the server refused {check['refused_moves']} bad "
                  f"moves; the match ended on move {check['moves']}", flush=True)
        for games in args.games:
            figures.setdefault((store, games), []).append(
                server.play(games, args.seconds, counts.setdefault("theirs finished", set())))
    finally:
        server.stop()


def report(figures: dict, args, counts: dict) -> None:
    span = bench_speed.span
    print(f"\nactions per game: ours {counts.get('ours')}, theirs {counts.get('theirs')} "
          f"(moves of every match the driver played out: "
          f"{sorted(counts.get('theirs finished', []))})")
    for games in args.games:
        print(f"\n{games} concurrent games ({len(figures[(HEADLINE[0], games)])} rounds; "
              "ranges over the rounds)")
        rows = [(f"ours {b}", figures[(f"ours {b}", games)]) for b in args.backends]
        rows += [(f"boardgame.io {s}", figures[(s, games)]) for s in THEIRS]
        for name, values in rows:
            print(f"  {name:36} {span([v[0] for v in values], '{:.0f}'):>10} actions/s  "
                  f"{span([v[1] * 1000 for v in values]):>10} server CPU ms/action  "
                  f"(clients: {span([v[2] * 1000 for v in values])} ms/action)")
        for backend in args.backends:
            mine = figures[(f"ours {backend}", games)]
            for store in HEADLINE:
                other = figures[(store, games)]
                speed = [a[0] / b[0] for a, b in zip(mine, other)]
                cpu = [b[1] / a[1] for a, b in zip(mine, other)]
                print(f"  {backend} vs {store}:".ljust(39)
                      + f"{span(speed) + verdict(speed):>17} actions/s ours/theirs  "
                      f"{span(cpu) + verdict(cpu):>17} CPU theirs/ours  (targets >= 1)")
            memory = figures[("in-memory", games)]
            print(f"  {backend} vs in-memory (reference):".ljust(39)
                  + f"{span([a[0] / b[0] for a, b in zip(mine, memory)]):>17} "
                  f"actions/s ours/theirs  {span([b[1] / a[1] for a, b in zip(mine, memory)]):>17}"
                  " CPU theirs/ours")


def verdict(values: list[float]) -> str:
    return " pass" if min(values) >= 1 else " FAIL"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--games", default="4,16", help="concurrent games, comma-separated")
    parser.add_argument("--backends", default="sqlite")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--pg-url", default=os.environ.get("TEST_DATABASE_URL",
                                                           bench_speed.DEFAULT_PG))
    args = parser.parse_args()
    args.games = [int(g) for g in args.games.split(",")]
    args.backends = [b.strip() for b in args.backends.split(",")]
    if not (PEER / "node_modules" / "boardgame.io").is_dir():
        print("bench_peer: boardgame.io is not installed; run first:\n"
              "    npm ci --prefix bench/peer", file=sys.stderr)
        sys.exit(2)
    if shutil.which("node") is None:
        print("bench_peer: node (Node.js 18 or later) is not on PATH", file=sys.stderr)
        sys.exit(2)
    sys.path.insert(0, str(ROOT))
    import service.store.db  # noqa: F401 - imported once, before the client processes fork
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout
    print(f"bench_peer: {os.cpu_count()} CPUs, node {node.strip()}, gunicorn --workers "
          f"{args.workers} (gevent), games {args.games}, {args.seconds:g} s per figure, "
          f"{args.rounds} rounds, backends {','.join(args.backends)}", flush=True)
    figures: dict = {}
    counts: dict = {}
    started = time.monotonic()
    for round_ in range(args.rounds):
        for backend in args.backends:
            ours(backend, args, figures, counts)
            print(f"  ours {backend} done", flush=True)
        for store in THEIRS:
            theirs(store, args, figures, counts)
            print(f"  boardgame.io {store} done", flush=True)
        print(f"round {round_ + 1} done ({time.monotonic() - started:.0f} s)", flush=True)
    report(figures, args, counts)


if __name__ == "__main__":
    main()

"""Growth (issue 23, target 6): an action's latency does not grow with the game's log
nor with the number of games stored (run by hand; prints ratios measured in one run).

    .venv/bin/python bench/bench_growth.py [--backends sqlite,postgresql]
        [--small 1000] [--large 100000] [--samples 200] [--long-events 10000]
        [--long-samples 40] [--workers 2] [--pg-url URL]

Per backend:

1. **Stored games**: two fresh databases migrated by Alembic, one holding ``--small``
   games, the other ``--large``. Each is filled from a template game played over HTTP
   (created, 12 scripted actions with ``Idempotency-Key``s: its seats, events and
   idempotency records), copied in SQL with new ids and token hashes (ids scrambled,
   so they land all over the primary key's index as random ids do); PostgreSQL is
   ANALYZEd after the fill. A gunicorn server (as ``make serve``: gevent workers,
   ``--workers`` each) serves each database, both at once; one client times the same
   requests alternately on the two, so the machine's load drifts over both alike:
   creating a game (POST /v1/games), reading a seat's view (GET /v1/games/{id}) and a
   scripted action (POST .../actions with ``expected_version`` and an
   ``Idempotency-Key``). Printed: each request's median latency on both and the
   ratio large / small [<= 1.2].
2. **A long log**: on the large database's server, an action at event
   ~``--long-events`` against one at event ~10, ``--long-samples`` of each timed alternately
   (``bench_speed.long_vs_short``: filler events written straight into the log, the
   snapshot the game's own) [<= 1.2].
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from bench_speed import DEFAULT_PG, Connection, Database, Game, Server, long_vs_short  # noqa: E402

TEMPLATE_ACTIONS = 12  # the template game's actions (its events, its idempotency records)
FILL_CHUNK = 10_000  # games copied per statement

# the k-th copy's id: 8 hex digits scrambled by a multiplicative hash, then k itself
# (unique): 32 characters, the id column's width
_COPY_ID = {
    "sqlite": "printf('%08x', (n.k * 2654435761) % 4294967296) || printf('%024d', n.k)",
    "postgresql": "lpad(to_hex((n.k * 2654435761) % 4294967296), 8, '0')"
    " || lpad(n.k::text, 24, '0')",
}
_NUMBERS = {
    "sqlite": "WITH RECURSIVE n(k) AS (SELECT :first UNION ALL SELECT k + 1 FROM n "
    "WHERE k < :last) ",
    "postgresql": "WITH n(k) AS (SELECT generate_series(CAST(:first AS bigint), "
    "CAST(:last AS bigint))) ",
}


def fill(url: str, backend: str, template: str, count: int) -> tuple[int, float]:
    """Copy the game ``template`` (its row, seats, events and idempotency records)
    ``count`` times with new ids and token hashes: (games stored now, seconds taken)."""
    from sqlalchemy import text

    from service.store.db import make_engine

    copy_id, numbers = _COPY_ID[backend], _NUMBERS[backend]
    statements = [
        "INSERT INTO games (id, game, options, status, version, snapshot, last_seq, seed,"
        " referee_token_hash, credentials, names, imported, created_at, updated_at)"
        f" SELECT {copy_id}, game, options, status, version, snapshot, last_seq, seed,"
        f" {copy_id} || {copy_id}, credentials, names, imported, created_at, updated_at"
        " FROM games, n WHERE games.id = :template",
        "INSERT INTO seats (game_id, seat, token_hash)"
        f" SELECT {copy_id}, seat, {copy_id} || substr(token_hash, 33, 32)"
        " FROM seats, n WHERE seats.game_id = :template",
        "INSERT INTO events (game_id, seq, type, seat, payload, actor, action, created_at)"
        f" SELECT {copy_id}, seq, type, seat, payload, actor, action, created_at"
        " FROM events, n WHERE events.game_id = :template",
        "INSERT INTO idempotency_keys (game_id, actor, key, request_hash, state,"
        " status_code, response_body, version, first_seq, last_seq, created_at)"
        f" SELECT {copy_id}, actor, key, request_hash, state, status_code, response_body,"
        " version, first_seq, last_seq, created_at"
        " FROM idempotency_keys, n WHERE idempotency_keys.game_id = :template",
    ]
    engine = make_engine(url)
    began = time.perf_counter()
    for first in range(1, count + 1, FILL_CHUNK):
        last = min(first + FILL_CHUNK - 1, count)
        with engine.begin() as connection:
            for statement in statements:
                connection.execute(
                    text(numbers + statement), {"first": first, "last": last, "template": template}
                )
    if backend == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            connection.execute(text("ANALYZE"))
    seconds = time.perf_counter() - began
    with engine.connect() as connection:
        stored = connection.execute(text("SELECT count(*) FROM games")).scalar_one()
    engine.dispose()
    return stored, seconds


def template_game(base: str) -> str:
    """A game played over HTTP for :data:`TEMPLATE_ACTIONS` actions; its id."""
    connection = Connection(base)
    game = Game(connection.call)
    for _ in range(TEMPLATE_ACTIONS):
        game.step()
    connection.close()
    return game.id


def timed_pair(servers: list[Server], samples: int) -> dict[str, list[list[float]]]:
    """Each request kind's latencies (seconds) on each server, timed alternately."""
    connections = [Connection(server.base) for server in servers]
    kinds: dict[str, list[list[float]]] = {
        "create a game": [[] for _ in servers],
        "read a seat's view": [[] for _ in servers],
        "an action": [[] for _ in servers],
    }
    games: list[Game | None] = [None for _ in servers]

    def timed(out: list[float], fn: Callable[[], object]) -> None:
        began = time.perf_counter()
        fn()
        out.append(time.perf_counter() - began)

    for i in range(samples):
        for s, connection in enumerate(connections):
            game = games[s]
            if i % 8 == 0 or game is None or game.status != "active":
                began = time.perf_counter()
                game = games[s] = Game(connection.call)  # a create and a GET per seat
                kinds["create a game"][s].append(time.perf_counter() - began)
            seat = game.latest["turn"]
            view = partial(connection.call, "GET", f"/v1/games/{game.id}", None, game._auth(seat))
            timed(kinds["read a seat's view"][s], view)
            timed(kinds["an action"][s], game.step)
    for connection in connections:
        connection.close()
    return kinds


def run_backend(backend: str, args: argparse.Namespace) -> list[tuple[str, float, float]]:
    """(figure, value, bound) rows for one backend."""
    rows: list[tuple[str, float, float]] = []
    databases = [Database(backend, args.pg_url) for _ in (args.small, args.large)]
    servers: list[Server] = []
    try:
        for database, count in zip(databases, (args.small, args.large)):
            server = Server(ROOT, database.url, args.workers)
            servers.append(server)
            template = template_game(server.base)
            stored, seconds = fill(database.url, backend, template, count - 1)
            print(f"  [{backend}] {stored:,} games stored (filled in {seconds:.0f} s)", flush=True)
        kinds = timed_pair(servers, args.samples)
        for kind, (small, large) in kinds.items():
            a, b = statistics.median(small), statistics.median(large)
            print(
                f"  [{backend}] {kind}: median {a * 1000:.2f} ms with {args.small:,} games,"
                f" {b * 1000:.2f} ms with {args.large:,}",
                flush=True,
            )
            rows.append((f"[{backend}] {kind}, {args.large:,} / {args.small:,} games", b / a, 1.2))
        ratio = long_vs_short(
            servers[1].base, databases[1].url, args.long_samples, args.long_events
        )
        rows.append((f"[{backend}] an action at event ~{args.long_events:,} / ~10", ratio, 1.2))
    finally:
        for server in servers:
            server.stop()
        for database in databases:
            database.drop()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--long-events", type=int, default=10_000)
    parser.add_argument(
        "--long-samples",
        type=int,
        default=40,
        help="actions timed on the long game (a game ends after ~70)",
    )
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pg-url", default=os.environ.get("TEST_DATABASE_URL", DEFAULT_PG))
    args = parser.parse_args()
    print(
        f"bench_growth: {os.cpu_count()} CPUs, {args.small:,} vs {args.large:,} stored "
        f"games, {args.samples} samples, a log of ~{args.long_events:,} events",
        flush=True,
    )
    rows = [
        row for backend in args.backends.split(",") for row in run_backend(backend.strip(), args)
    ]
    width = max(len(name) for name, _, _ in rows)
    print(f"\n{'figure':{width}}  ratio  target")
    for name, value, bound in rows:
        verdict = "pass" if value <= bound else "FAIL"
        print(f"{name:{width}}  {value:5.2f}  <= {bound:g} {verdict}")


if __name__ == "__main__":
    main()

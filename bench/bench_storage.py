"""Measure what the game store keeps per action and per finished game (run by hand).

    .venv/bin/python bench/bench_storage.py [--games 10] [--game two-way] [--seed 1]
        [--backends sqlite,postgresql] [--pg-url postgresql+psycopg://postgres@127.0.0.1:5432/test]

For each backend, on a fresh database migrated by Alembic (PostgreSQL: a randomly
named database created from --pg-url / TEST_DATABASE_URL and dropped at the end),
``service.play`` plays ``--games`` whole games in process (Flask test client, no
sockets), every action POSTed with an ``Idempotency-Key`` as the play client does.
Then, per table: rows and bytes, where bytes are

* PostgreSQL: ``pg_total_relation_size`` (heap, TOAST and indexes) after ``VACUUM
  FULL`` (so the figure is what the rows take, not dead versions of the snapshot);
* SQLite: the ``dbstat`` virtual table (pages of the table and its indexes, bytes
  in use) after ``VACUUM``.

Printed: bytes per action of ``idempotency_keys`` (every action carries a key) and
of ``events``, and the bytes per finished game of the whole database (all tables
over the games). The ratio column compares idempotency bytes per action with event
bytes per action measured in the same run (the record itself is the baseline).
Needs nothing of a particular release: it drives the public API only, so the same
script measures an older checkout (``PYTHONPATH=<checkout> python bench_storage.py``).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import sys
import tempfile
from pathlib import Path

ROOT = Path(os.environ.get("PYTHONPATH", "").split(os.pathsep)[0] or
            Path(__file__).resolve().parent.parent)
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from service import create_app  # noqa: E402
from service.play import Player, Reply  # noqa: E402
from service.store import get_store  # noqa: E402

TABLES = ("games", "seats", "events", "idempotency_keys")


class ClientTransport:
    """service.play.Transport over a Flask test client."""

    def __init__(self, client):
        self.client = client

    def request(self, method, path, body=None, headers=None) -> Reply:
        response = self.client.open(path, method=method, json=body, headers=headers or {})
        data = response.get_data()
        return Reply(response.status_code, json.loads(data) if data else None,
                     {k.lower(): v for k, v in response.headers.items()})


def migrate(url: str) -> None:
    from alembic import command
    from alembic.config import Config

    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["url"] = url
    config.attributes["configure_logger"] = False
    command.upgrade(config, "head")


def table_bytes(url: str) -> dict[str, tuple[int, int]]:
    """table -> (rows, bytes), see the module docstring."""
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    out = {}
    try:
        with engine.connect() as connection:
            if engine.dialect.name == "postgresql":
                connection.execute(text("VACUUM FULL"))
            else:
                connection.execute(text("VACUUM"))
            for table in TABLES:
                rows = connection.execute(text(f"SELECT count(*) FROM {table}")).scalar()
                if engine.dialect.name == "postgresql":
                    size = connection.execute(
                        text("SELECT pg_total_relation_size(:t)"), {"t": table}).scalar()
                else:
                    size = connection.execute(text(
                        "SELECT coalesce(sum(pgsize - unused), 0) FROM dbstat "
                        "WHERE name = :t OR name IN (SELECT name FROM sqlite_master "
                        "WHERE type = 'index' AND tbl_name = :t)"), {"t": table}).scalar()
                out[table] = (rows, size)
    finally:
        engine.dispose()
    return out


def measure(url: str, game: str, games: int, seed: int, options: dict) -> None:
    migrate(url)
    app = create_app({"TESTING": True, "DATABASE_URL": url, "RATELIMIT_ENABLED": False})
    player = Player(ClientTransport(app.test_client()), random.Random(seed), 0.1)
    stats = player.play(game, games, options)
    get_store(app).dispose()
    if stats.errors:
        raise SystemExit(f"the games did not play cleanly: {stats.error_samples[:3]}")
    sizes = table_bytes(url)
    actions = sizes["idempotency_keys"][0] or stats.actions
    total = sum(size for _, size in sizes.values())
    print(f"  {games} games, {stats.actions} actions")
    for table, (rows, size) in sizes.items():
        print(f"  {table:18} {rows:7} rows {size:11,} bytes")
    keys, events = sizes["idempotency_keys"][1], sizes["events"][1]
    print(f"  idempotency bytes/action {keys / actions:9.0f}   "
          f"event bytes/action {events / stats.actions:6.0f}   "
          f"ratio {keys / events:.2f}")
    print(f"  bytes/finished game {total / games:12,.0f}   "
          f"without idempotency records {(total - keys) / games:12,.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--game", default="two-way")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--pg-url", default=os.environ.get(
        "TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"))
    args = parser.parse_args()
    options = {"players": args.players} if args.players else {}
    for backend in args.backends.split(","):
        print(f"{backend}: {args.game}")
        if backend == "sqlite":
            with tempfile.TemporaryDirectory() as tmp:
                measure(f"sqlite:///{tmp}/storage.sqlite3", args.game, args.games,
                        args.seed, options)
            continue
        name = f"bench_storage_{secrets.token_hex(4)}"
        admin = create_engine(args.pg_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            measure(make_url(args.pg_url).set(database=name).render_as_string(
                hide_password=False), args.game, args.games, args.seed, options)
        finally:
            with admin.connect() as connection:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()


if __name__ == "__main__":
    main()

"""Benchmark the game store: an action costs the same at move 1000 as at move 1
(run by hand; prints figures and ratios measured in the same run).

    .venv/bin/python bench/bench_store_actions.py [--moves 1000] [--window 100]

For each backend (a temp SQLite file; PostgreSQL too when TEST_DATABASE_URL is set, in a
randomly named database created and dropped here), one "counter" game (the test engine
in tests/fake_engine.py) takes ``--moves`` actions through the Flask test client (whole
HTTP stack, in process, one thread). Printed: the median time of an action in the
first and the last ``--window`` moves and their ratio (target ~1.0: the snapshot is
folded, the log is never replayed), and the median of GET /events?after=<last> for
contrast with a full-log GET /events at the end.
"""
from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from alembic import command  # noqa: E402
from alembic.config import Config  # noqa: E402
from sqlalchemy import create_engine, text  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from service import create_app, games  # noqa: E402
from service.store import get_store  # noqa: E402


def migrate(url: str) -> None:
    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["url"] = url
    config.attributes["configure_logger"] = False
    command.upgrade(config, "head")


def run(url: str, moves: int, window: int) -> dict:
    migrate(url)
    app = create_app({"DATABASE_URL": url})
    client = app.test_client()
    created = client.post("/v1/games", json={"game": "counter",
                                             "options": {"target": 1000}}).get_json()
    auth = {"Authorization": f"Bearer {created['referee_token']}"}
    url_actions = f"/v1/games/{created['id']}/actions"
    timings = []
    for version in range(1, moves + 1):
        start = time.perf_counter()
        response = client.post(url_actions, json={"type": "tick", "expected_version": version},
                               headers=auth)
        timings.append(time.perf_counter() - start)
        assert response.status_code == 200, response.get_data(as_text=True)
    start = time.perf_counter()
    client.get(f"/v1/games/{created['id']}/events", headers=auth)
    full_log = time.perf_counter() - start
    assert get_store(app).replay(created["id"]).ok
    get_store(app).dispose()
    first = statistics.median(timings[:window])
    last = statistics.median(timings[-window:])
    return {"first": first, "last": last, "ratio": last / first, "full_log": full_log}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=1000)
    parser.add_argument("--window", type=int, default=100)
    args = parser.parse_args()
    games.ENGINE_MODULES["counter"] = "fake_engine"
    backends = []
    with tempfile.TemporaryDirectory() as tmp:
        backends.append(("sqlite", f"sqlite:///{tmp}/bench.sqlite3", None))
        admin_url = os.environ.get("TEST_DATABASE_URL")
        name = f"store_bench_{secrets.token_hex(6)}"
        if admin_url:
            admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
            with admin.connect() as connection:
                connection.execute(text(f'CREATE DATABASE "{name}"'))
            backends.append(("postgresql", make_url(admin_url).set(database=name)
                             .render_as_string(hide_password=False), admin))
        try:
            for label, url, _ in backends:
                figures = run(url, args.moves, args.window)
                print(f"{label:10s} action median: first {args.window} "
                      f"{figures['first'] * 1000:.2f} ms, last {args.window} "
                      f"{figures['last'] * 1000:.2f} ms, ratio last/first "
                      f"{figures['ratio']:.2f} | GET all {args.moves + 4} events "
                      f"{figures['full_log'] * 1000:.1f} ms")
        finally:
            for label, _, admin in backends:
                if admin is not None:
                    with admin.connect() as connection:
                        connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
                    admin.dispose()


if __name__ == "__main__":
    main()

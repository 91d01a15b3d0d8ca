"""Shared fixtures: the app and its test client (database fixtures live in the store
tests' own conftest section below once the store exists)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from flask import Flask

# The tests drive games far faster than people play: rate limits are off for every app
# and gunicorn the tests start (their environment inherits this), except where a test
# turns them on (tests/test_limits.py).
os.environ["RATELIMIT_ENABLED"] = "false"

from service import create_app


@pytest.fixture()
def app():
    """An app on an in-memory SQLite database unless a test asks for another store."""
    return create_app({"TESTING": True, "DATABASE_URL": "sqlite://"})


@pytest.fixture()
def client(app):
    return app.test_client()


# ----- game store: databases built by the Alembic migrations (SQLite and PostgreSQL) -----
# `db_url` is parametrised over "sqlite" (a temp file) and "postgresql" (only when
# TEST_DATABASE_URL is set: each test session creates its own randomly named database
# and drops it at the end, since other test sessions share the server).
import secrets
from pathlib import Path

from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

ROOT = Path(__file__).resolve().parent.parent
_BACKENDS = ["sqlite"] + (["postgresql"] if os.environ.get("TEST_DATABASE_URL") else [])


def migrate(url: str, revision: str = "head", down: bool = False) -> None:
    """Run `alembic upgrade <revision>` (or downgrade) on ``url`` via the command API."""
    from alembic import command
    from alembic.config import Config

    config = Config(str(ROOT / "alembic.ini"))
    config.attributes["url"] = url
    config.attributes["configure_logger"] = False
    (command.downgrade if down else command.upgrade)(config, revision)


@contextmanager
def migrated_app(url: str, **config: Any) -> Iterator[Flask]:
    """An app on ``url`` after migrating it (``config`` added to the app's); its event
    feed closed and its store disposed afterwards."""
    from service.store import get_feed, get_store

    migrate(url)
    app = create_app({"TESTING": True, "DATABASE_URL": url, **config})
    try:
        yield app
    finally:
        get_feed(app).close()
        get_store(app).dispose()


@pytest.fixture(scope="session")
def new_database(tmp_path_factory):
    """A factory: ``new_database(backend)`` -> the URL of a fresh, empty database."""
    created: list[str] = []
    admin_url = os.environ.get("TEST_DATABASE_URL")

    def make(backend: str) -> str:
        if backend == "sqlite":
            path = tmp_path_factory.mktemp("db") / "store.sqlite3"
            return f"sqlite:///{path}"
        name = f"store_test_{secrets.token_hex(6)}"
        admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        admin.dispose()
        created.append(name)
        return make_url(admin_url).set(database=name).render_as_string(hide_password=False)

    yield make
    if created:
        admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            for name in created:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(scope="session", params=_BACKENDS)
def db_url(request, new_database):
    """A migrated database (one per backend per session; tests make their own games)."""
    url = new_database(request.param)
    migrate(url)
    return url


@pytest.fixture()
def counter_engine(monkeypatch):
    """Registers the test engine tests/fake_engine.py as game "counter"."""
    from service import games

    monkeypatch.setitem(games.ENGINE_MODULES, "counter", "fake_engine")
    return "counter"


@pytest.fixture()
def store(db_url, counter_engine):
    """A GameStore on the migrated test database, the "counter" engine registered."""
    from service.store import GameStore

    store = GameStore(db_url)
    yield store
    store.dispose()


@pytest.fixture()
def store_app(db_url, counter_engine):
    """An app on the migrated test database, with the "counter" engine registered."""
    from service.store import get_feed, get_store

    app = create_app({"TESTING": True, "DATABASE_URL": db_url})
    yield app
    get_feed(app).close()
    get_store(app).dispose()


@pytest.fixture()
def store_client(store_app):
    return store_app.test_client()


@pytest.fixture()
def make_game(store_client):
    """Factory: ``make_game(game="counter", options=None, seed=None)`` -> the 201 body of
    POST /v1/games plus ``auth``: {seat or "referee": Authorization headers}."""

    def make(game: str = "counter", options: dict | None = None, seed: str | None = None):
        body = {"game": game, "options": options or {}}
        if seed:
            body["seed"] = seed
        response = store_client.post("/v1/games", json=body)
        assert response.status_code == 201, response.get_data(as_text=True)
        created = response.get_json()
        tokens = {seat: entry["token"] for seat, entry in created["seats"].items()}
        tokens["referee"] = created["referee_token"]
        created["auth"] = {
            who: {"Authorization": f"Bearer {token}"} for who, token in tokens.items()
        }
        return created

    return make


@pytest.fixture(scope="session")
def gunicorn_server(tmp_path_factory):
    """``gunicorn_server(backend)``: gunicorn with 4 workers on a fresh database of that
    backend, started by the first test that asks and shared by the session's tests
    (tests/realtime.py, :class:`Servers`); read its log with ``log_since``."""
    from realtime import Servers

    servers = Servers(tmp_path_factory.mktemp("gunicorn"))
    try:
        yield servers.get
    finally:
        servers.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Debian chromium for every browser test of the run (Playwright's sync
    API allows one running instance per thread, so the test modules share it)."""
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium")
    assert executable, "chromium is not installed (apt-get install chromium; .ci/run does)"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=executable,
            headless=True,
            args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
        )
        yield browser
        browser.close()

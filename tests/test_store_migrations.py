"""Alembic migrations up and down on fresh SQLite and PostgreSQL databases; the models
match them; the database itself keeps events append-only and seqs unique."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.exc import DBAPIError, IntegrityError

from conftest import ROOT, migrate
from service.store import GameStore
from service.store.db import is_conflict, make_engine
from service.store.models import Base

BACKENDS = ["sqlite"] + (["postgresql"] if os.environ.get("TEST_DATABASE_URL") else [])
TABLES = {"games", "seats", "events", "idempotency_keys"}


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_upgrade_head_then_downgrade_base_on_a_fresh_database(new_database, backend):
    url = new_database(backend)
    assert _tables(url) == set()
    migrate(url)
    assert _tables(url) == TABLES | {"alembic_version"}
    migrate(url, "base", down=True)
    assert _tables(url) == {"alembic_version"}
    migrate(url)  # and up again
    assert _tables(url) == TABLES | {"alembic_version"}


def test_models_match_the_migrations(db_url):
    engine = make_engine(db_url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            assert compare_metadata(context, Base.metadata) == []
    finally:
        engine.dispose()


def test_alembic_command_line_reads_database_url(tmp_path):
    """What `make serve` runs: `alembic upgrade head` with DATABASE_URL (and back)."""
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    env = {**os.environ, "DATABASE_URL": url}
    alembic = [sys.executable, "-m", "alembic"]
    for args in (["upgrade", "head"], ["current"]):
        done = subprocess.run(alembic + args, cwd=ROOT, env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    assert "0003_idempotency_retention (head)" in done.stdout
    assert _tables(url) == TABLES | {"alembic_version"}
    done = subprocess.run(alembic + ["downgrade", "base"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert _tables(url) == {"alembic_version"}


def _one_game(url: str) -> tuple[GameStore, str]:
    store = GameStore(url)
    _, body = store.create("counter", {}, "cd" * 32)
    return store, body["id"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_last_seq_is_filled_from_the_events_and_dropped_without_losing_them(
        new_database, backend, counter_engine):
    """0002 adds games.last_seq, filled from each game's events; an action then appends
    right after them. Downgrading drops the column and nothing else (no table copy:
    with foreign keys on, dropping "games" would cascade to its events)."""
    url = new_database(backend)
    migrate(url, "0001_game_store")
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(text(
                "INSERT INTO games (id, game, options, status, version, snapshot, seed, "
                "referee_token_hash, created_at, updated_at) VALUES ('old', 'counter', "
                "'{}', 'active', 1, :snapshot, :seed, 'r', CURRENT_TIMESTAMP, "
                "CURRENT_TIMESTAMP)"), {"snapshot": '{"status": "active"}', "seed": "0" * 64})
            for seq in (1, 2, 3):
                connection.execute(text(
                    "INSERT INTO events (game_id, seq, type, seat, payload, created_at) "
                    "VALUES ('old', :seq, 'x', NULL, '{}', CURRENT_TIMESTAMP)"), {"seq": seq})
        migrate(url)
        with engine.connect() as connection:
            assert connection.execute(text(
                "SELECT last_seq FROM games WHERE id = 'old'")).scalar() == 3
        migrate(url, "0001_game_store", down=True)
        with engine.connect() as connection:
            assert "last_seq" not in {c["name"] for c in inspect(connection).get_columns("games")}
            assert connection.execute(text(
                "SELECT count(*) FROM events WHERE game_id = 'old'")).scalar() == 3
    finally:
        engine.dispose()


def test_an_action_appends_after_last_seq(db_url, counter_engine):
    store, game_id = _one_game(db_url)
    try:
        assert store.read(game_id).last_seq == 4
        store.act(game_id, "north", {"type": "tick"}, 1, lambda outcome: (200, {}))
        record, events = store.events(game_id)
        assert [e.seq for e in events] == [1, 2, 3, 4, 5] and record.last_seq == 5
    finally:
        store.dispose()


def test_events_are_append_only(db_url, counter_engine):
    store, game_id = _one_game(db_url)
    try:
        with pytest.raises(DBAPIError, match="append-only"):
            with store.uow.transaction() as session:
                session.execute(text("UPDATE events SET type = 'forged' WHERE game_id = :g"),
                                {"g": game_id})
        _, events = store.events(game_id)
        assert [e.event["type"] for e in events] == ["game-created", "shuffled", "dealt", "dealt"]
    finally:
        store.dispose()


def test_a_second_event_with_the_same_seq_is_a_retryable_conflict(db_url, counter_engine):
    store, game_id = _one_game(db_url)
    try:
        with pytest.raises(IntegrityError) as caught:
            with store.uow.transaction() as session:
                session.execute(text(
                    "INSERT INTO events (game_id, seq, type, seat, payload, created_at) "
                    "VALUES (:g, 4, 'forged', NULL, '{}', CURRENT_TIMESTAMP)"), {"g": game_id})
        assert is_conflict(caught.value)
    finally:
        store.dispose()


def test_sqlite_connections_use_wal_busy_timeout_and_foreign_keys(new_database):
    url = new_database("sqlite")
    migrate(url)
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 5000
        with pytest.raises(IntegrityError, match="FOREIGN KEY"):
            with engine.begin() as connection:
                connection.exec_driver_sql(
                    "INSERT INTO seats (game_id, seat, token_hash) VALUES ('none', 'x', 'y')")
    finally:
        engine.dispose()


def test_sqlite_ddl_is_transactional(new_database):
    """BEGIN is ours (pysqlite's is off): a rolled-back CREATE TABLE leaves nothing."""
    engine = make_engine(new_database("sqlite"))
    try:
        with pytest.raises(RuntimeError):
            with engine.begin() as connection:
                connection.exec_driver_sql("CREATE TABLE scratch (x INTEGER)")
                raise RuntimeError("roll back")
        assert "scratch" not in inspect(engine).get_table_names()
    finally:
        engine.dispose()

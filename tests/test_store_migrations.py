"""Alembic migrations up and down on fresh SQLite and PostgreSQL databases; the models
match them; the database itself keeps events append-only and seqs unique."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError

from conftest import ROOT, migrate
from service.games import engine as game_engine
from service.store import GameStore, hash_token
from service.store.db import is_conflict, make_engine
from service.store.models import SCHEMA_REVISION, Base, Event, Game, Seat

BACKENDS = ["sqlite"] + (["postgresql"] if os.environ.get("TEST_DATABASE_URL") else [])
TABLES = {"games", "seats", "events", "idempotency_keys", "invitations", "service_keys"}


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
        done = subprocess.run(
            alembic + args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr
    assert f"{SCHEMA_REVISION} (head)" in done.stdout
    assert _tables(url) == TABLES | {"alembic_version"}
    done = subprocess.run(
        alembic + ["downgrade", "base"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert _tables(url) == {"alembic_version"}


def _one_game(url: str) -> tuple[GameStore, str]:
    store = GameStore(url)
    _, body = store.create("counter", {}, "cd" * 32)
    return store, body["id"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_last_seq_is_filled_from_the_events_and_dropped_without_losing_them(
    new_database, backend, counter_engine
):
    """0002 adds games.last_seq, filled from each game's events; an action then appends
    right after them. Downgrading drops the column and nothing else (no table copy:
    with foreign keys on, dropping "games" would cascade to its events)."""
    url = new_database(backend)
    migrate(url, "0001_game_store")
    engine = make_engine(url)
    try:
        with engine.begin() as connection:
            connection.execute(
                text(
                    "INSERT INTO games (id, game, options, status, version, snapshot, seed, "
                    "referee_token_hash, created_at, updated_at) VALUES ('old', 'counter', "
                    "'{}', 'active', 1, :snapshot, :seed, 'r', CURRENT_TIMESTAMP, "
                    "CURRENT_TIMESTAMP)"
                ),
                {"snapshot": '{"status": "active"}', "seed": "0" * 64},
            )
            for seq in (1, 2, 3):
                connection.execute(
                    text(
                        "INSERT INTO events (game_id, seq, type, seat, payload, created_at) "
                        "VALUES ('old', :seq, 'x', NULL, '{}', CURRENT_TIMESTAMP)"
                    ),
                    {"seq": seq},
                )
        migrate(url)
        with engine.connect() as connection:
            assert (
                connection.execute(text("SELECT last_seq FROM games WHERE id = 'old'")).scalar()
                == 3
            )
        migrate(url, "0001_game_store", down=True)
        with engine.connect() as connection:
            assert "last_seq" not in {c["name"] for c in inspect(connection).get_columns("games")}
            assert (
                connection.execute(
                    text("SELECT count(*) FROM events WHERE game_id = 'old'")
                ).scalar()
                == 3
            )
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
                session.execute(
                    text("UPDATE events SET type = 'forged' WHERE game_id = :g"), {"g": game_id}
                )
        _, events = store.events(game_id)
        assert [e.event["type"] for e in events] == ["game-created", "shuffled", "dealt", "dealt"]
    finally:
        store.dispose()


def test_a_second_event_with_the_same_seq_is_a_retryable_conflict(db_url, counter_engine):
    store, game_id = _one_game(db_url)
    try:
        with pytest.raises(IntegrityError) as caught:
            with store.uow.transaction() as session:
                session.execute(
                    text(
                        "INSERT INTO events (game_id, seq, type, seat, payload, created_at) "
                        "VALUES (:g, 4, 'forged', NULL, '{}', CURRENT_TIMESTAMP)"
                    ),
                    {"g": game_id},
                )
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
                    "INSERT INTO seats (game_id, seat, token_hash) VALUES ('none', 'x', 'y')"
                )
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


# ----- 0003: games written by the previous release go on under the new vocabulary -----

OLD_GAMES = json.loads((Path(__file__).parent / "fixtures" / "old_games_0002.json").read_text())[
    "games"
]
OLD_NAMES = {
    "deal",
    "place",
    "draw",
    "discard",
    "cards-dealt",
    "card-drawn",
    "chip-placed",
    "game-finished",
}


def _store_old_games(url: str) -> None:
    """The fixture's games (captured from the previous release's engines) stored as
    that release stored them: events, snapshot, options, version, last_seq, tokens."""
    engine = make_engine(url)
    now = datetime.now(timezone.utc)
    try:
        with engine.begin() as connection:
            for game in OLD_GAMES:
                gid = game["name"]
                connection.execute(
                    Game.__table__.insert().values(
                        id=gid,
                        game=game["game"],
                        options=game["options"],
                        status=game["status"],
                        version=game["version"],
                        snapshot=game["snapshot"],
                        seed=game["seed"],
                        referee_token_hash=hash_token(f"{gid}-referee"),
                        created_at=now,
                        updated_at=now,
                        last_seq=len(game["events"]),
                    )
                )
                connection.execute(
                    Seat.__table__.insert(),
                    [
                        {"game_id": gid, "seat": seat, "token_hash": hash_token(f"{gid}-{seat}")}
                        for seat in game["snapshot"]["seats"]
                    ],
                )
                connection.execute(
                    Event.__table__.insert(),
                    [
                        {
                            "game_id": gid,
                            "seq": seq,
                            "type": e["type"],
                            "seat": e["seat"],
                            "payload": {k: v for k, v in e.items() if k not in ("type", "seat")},
                            "created_at": now,
                        }
                        for seq, e in enumerate(game["events"], 1)
                    ],
                )
    finally:
        engine.dispose()


def _play_to_the_end(store: GameStore, game_id: str, rnd: random.Random) -> int:
    """Random legal actions through the store until the game ends (correct
    declarations first; table draws reported by the referee); returns the count."""
    module = game_engine(store.read(game_id).game)
    for count in range(3000):
        record = store.read(game_id)
        if record.finished:
            return count
        state = record.state
        movers = [
            (
                who,
                [
                    a
                    for a in module.legal_actions(state, who)
                    if a["type"] != "penalty"
                    and not (who != "referee" and a["type"] == "draw" and "card" in a)
                ],
            )
            for who in [*state["seats"], "referee"]
        ]
        who, actions = next((w, a) for w, a in movers if a)
        best = [a for a in actions if a["type"] == "declare"] or actions
        (status, body), _ = store.act(
            game_id,
            who,
            rnd.choice(best),
            record.version,
            lambda outcome: (
                getattr(outcome, "status", 200),
                {"code": getattr(outcome, "code", None)},
            ),
        )
        assert status == 200, body
    raise AssertionError(f"{game_id} did not end")


@pytest.mark.parametrize("backend", BACKENDS)
def test_0003_games_of_the_previous_release_upgrade_and_play_on_to_their_end(new_database, backend):
    """Item 8: games stored at 0002 in the old shape (old event names, old end events,
    old snapshots) are rewritten by 0003: their log folds to their snapshot with the
    new engines, finished ones report the one result shape, and the games in flight
    are played on to their end."""
    url = new_database(backend)
    migrate(url, "0002_games_last_seq")
    _store_old_games(url)
    migrate(url)
    store = GameStore(url)
    try:
        for game in OLD_GAMES:
            report = store.replay(game["name"])
            assert report.ok and report.events == len(game["events"])
            _, events = store.events(game["name"])
            assert not OLD_NAMES & {e.event["type"] for e in events}
            record = store.read(game["name"])
            assert record.version == game["version"] and record.options == record.state["options"]
        assert store.read("two-way-finished").state["result"] == {
            "winners": ["blue"],
            "scores": {"blue": 13, "green": 3},
            "reason": "set-complete",
            "two_way": {"completer": "blue"},
        }
        assert store.read("sequence-finished").state["result"] == {
            "winners": ["p1"],
            "scores": {"p1": 1, "p2": 0, "p3": 0},
            "reason": "sequences",
            "sequence": {"winning_side": "green", "sequences": {"green": 1, "blue": 0, "red": 0}},
        }
        # in flight: the options they were created under (TW-E3 score, SQ-E1 leader)
        assert store.read("two-way-active").state["options"]["win_condition"] == "score"
        assert store.read("two-way-active").state["options"]["first_seat"] == "blue"
        assert store.read("sequence-active").state["options"]["stalemate"] == "most_sequences"
        _, events = store.events("sequence-numbers-table-active")  # the deal reported
        assert [e.event["type"] for e in events[1:12]] == ["dealt"] * 10 + ["turn-started"]
        assert all(len(e.event["cards"]) == 1 for e in events[1:11])
        with pytest.raises(DBAPIError, match="append-only"):
            with store.uow.transaction() as session:
                session.execute(text("UPDATE events SET type = 'forged'"))
        rnd = random.Random(5)
        for name in ("two-way-active", "sequence-active", "sequence-numbers-table-active"):
            assert _play_to_the_end(store, name, rnd) > 0
            record = store.read(name)
            assert record.finished and set(record.state["result"]) >= {
                "winners",
                "scores",
                "reason",
            }
            assert store.replay(name).ok
    finally:
        store.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_0003_downgrade_gives_back_the_previous_release_games(new_database, backend):
    """0003 down restores the old event names, end events and snapshots exactly (for
    games that did not move since), and events stay append-only either way."""
    url = new_database(backend)
    migrate(url, "0002_games_last_seq")
    _store_old_games(url)
    migrate(url)
    migrate(url, "0002_games_last_seq", down=True)
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            for game in OLD_GAMES:
                columns = Event.__table__.c
                rows = connection.execute(
                    select(columns.type, columns.seat, columns.payload)
                    .where(columns.game_id == game["name"])
                    .order_by(columns.seq)
                ).all()
                assert [{"type": r.type, "seat": r.seat, **r.payload} for r in rows] == game[
                    "events"
                ]
                games = Game.__table__  # only the columns 0002 has
                row = connection.execute(
                    select(games.c.snapshot, games.c.options).where(games.c.id == game["name"])
                ).one()
                # what this release's engines add to a state (G-P1 from_position, TW-T4
                # freed, G-T1 timeouts) stays in a downgraded snapshot: the previous
                # release ignores it; everything it had is given back as it was
                snapshot = {k: row.snapshot.get(k) for k in game["snapshot"]}
                assert snapshot == game["snapshot"] and row.options == game["options"]
        with pytest.raises(DBAPIError, match="append-only"):
            with engine.begin() as connection:
                connection.execute(text("UPDATE events SET type = 'forged'"))
    finally:
        engine.dispose()


# ----- 0008: a 2-Way Cards snapshot's manifest as one string -----------------------------


def _snapshot(url: str, game_id: str) -> dict:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            return connection.execute(select(Game.snapshot).where(Game.id == game_id)).scalar_one()
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_0008_two_way_snapshots_keep_the_manifest_as_a_string_down_and_up(new_database, backend):
    """0008 down gives a 2-Way Cards game in flight the manifest of 108 objects the
    previous release kept; up gives the string back, and the game plays on to its end
    with its log folding to its snapshot."""
    url = new_database(backend)
    migrate(url)
    store = GameStore(url)
    try:
        _, body = store.create("two-way", {}, "ab" * 32)
        game_id = body["id"]
        manifest = [dict(t) for t in game_engine("two-way").manifest_of(store.read(game_id).state)]
    finally:
        store.dispose()
    stored = _snapshot(url, game_id)
    assert stored["manifest"] == game_engine("two-way").manifest_text(manifest)
    assert stored["manifest"].count(",") == 107 and stored["manifest"].count("/") == 108

    migrate(url, "0007_imported", down=True)
    old = _snapshot(url, game_id)
    assert old["manifest"] == manifest and len(manifest) == 108
    assert {k: v for k, v in old.items() if k != "manifest"} == {
        k: v for k, v in stored.items() if k != "manifest"
    }

    migrate(url)
    assert _snapshot(url, game_id) == stored
    store = GameStore(url)
    try:
        assert store.replay(game_id).ok
        assert _play_to_the_end(store, game_id, random.Random(8)) > 0
        assert store.replay(game_id).ok
    finally:
        store.dispose()

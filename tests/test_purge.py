"""The purge (issue 11, item 1) on SQLite and PostgreSQL: finished and abandoned games
past their retention go with their seats, events and keys; expired idempotency records
go; a live game is never touched, not even one acted on while the purge runs."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import text, update

from conftest import migrate
from service import create_app
from service.store import get_store
from service.store.models import Game, IdempotencyKey, utcnow
from service.store.retention import purge

DAYS = timedelta(days=1)


def _age(store, game_id, days):
    """Pretend the game's last change was ``days`` ago."""
    with store.uow.transaction() as session:  # (typed: SQLite keeps dates as text)
        session.execute(
            update(Game).where(Game.id == game_id).values(updated_at=utcnow() - days * DAYS)
        )


def _act(client, game, who, body, version, key=None):
    headers = {**game["auth"][who], **({"Idempotency-Key": key} if key else {})}
    response = client.post(
        f"/v1/games/{game['id']}/actions",
        headers=headers,
        json={**body, "expected_version": version},
    )
    assert response.status_code == 200, response.get_data(as_text=True)


def _rows(store, table, game_id):
    with store.uow.transaction(write=False) as session:
        return session.execute(
            text(
                f"SELECT count(*) FROM {table} WHERE {'id' if table == 'games' else 'game_id'} = :g"
            ),
            {"g": game_id},
        ).scalar()


@pytest.fixture()
def store_client(new_database, db_url, counter_engine):
    """A client on a database of its own (the purge sees every game of the database)."""
    url = new_database("postgresql" if db_url.startswith("postgresql") else "sqlite")
    migrate(url)
    app = create_app({"TESTING": True, "DATABASE_URL": url})
    yield app.test_client()
    get_store(app).dispose()


@pytest.fixture()
def games(store_client, make_game):
    """old finished, recent finished, old unfinished (abandoned), recent unfinished."""
    store = get_store(store_client.application)
    made = {name: make_game() for name in ("old_finished", "new_finished", "abandoned", "live")}
    for name in ("old_finished", "new_finished"):
        _act(store_client, made[name], "north", {"type": "resign"}, 1, key=f"k-{name}")
    _act(store_client, made["live"], "north", {"type": "tick"}, 1, key="k-live")
    _age(store, made["old_finished"]["id"], 31)
    _age(store, made["new_finished"]["id"], 29)
    _age(store, made["abandoned"]["id"], 31)
    return made


def test_purge_command_deletes_past_retention_and_keeps_the_rest(store_client, games):
    store = get_store(store_client.application)
    runner = store_client.application.test_cli_runner()
    dry = runner.invoke(args=["purge", "--dry-run"])
    assert dry.exit_code == 0, dry.output
    assert "would delete 1 finished games, 1 abandoned games, 0 expired" in dry.output
    assert _rows(store, "games", games["old_finished"]["id"]) == 1
    result = runner.invoke(args=["purge"])
    assert result.exit_code == 0, result.output
    assert "deleted 1 finished games, 1 abandoned games" in result.output
    for gone in ("old_finished", "abandoned"):
        for table in ("games", "seats", "events", "idempotency_keys"):
            assert _rows(store, table, games[gone]["id"]) == 0, (gone, table)
    for kept in ("new_finished", "live"):
        assert _rows(store, "games", games[kept]["id"]) == 1
        assert _rows(store, "events", games[kept]["id"]) >= 5
    assert _rows(store, "idempotency_keys", games["live"]["id"]) == 1


def test_retention_is_configurable_and_never_keeps_a_kind(store_client, games):
    store = get_store(store_client.application)
    runner = store_client.application.test_cli_runner()
    result = runner.invoke(args=["purge", "--finished-days", "28", "--abandoned-days", "never"])
    assert "deleted 2 finished games, 0 abandoned games" in result.output
    assert _rows(store, "games", games["abandoned"]["id"]) == 1
    assert runner.invoke(args=["purge", "--finished-days", "0"]).exit_code != 0


def test_expired_idempotency_records_are_deleted(store_client, games):
    store = get_store(store_client.application)
    with store.uow.transaction() as session:
        session.execute(
            update(IdempotencyKey)
            .where(IdempotencyKey.game_id == games["live"]["id"])
            .values(created_at=utcnow() - 2 * DAYS)
        )
    report = purge(store, None, None)
    assert (report.finished, report.abandoned, report.idempotency_records) == (0, 0, 1)
    assert _rows(store, "idempotency_keys", games["live"]["id"]) == 0
    assert _rows(store, "idempotency_keys", games["new_finished"]["id"]) == 1  # not expired
    assert _rows(store, "games", games["live"]["id"]) == 1


def test_a_game_acted_on_while_the_purge_runs_is_kept(store_client, games):
    """The purge picks the abandoned game, someone acts on it before the DELETE: the
    DELETE states the condition again and leaves it (with the new action)."""
    store = get_store(store_client.application)
    abandoned = games["abandoned"]

    def act_meanwhile(game_id):
        if game_id == abandoned["id"]:
            _act(store_client, abandoned, "north", {"type": "tick"}, 1)

    report = purge(store, utcnow() - 30 * DAYS, utcnow() - 30 * DAYS, archive=act_meanwhile)
    assert (report.finished, report.abandoned) == (1, 0)
    assert store.read(abandoned["id"]).version == 2


def test_purge_on_a_database_not_migrated_says_so(new_database):
    app = create_app({"TESTING": True, "DATABASE_URL": new_database("sqlite")})
    result = app.test_cli_runner().invoke(args=["purge"])
    assert result.exit_code == 1
    assert "not migrated" in result.output and "alembic upgrade head" in result.output

"""Optimistic actions: the game is read without its lock, outside any transaction
(Actions._act_unlocked), and the write is guarded by the version read; a game moved on
in between makes the write fail whole and the action is done again locked."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.exc import DBAPIError

from service.store import Refused
from service.store.db import is_conflict
from service.store.models import Event, Game, utcnow
from service.store.values import GameMoved

SEED = "0f" * 32


def _render(outcome):
    if isinstance(outcome, Refused):
        return outcome.status, {"code": outcome.code}
    return 200, {"version": outcome.game.version, "seqs": [e.seq for e in outcome.events]}


def _game(store) -> str:
    status, body = store.create("counter", {}, SEED)
    assert status == 201
    return body["id"]


def _log(store, game_id):
    with store.uow.transaction(write=False) as session:
        version = session.execute(select(Game.version).where(Game.id == game_id)).scalar_one()
        seqs = session.execute(
            select(Event.seq).where(Event.game_id == game_id).order_by(Event.seq)
        ).scalars()
        return version, list(seqs)


def test_an_action_overtaken_after_its_read_is_retried_locked(store, monkeypatch):
    """North reads version 1; south's action at version 1 commits before north
    writes: north's write (event 5, version 1 -> 2) must not land; the retry, locked,
    reads version 2 and refuses north's action, based on version 1 (412)."""
    from service.store import actions

    game_id = _game(store)
    real, locks, overtake = actions.lock_game, [], [True]

    def overtaken(connection, game_id_, key=None, lock=True, token=None):
        row = real(connection, game_id_, key, lock, token)
        locks.append(lock)
        if overtake.pop() if overtake else False:  # once: south acts after north's read
            assert store.act(game_id, "south", {"type": "tick"}, 1, _render)[0][0] == 200
        return row

    monkeypatch.setattr(actions, "lock_game", overtaken)
    (status, reply), replayed = store.act(game_id, "north", {"type": "tick"}, 1, _render)
    assert locks == [False, False, True]  # north (optimistic), south, north again (locked)
    assert (status, reply, replayed) == (412, {"code": "version-mismatch"}, False)
    assert _log(store, game_id) == (2, [1, 2, 3, 4, 5])
    assert store.replay(game_id).matches
    # the game is in contention now: its next action locks from the start (no work
    # thrown away), another game's does not
    locks.clear()
    assert store.act(game_id, "north", {"type": "tick"}, 2, _render)[0][0] == 200
    assert locks == [True]
    other = _game(store)
    locks.clear()
    assert store.act(other, "north", {"type": "tick"}, 1, _render)[0][0] == 200
    assert locks == [False]


def test_a_write_from_a_stale_version_fails_whole(store):
    """The version guard alone (no event to collide on): advancing the game from a
    version it is no longer at fails and writes nothing (PostgreSQL: a conflict,
    SQLSTATE 22012; SQLite: GameMoved, from the UPDATE's row count)."""
    game_id = _game(store)
    before = _log(store, game_id)
    params = {
        "target_game": game_id,
        "base_version": 7,  # the game is at 1
        "snapshot_text": "{}",
        "new_status": "over",
        "new_version": 8,
        "new_last_seq": 4,
        "now": utcnow(),
    }
    if store.uow.engine.dialect.name == "postgresql":
        with pytest.raises(DBAPIError) as caught, store.uow.pipelined() as connection:
            store._sql.writes(connection, [], params, None, {})
        assert is_conflict(caught.value)
        assert getattr(caught.value.orig, "sqlstate", None) == "22012"
    else:
        with pytest.raises(GameMoved), store.uow.pipelined() as connection:
            store._sql.writes(connection, [], params, None, {})
    assert _log(store, game_id) == before
    assert store.replay(game_id).matches

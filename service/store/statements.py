"""The game store's helpers over rows and events, and its SQL statements (one
round trip per action where the database allows it)."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from types import ModuleType, SimpleNamespace
from typing import Any

from sqlalchemy import (
    Connection,
    String,
    Text,
    bindparam,
    cast,
    func,
    insert,
    literal,
    select,
    union_all,
    update,
)
from sqlalchemy.dialects import postgresql

from service.games import engine
from service.store import idle
from service.store.models import DONE
from service.store.values import (
    _EVENTS,
    _GAMES,
    _KEYS,
    _SEATS,
    FEED_CHANNEL,
    Applied,
    GameRecord,
    StoredEvent,
    UnknownGame,
)

# ----- helpers --------------------------------------------------------------------


def _engine_for(game: str) -> ModuleType:
    try:
        return engine(game)
    except (KeyError, ImportError) as error:
        raise UnknownGame(game) from error


def _fold_all(module: ModuleType, state: dict[str, Any] | None,
              events: list[dict[str, Any]]) -> dict[str, Any]:
    """The state after ``events`` (at least one) folded onto ``state``."""
    folded = state
    for event in events:
        folded = module.fold(folded, event)
    assert folded is not None, "nothing was folded"
    return folded


def _event_params(game_id: str, seq: int, event: dict[str, Any], now: Any) -> dict[str, Any]:
    """The ``events`` row of ``event`` (its payload: every field but type and seat)."""
    payload = {k: v for k, v in event.items() if k not in ("type", "seat")}
    return {"game_id": game_id, "seq": seq, "type": event["type"], "seat": event.get("seat"),
            "payload": payload, "created_at": now}


def _event_of(row: Any) -> dict[str, Any]:
    """An ``events`` row as the event ``{"type", "seat", ...payload}`` (canonical)."""
    return {"type": row.type, "seat": row.seat, **_canonical(row.payload)}


def _canonical_event(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` as :func:`_event_of` reads it back: type, seat, then the payload."""
    return {"type": event["type"], "seat": event.get("seat"),
            **_canonical({k: v for k, v in event.items() if k not in ("type", "seat")})}


def _canonical(value: Any) -> Any:
    """``value`` as it reads back from a JSON column (lists, not tuples...), every
    object's keys sorted: the same whatever order a backend returns them in
    (PostgreSQL's JSONB reorders keys), so what is rendered from it is too."""
    return json.loads(json.dumps(value, sort_keys=True))


def _json_text(name: str, dialect: str) -> Any:
    """A bind parameter taking JSON already serialised (the snapshot is dumped once,
    for the row and the reply alike): cast to JSONB on PostgreSQL, stored as it is on
    SQLite (whose JSON columns hold the text)."""
    param = bindparam(name, type_=Text)
    return cast(param, postgresql.JSONB) if dialect == "postgresql" else param


# The statements of the hot paths, built once (SQLAlchemy caches their compiled form).
_ACTOR = union_all(  # one indexed lookup per table: (game id, seat or NULL for referee)
    select(_SEATS.c.game_id.label("game_id"), _SEATS.c.seat.label("seat"))
    .where(_SEATS.c.token_hash == bindparam("token_hash")),
    select(_GAMES.c.id, literal(None, String(40)))
    .where(_GAMES.c.referee_token_hash == bindparam("token_hash")))
_READ = (select(_GAMES.c.game, _GAMES.c.options, _GAMES.c.status, _GAMES.c.version,
                _GAMES.c.snapshot, _GAMES.c.last_seq, _GAMES.c.seed, _GAMES.c.updated_at,
                _GAMES.c.names, _GAMES.c.rematch_of, _GAMES.c.rematch)
         .where(_GAMES.c.id == bindparam("game_id")))
_TAKE_OVER = (update(_KEYS).where(_KEYS.c.id == bindparam("key_id"))
              .values(state=DONE, request_hash=bindparam("new_request_hash"),
                      status_code=bindparam("new_status_code"),
                      response_body=bindparam("new_body", type_=_KEYS.c.response_body.type),
                      version=bindparam("new_version"), first_seq=bindparam("new_first_seq"),
                      last_seq=bindparam("new_last_seq"), created_at=bindparam("now")))
_KEY_RECORD = (select(_KEYS.c.id.label("key_id"), _KEYS.c.request_hash.label("key_request_hash"),
                      _KEYS.c.state.label("key_state"),
                      _KEYS.c.status_code.label("key_status_code"),
                      _KEYS.c.response_body.label("key_response_body"),
                      _KEYS.c.version.label("key_version"),
                      _KEYS.c.first_seq.label("key_first_seq"),
                      _KEYS.c.last_seq.label("key_last_seq"),
                      _KEYS.c.created_at.label("key_created_at"))
               .where(_KEYS.c.game_id == bindparam("game_id"),
                      _KEYS.c.actor == bindparam("actor"), _KEYS.c.key == bindparam("key")))
_LAST_SEQS = (select(_GAMES.c.id, _GAMES.c.last_seq, _GAMES.c.credentials)
              .where(_GAMES.c.id.in_(bindparam("ids", expanding=True))))
_EVENT_COLUMNS = ("game_id", "seq", "type", "seat", "payload", "created_at")
_KEY_COLUMNS = ("game_id", "actor", "key", "request_hash", "state", "status_code",
                "response_body", "version", "first_seq", "last_seq", "created_at")


class _Statements:
    """The statements whose form depends on the dialect: JSON text binds, and the
    writes of an action (see :meth:`writes`)."""

    def __init__(self, dialect: str):
        self.dialect = dialect
        self.insert_game = insert(_GAMES).values(snapshot=_json_text("snapshot_text", dialect))
        # (no bind is named after a column: SQLAlchemy would SET such a column of a
        # table written through a CTE from the statement's parameters)
        self.advance = (update(_GAMES).where(_GAMES.c.id == bindparam("target_game"))
                        .values(snapshot=_json_text("snapshot_text", dialect),
                                status=bindparam("new_status"),
                                version=bindparam("new_version"),
                                last_seq=bindparam("new_last_seq"),
                                updated_at=bindparam("now")))
        if dialect == "postgresql":  # the feed's notification, sent at commit
            self.advance = self.advance.returning(
                func.pg_notify(FEED_CHANNEL, bindparam("notify_payload", type_=Text)))
        self._combined: dict[tuple[int, bool, bool], Any] = {}

    def writes(self, connection: Connection, events: list[dict[str, Any]],
               game: dict[str, Any] | None, key: str | None, key_params: dict[str, Any]) -> None:
        """Write an action's outcome: append ``events`` (rows), advance the game
        (``game``: the params of :attr:`advance`; None for a refusal), record the
        reply under the idempotency key (``key``: "insert", "take-over" or None;
        ``key_params``: the row, or the params of the take-over).

        SQLite: one statement each (in process, a statement costs little).
        PostgreSQL: ONE statement, the inserts riding as data-modifying CTEs on the
        UPDATE (or on the key's INSERT for a refusal): one round trip, not three (the
        rare take-over of an abandoned claim is a statement of its own). The UPDATE
        returns ``pg_notify(FEED_CHANNEL, "<game id>:<last_seq>")``: the notification
        is queued by the action's own statement and sent only if it commits."""
        if key == "take-over":
            connection.execute(_TAKE_OVER, key_params)
            key = None
        if self.dialect != "postgresql":
            if events:
                connection.execute(insert(_EVENTS), events)
            if game is not None:
                connection.execute(self.advance, game)
            if key is not None:
                connection.execute(insert(_KEYS), key_params)
            return
        if game is None and key is None:
            return
        params = dict(game or {})
        if game is not None:
            params["notify_payload"] = f"{game['target_game']}:{game['new_last_seq']}"
        for i, row in enumerate(events):
            params.update((f"e{i}_{name}", value) for name, value in row.items())
        if key is not None:
            params.update((f"k_{name}", value) for name, value in key_params.items())
        connection.execute(self._combined_statement(len(events), game is not None,
                                                    key is not None), params)

    def _combined_statement(self, events: int, advance: bool, key: bool) -> Any:
        shape = (events, advance, key)
        statement = self._combined.get(shape)
        if statement is None:
            statement = self._combined[shape] = self._combine(*shape)
        return statement

    def _combine(self, events: int, advance: bool, key: bool) -> Any:
        # one single-row INSERT per event: SQLAlchemy does not cache a multi-row VALUES
        parts = [insert(_EVENTS).values({
            name: bindparam(f"e{i}_{name}", type_=_EVENTS.c[name].type)
            for name in _EVENT_COLUMNS}) for i in range(events)]
        if key:  # inline: no RETURNING of the new id (nothing reads it)
            parts.append(insert(_KEYS).inline().values({
                name: bindparam(f"k_{name}", type_=_KEYS.c[name].type)
                for name in _KEY_COLUMNS}))
        main = self.advance if advance else parts.pop()
        for i, part in enumerate(parts):
            main = main.add_cte(part.cte(f"write_{i}"))
        return main


def _applied(game_id: str, row: Any, module: ModuleType, new_events: list[dict[str, Any]],
             updated: float) -> tuple[Applied, str]:
    """``new_events`` appended to the game of ``row`` (a locked row): the outcome (the
    game after them at version + 1, the events with their seqs) and the new snapshot's
    JSON text. The events as the log will give them back, folded as a replay folds
    them."""
    stored = [StoredEvent(row.last_seq + i, _canonical_event(e))
              for i, e in enumerate(new_events, 1)]
    snapshot = json.dumps(_fold_all(module, json.loads(row.snapshot),
                                    [e.event for e in stored]), sort_keys=True)
    state = json.loads(snapshot)  # exactly what a replay rebuilds
    record = GameRecord(id=game_id, game=row.game, options=row.options,
                        status=state["status"], version=row.version + 1, state=state,
                        seed=row.seed, last_seq=stored[-1].seq if stored else row.last_seq,
                        updated=updated)
    return Applied(record, stored), snapshot


def _moved(row: Any, applied: Applied, snapshot: str) -> Any:
    """The locked ``row`` as it reads after ``applied`` (its snapshot text, version,
    status, last seq and update time; the idempotency columns as they were)."""
    new = applied.game
    return SimpleNamespace(**{**row._asdict(), "snapshot": snapshot, "status": new.status,
                              "version": new.version, "last_seq": new.last_seq,
                              "updated_at": idle.moment(new.updated)})


def _advance_params(new: GameRecord, snapshot: str, at: datetime) -> dict[str, Any]:
    """The parameters of the statement that advances the game row to ``new``."""
    return {"target_game": new.id, "snapshot_text": snapshot, "new_status": new.status,
            "new_version": new.version, "new_last_seq": new.last_seq, "now": at}


def _aware(moment: Any) -> Any:
    """SQLite returns naive datetimes for timezone-aware columns: read them as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)

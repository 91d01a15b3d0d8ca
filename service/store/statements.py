"""The SQL of the store's hot paths, built once (SQLAlchemy caches the compiled form),
and the statements whose form depends on the dialect (:class:`_Statements`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    BindParameter,
    Cast,
    Connection,
    Insert,
    Integer,
    Select,
    String,
    Table,
    Text,
    Update,
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

from service.store.driver import Executor
from service.store.models import (
    DONE,
    Base,
    Event,
    Game,
    IdempotencyKey,
    Invitation,
    Seat,
    ServiceKey,
)
from service.store.values import FEED_CHANNEL, GameMoved


def table_of(model: type[Base]) -> Table:
    """The Core table a model maps (``__table__`` is declared as any ``FromClause``;
    every model of :mod:`service.store.models` names a ``__tablename__``: a Table)."""
    table = model.__table__
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__} maps no table")
    return table


_GAMES, _SEATS = table_of(Game), table_of(Seat)
_EVENTS, _KEYS = table_of(Event), table_of(IdempotencyKey)
_INVITATIONS = table_of(Invitation)
_SERVICE_KEYS = table_of(ServiceKey)


def _json_text(name: str, dialect: str) -> BindParameter[str] | Cast[Any]:
    """A bind parameter taking JSON already serialised (the snapshot is dumped once,
    for the row and the reply alike): cast to JSONB on PostgreSQL, stored as it is on
    SQLite (whose JSON columns hold the text)."""
    param = bindparam(name, type_=Text)
    return cast(param, postgresql.JSONB) if dialect == "postgresql" else param


# The statements of the hot paths, built once (SQLAlchemy caches their compiled form).
_ACTOR = union_all(  # one indexed lookup per table: (game id, seat or NULL for referee)
    select(_SEATS.c.game_id.label("game_id"), _SEATS.c.seat.label("seat")).where(
        _SEATS.c.token_hash == bindparam("token_hash")
    ),
    select(_GAMES.c.id, literal(None, String(40))).where(
        _GAMES.c.referee_token_hash == bindparam("token_hash")
    ),
)
_READ = select(
    _GAMES.c.game,
    _GAMES.c.options,
    _GAMES.c.status,
    _GAMES.c.version,
    _GAMES.c.snapshot,
    _GAMES.c.last_seq,
    _GAMES.c.seed,
    _GAMES.c.updated_at,
    _GAMES.c.names,
    _GAMES.c.rematch_of,
    _GAMES.c.rematch,
    _GAMES.c.imported,
).where(_GAMES.c.id == bindparam("game_id"))


def _page_of_log(bounded: bool, limited: bool) -> Select[Any]:
    """A page of a game's log (GameStore.page): its events with ``seq > after``, in
    order; ``bounded``: up to ``upto`` (the game row's ``last_seq`` read just before);
    ``limited``: at most ``limit``."""
    statement = (
        select(_EVENTS.c.seq, _EVENTS.c.type, _EVENTS.c.seat, _EVENTS.c.payload)
        .where(_EVENTS.c.game_id == bindparam("game_id"), _EVENTS.c.seq > bindparam("after"))
        .order_by(_EVENTS.c.seq)
    )
    if bounded:
        statement = statement.where(_EVENTS.c.seq <= bindparam("upto"))
    if limited:
        statement = statement.limit(bindparam("limit", type_=Integer))
    return statement


# (bounded, limited) -> the statement (built once: the driver keeps each compiled)
_PAGES = {(b, lim): _page_of_log(b, lim) for b in (False, True) for lim in (False, True)}
_TAKE_OVER = (
    update(_KEYS)
    .where(_KEYS.c.id == bindparam("key_id"))
    .values(
        state=DONE,
        request_hash=bindparam("new_request_hash"),
        status_code=bindparam("new_status_code"),
        response_body=bindparam("new_body", type_=_KEYS.c.response_body.type),
        version=bindparam("new_version"),
        first_seq=bindparam("new_first_seq"),
        last_seq=bindparam("new_last_seq"),
        created_at=bindparam("now"),
    )
)
_KEY_RECORD = select(
    _KEYS.c.id.label("key_id"),
    _KEYS.c.request_hash.label("key_request_hash"),
    _KEYS.c.state.label("key_state"),
    _KEYS.c.status_code.label("key_status_code"),
    _KEYS.c.response_body.label("key_response_body"),
    _KEYS.c.version.label("key_version"),
    _KEYS.c.first_seq.label("key_first_seq"),
    _KEYS.c.last_seq.label("key_last_seq"),
    _KEYS.c.created_at.label("key_created_at"),
).where(
    _KEYS.c.game_id == bindparam("game_id"),
    _KEYS.c.actor == bindparam("actor"),
    _KEYS.c.key == bindparam("key"),
)
_INSERT_EVENTS, _INSERT_KEY = insert(_EVENTS), insert(_KEYS)
_LAST_SEQS = select(_GAMES.c.id, _GAMES.c.last_seq, _GAMES.c.credentials).where(
    _GAMES.c.id.in_(bindparam("ids", expanding=True))
)
_EVENT_COLUMNS = ("game_id", "seq", "type", "seat", "payload", "actor", "action", "created_at")
_KEY_COLUMNS = (
    "game_id",
    "actor",
    "key",
    "request_hash",
    "state",
    "status_code",
    "response_body",
    "version",
    "first_seq",
    "last_seq",
    "created_at",
)


class _Statements:
    """The statements whose form depends on the dialect: JSON text binds, and the
    writes of an action (see :meth:`writes`)."""

    def __init__(self, dialect: str):
        self.dialect = dialect
        self.insert_game: Insert = insert(_GAMES).values(
            snapshot=_json_text("snapshot_text", dialect)
        )
        # (no bind is named after a column: SQLAlchemy would SET such a column of a
        # table written through a CTE from the statement's parameters)
        # conditioned on the version the action read (``base_version``): an action
        # that read the game without its row lock (Actions._act_unlocked) must
        # not advance a game another writer moved on meanwhile
        self.advance: Update = (
            update(_GAMES)
            .where(_GAMES.c.id == bindparam("target_game"))
            .where(_GAMES.c.version == bindparam("base_version"))
            .values(
                snapshot=_json_text("snapshot_text", dialect),
                status=bindparam("new_status"),
                version=bindparam("new_version"),
                last_seq=bindparam("new_last_seq"),
                updated_at=bindparam("now"),
            )
        )
        if dialect == "postgresql":  # the feed's notification, sent at commit
            self.advance = self.advance.returning(
                func.pg_notify(FEED_CHANNEL, bindparam("notify_payload", type_=Text))
            )
        self._combined: dict[tuple[int, bool, bool], Select[Any] | Insert] = {}
        # a new game's events, rows of _EVENT_COLUMNS (GameStore._event_rows)
        mark, json_cast = ("?", "") if dialect == "sqlite" else ("%s", "::jsonb")
        self._row_values = (
            "("
            + ", ".join(
                mark + (json_cast if name in ("payload", "action") else "")
                for name in _EVENT_COLUMNS
            )
            + ")"
        )
        self._insert_events = f"INSERT INTO events ({', '.join(_EVENT_COLUMNS)}) VALUES "

    def insert_events(self, connection: Connection, rows: Sequence[tuple[Any, ...]]) -> None:
        """Insert a new game's event ``rows`` by the driver: SQLite's executemany (a
        loop in C, in process); on PostgreSQL one multi-row INSERT (one round trip)."""
        if self.dialect == "sqlite":
            connection.exec_driver_sql(self._insert_events + self._row_values, rows)
        elif rows:
            connection.exec_driver_sql(
                self._insert_events + ", ".join([self._row_values] * len(rows)),
                tuple(value for row in rows for value in row),
            )

    def writes(
        self,
        connection: Executor,
        events: list[dict[str, Any]],
        game: dict[str, Any] | None,
        key: str | None,
        key_params: dict[str, Any],
    ) -> None:
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
                connection.execute(_INSERT_EVENTS, events)
            if game is not None and connection.execute(self.advance, game).rowcount != 1:
                raise GameMoved(game["target_game"])  # the version guard (see advance)
            if key is not None:
                connection.execute(_INSERT_KEY, key_params)
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
        connection.execute(
            self._combined_statement(len(events), game is not None, key is not None), params
        )

    def _combined_statement(self, events: int, advance: bool, key: bool) -> Select[Any] | Insert:
        shape = (events, advance, key)
        statement = self._combined.get(shape)
        if statement is None:
            statement = self._combined[shape] = self._combine(*shape)
        return statement

    def _combine(self, events: int, advance: bool, key: bool) -> Select[Any] | Insert:
        # one single-row INSERT per event: SQLAlchemy does not cache a multi-row VALUES
        parts = [
            insert(_EVENTS).values(
                {
                    name: bindparam(f"e{i}_{name}", type_=_EVENTS.c[name].type)
                    for name in _EVENT_COLUMNS
                }
            )
            for i in range(events)
        ]
        if key:  # inline: no RETURNING of the new id (nothing reads it)
            parts.append(
                insert(_KEYS)
                .inline()
                .values(
                    {
                        name: bindparam(f"k_{name}", type_=_KEYS.c[name].type)
                        for name in _KEY_COLUMNS
                    }
                )
            )
        main: Select[Any] | Insert
        if advance:
            # the version guard: when the UPDATE matched no row (the game moved on
            # since an optimistic read), 1 / count(*) divides by zero, SQLSTATE 22012,
            # and the whole statement fails with its inserts: a conflict, retried
            # with the row locked (Actions._act_unlocked falls back to the locked path)
            advanced = self.advance.cte("advanced")
            main = select((literal(1) / func.count()).label("guard")).select_from(advanced)
        else:
            main = parts.pop()
        for i, part in enumerate(parts):
            main = main.add_cte(part.cte(f"write_{i}"))
        return main

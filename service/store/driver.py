"""An action's statements run by the driver itself (:class:`DriverConnection`), not
through SQLAlchemy's execution machinery.

An action runs a handful of statements: the game's read, then its writes (SQLite: the
events' INSERT, the game's guarded UPDATE, the key's INSERT; PostgreSQL: one statement
carrying them all, see :meth:`service.store.statements._Statements.writes`). Each costs
the database little, but SQLAlchemy's Connection wraps each in an execution context,
events, a result proxy and a transaction object, several times the statement's own
CPU, and that was most of the store's CPU per action (issue 23). Here the same
SQLAlchemy statements are compiled once for the engine's dialect (:class:`_Compiled`:
the SQL text in the driver's paramstyle, and the bind and result processors of their
types, so values are converted exactly as SQLAlchemy converts them: datetimes, JSON
through the engine's serializer) and run on the DBAPI connection.

* An action's optimistic attempt (:meth:`service.store.actions.Actions.
  _act_unlocked`) runs on a pool connection (:func:`driver_connection`: each statement
  its own transaction, but SQLite's writes in a writer transaction); any error of the
  driver makes the action fall back to the locked path, whose retries judge it (a
  conflict, an outage, 503). Nothing is committed before the attempt's own commit.
* The locked path on PostgreSQL runs on the psycopg connection under a pipelined
  SQLAlchemy connection (:meth:`service.store.uow.UnitOfWork.by_driver`); psycopg's
  errors are rolled back and raised as SQLAlchemy's by
  :func:`service.store.uow.pipelined`, and retried as before (SQLite's locked path runs
  through SQLAlchemy).
* Reads that a request makes on its way (the token's owner, the game, a page of the
  log: :meth:`service.store.uow.UnitOfWork.read_by_driver`) run on a pool connection
  of :func:`driver_connection` too.
* On PostgreSQL, the statements of :func:`driver_connection` (autocommit, no
  pipeline) run as server-side prepared statements of their connection (psycopg's
  ``prepare=True``): parsed and planned once per pool connection, not per run. That
  cut the backends' CPU per durable action by about 40 % (0.92-1.01 -> 0.52-0.67 ms,
  in process; issue 23). Inside a pipeline (the locked path) nothing is prepared:
  ``prepare_threshold`` is None there, as :func:`service.store.db.make_engine` sets it
  (an aborted pipeline loses a PREPARE that psycopg believes was made). Behind PgBouncer in
  transaction mode, use 1.21 or later with ``max_prepared_statements`` set.

A driver error is raised as SQLAlchemy's, as SQLAlchemy's own execution raises it.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Union

from sqlalchemy import Connection, Engine
from sqlalchemy.engine import Dialect
from sqlalchemy.exc import DBAPIError
from sqlalchemy.sql import ClauseElement, CompoundSelect, Select
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.types import TypeEngine

from service.store.db import WriterLock, held

Processor = Callable[[Any], Any] | None
# psycopg's prepare_threshold on a connection in autocommit: so high that no statement
# is prepared for having run often (executemany's own pipeline never prepares one),
# only those run with prepare=True
PREPARE_ON_REQUEST = 2**31
# what the action path's statements run on: SQLAlchemy's connection, or the driver's
Executor = Union[Connection, "DriverConnection"]


@dataclass(frozen=True)
class _Compiled:
    """One statement as the driver runs it: ``sql`` in the driver's paramstyle (SQLite
    ``?`` marks, their bind names in ``positional``; psycopg ``%(name)s``), the
    processor of each bind, and for a SELECT the row type (named as SQLAlchemy's Row
    names its columns) and each column's processor."""

    dialect: Dialect
    sql: str
    construct: Callable[[Mapping[str, Any]], dict[str, Any]]
    positional: tuple[str, ...] | None
    escaped: Mapping[str, str]
    binds: Mapping[str, Processor]
    in_order: tuple[Processor, ...]  # the processors of ``positional``'s binds
    row: Callable[..., Any] | None
    columns: tuple[TypeEngine[Any], ...]  # a SELECT's column types (their dialect's)
    # their result processors, as SQLAlchemy asks for them by the cursor's type codes:
    # worked out at the first row (one statement's result types never change; building
    # psycopg's description for every result was a few percent of an action)
    results: list[tuple[Processor, ...]] = field(default_factory=list)

    def parameters(self, params: Mapping[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        """The driver's parameters for ``params`` (SQLAlchemy's: by bind name), each
        value through its bind's processor, if it has one (inline: a statement binds
        up to twenty values, and an action runs four statements)."""
        values = self.construct(params)
        if self.positional is not None:
            ordered = map(values.__getitem__, self.positional)
            return tuple([v if p is None else p(v) for p, v in zip(self.in_order, ordered)])
        out = {}
        for name, value in values.items():
            processor = self.binds[name]
            out[self.escaped.get(name, name)] = value if processor is None else processor(value)
        return out

    def make_row(self, raw: Sequence[Any], cursor: Any) -> Any:
        """The row of ``raw`` values as SQLAlchemy gives it (the first time, the
        ``cursor``'s description names the driver's type of each column)."""
        assert self.row is not None  # a SELECT's
        if not self.results:
            codes = [column[1] for column in cursor.description]
            kinds = zip(self.columns, codes)
            self.results.append(tuple(kind.result_processor(self.dialect, c) for kind, c in kinds))
        return self.row(*[v if p is None else p(v) for p, v in zip(self.results[0], raw)])


def _compile(statement: ClauseElement, dialect: Dialect, keys: tuple[str, ...]) -> _Compiled:
    compiled = statement.compile(dialect=dialect, column_keys=list(keys) or None)
    if not isinstance(compiled, SQLCompiler):
        raise TypeError(f"not a DML or SELECT statement: {statement}")
    binds = {
        name: bind.type.dialect_impl(dialect).bind_processor(dialect)
        for bind, name in compiled.bind_names.items()
    }
    row: Callable[..., Any] | None = None
    columns: tuple[TypeEngine[Any], ...] = ()
    if isinstance(statement, (Select, CompoundSelect)):
        row = _row_type([str(c.key) for c in statement.selected_columns])
        columns = tuple(c.type.dialect_impl(dialect) for c in statement.selected_columns)

    def construct(params: Mapping[str, Any]) -> dict[str, Any]:
        return dict(compiled.construct_params(params) or {})

    positional = tuple(compiled.positiontup) if compiled.positiontup is not None else None
    escaped = dict(compiled.escaped_bind_names or {})
    in_order = tuple(binds[name] for name in positional or ())
    return _Compiled(
        dialect, compiled.string, construct, positional, escaped, binds, in_order, row, columns
    )


def _row_type(names: list[str]) -> Callable[..., Any]:
    """A row class with these attributes and ``_asdict()``, as SQLAlchemy's Row."""
    return namedtuple("Row", names)  # type: ignore[misc]  # its fields known at run time


class _Result:
    """What :meth:`DriverConnection.execute` returns: ``first()`` and ``rowcount``, as
    SQLAlchemy's result gives them."""

    def __init__(self, cursor: Any, compiled: _Compiled):
        self._cursor = cursor
        self._compiled = compiled
        self.rowcount = cursor.rowcount

    def first(self) -> Any:
        raw = self._cursor.fetchone()
        row = None if raw is None else self._compiled.make_row(raw, self._cursor)
        self._release()
        return row

    def __iter__(self) -> Iterator[Any]:
        """Every row, as iterating SQLAlchemy's result gives them."""
        rows = [self._compiled.make_row(raw, self._cursor) for raw in self._cursor.fetchall()]
        self._release()
        return iter(rows)

    def _release(self) -> None:
        self._cursor.close()


class _SharedResult(_Result):
    """A :class:`_Result` on the cursor that runs its connection's next statement too
    (PostgreSQL outside a pipeline, see :meth:`DriverConnection.execute`): it is not
    closed, and its rows must be read before that statement (a read after it raises
    ``RuntimeError``)."""

    def __init__(self, cursor: Any, compiled: _Compiled, connection: DriverConnection):
        super().__init__(cursor, compiled)
        self._connection = connection
        self._run = connection.runs

    def first(self) -> Any:
        self._check()
        return super().first()

    def __iter__(self) -> Iterator[Any]:
        self._check()
        return super().__iter__()

    def _check(self) -> None:
        if self._connection.runs != self._run:
            raise RuntimeError("a result read after its connection's next statement ran")

    def _release(self) -> None:
        pass  # the connection's next statement runs on this cursor


class DriverConnection:
    """A DBAPI connection of the pool running SQLAlchemy statements (see the module
    docstring): ``execute(statement, params, execution_options)`` as
    :meth:`Connection.execute` does (a list of parameter dicts: executemany; the
    execution option ``pipeline_sync``: psycopg's pipeline synced after the statement,
    as :func:`service.store.db._sync_pipeline` does), ``transaction()`` SQLite's writer
    transaction."""

    def __init__(
        self,
        connection: Any,
        dialect: Dialect,
        cache: dict[Any, Any],
        pipeline: Any = None,
        autocommit: bool = False,
    ):
        self._connection = connection
        self.autocommit = autocommit  # each statement its own transaction (PostgreSQL)
        self._dialect = dialect
        self._cache = cache
        # as SQLAlchemy's connection.info in service.store.uow.pipelined (see synced)
        self.info: dict[str, Any] = {} if pipeline is None else {"pipeline": pipeline}
        # PostgreSQL outside a pipeline: the one cursor of the block (a psycopg cursor
        # built for each statement cost 0.5 to 0.8% of an action's instructions, issue 23)
        self._cursor: Any = None
        self.runs = 0  # statements run on it so far (see _SharedResult)

    def execute(
        self,
        statement: ClauseElement,
        params: Mapping[str, Any] | list[dict[str, Any]] | None = None,
        execution_options: Mapping[str, Any] | None = None,
    ) -> _Result:
        rows = params if isinstance(params, list) else [params or {}]
        compiled = self._compiled(statement, tuple(rows[0]))
        if self.autocommit:  # PostgreSQL outside a pipeline: one cursor for the block
            self.runs += 1
            if self._cursor is None:
                self._cursor = self._connection.cursor()
            cursor = self._cursor
        else:
            cursor = self._connection.cursor()
        if isinstance(params, list):
            cursor.executemany(compiled.sql, [compiled.parameters(r) for r in rows])
        elif self.autocommit:  # PostgreSQL outside a pipeline: a prepared statement
            cursor.execute(compiled.sql, compiled.parameters(rows[0]), prepare=True)
        else:
            cursor.execute(compiled.sql, compiled.parameters(rows[0]))
        pipeline = (execution_options or {}).get("pipeline_sync")
        if pipeline is not None:
            pipeline.sync()  # the result now (psycopg: an error is raised here)
        if self.autocommit:
            return _SharedResult(cursor, compiled, self)
        return _Result(cursor, compiled)

    def _compiled(self, statement: ClauseElement, keys: tuple[str, ...]) -> _Compiled:
        # an INSERT's SQL depends on the columns given (SQLAlchemy's column_keys)
        selects = isinstance(statement, (Select, CompoundSelect))
        cache_key = (id(statement), () if selects else keys)
        found = self._cache.get(cache_key)
        if found is None or found[0] is not statement:
            found = self._cache[cache_key] = (statement, _compile(statement, self._dialect, keys))
        compiled: _Compiled = found[1]
        return compiled

    @contextmanager
    def transaction(self, lock: WriterLock | None) -> Iterator[DriverConnection]:
        """A write transaction: ``BEGIN IMMEDIATE`` under ``lock``, ``COMMIT`` when the
        block ends, ``ROLLBACK`` on an exception."""
        with held(lock):
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                yield self
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
            self._connection.execute("COMMIT")


@contextmanager
def driver_connection(engine: Engine, cache: dict[Any, Any]) -> Iterator[DriverConnection]:
    """A :class:`DriverConnection` on a connection of ``engine``'s pool (an engine of
    :func:`service.store.db.make_engine`), returned to it when the block ends. Each
    statement is its own transaction: PostgreSQL in autocommit for the block (no
    ``BEGIN`` round trip; ``autocommit`` True); SQLite sends no ``BEGIN`` of its own,
    and :meth:`DriverConnection.transaction` opens a writer's.

    A driver error is raised as SQLAlchemy's :class:`~sqlalchemy.exc.DBAPIError` (its
    subclass by the driver's class, as SQLAlchemy wraps it), so that the retries of
    :class:`service.store.uow.UnitOfWork` judge it alike; a lost connection is
    invalidated (never returned to the pool) and flagged ``connection_invalidated``."""
    dialect = engine.dialect
    error_type = dialect.loaded_dbapi.Error
    autocommit = dialect.name == "postgresql"
    try:
        pooled: Any = engine.raw_connection()
    except error_type as error:  # no connection to be had (as SQLAlchemy's connect())
        raise DBAPIError.instance(None, None, error, error_type, dialect=dialect) from error
    raw = pooled.driver_connection
    try:
        if autocommit:
            raw.autocommit = True
            raw.prepare_threshold = PREPARE_ON_REQUEST  # see DriverConnection.execute
        yield DriverConnection(raw, dialect, cache, autocommit=autocommit)
    except error_type as error:
        lost = dialect.is_disconnect(error, raw, None)
        if lost:
            pooled.invalidate(error)  # closed, and returned to the pool as such
            pooled = None
        raise DBAPIError.instance(
            None, None, error, error_type, connection_invalidated=lost, dialect=dialect
        ) from error
    finally:
        if pooled is not None:
            _give_back(pooled, raw, autocommit, error_type)


def _give_back(pooled: Any, raw: Any, autocommit: bool, error_type: type[Exception]) -> None:
    """Return ``pooled`` to the pool as the pool lent it (not in autocommit)."""
    if autocommit:
        try:
            raw.prepare_threshold = None  # never inside a pipeline (service.store.db)
            raw.autocommit = False
        except error_type as error:  # the connection broke meanwhile
            pooled.invalidate(error)
            return
    pooled.close()

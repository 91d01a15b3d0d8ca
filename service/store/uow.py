"""The unit of work: one database transaction, retried on concurrency conflicts.

``UnitOfWork.run(fn, write=True)`` calls ``fn(session)`` inside one transaction and
commits; when the database reports a transient conflict (see
:func:`service.store.db.is_conflict`) it rolls back and calls ``fn`` again with a fresh
transaction, up to ``attempts`` times with a short jittered back-off, then raises
:class:`Unavailable` (the API answers 503, never 500). ``fn`` must therefore do all its
work through the session and keep no effects outside it.

Write transactions start as writers (``BEGIN IMMEDIATE`` on SQLite, see
:func:`service.store.db.writer`); a game row is locked with ``SELECT ... FOR UPDATE``
(:func:`lock_game`), so one game changes in one transaction at a time, across threads,
gunicorn workers and hosts sharing one PostgreSQL.
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from sqlalchemy import Engine, select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from service.store.db import is_conflict, writer
from service.store.models import Game

T = TypeVar("T")

DEFAULT_ATTEMPTS = 6


class Unavailable(Exception):
    """The database stayed in conflict (or locked) through every retry: answer 503."""


class UnitOfWork:
    """Transactions over one engine: ``run(fn)`` with retries, or ``transaction()``."""

    def __init__(self, engine: Engine, attempts: int = DEFAULT_ATTEMPTS,
                 backoff: float = 0.01):
        self.engine = engine
        self.attempts = attempts
        self.backoff = backoff
        self._readers = sessionmaker(engine, expire_on_commit=False)
        self._writers = sessionmaker(writer(engine), expire_on_commit=False)

    @contextmanager
    def transaction(self, write: bool = True) -> Iterator[Session]:
        """One transaction: commits when the block ends, rolls back on an exception."""
        factory = self._writers if write else self._readers
        with factory() as session, session.begin():
            yield session

    def run(self, fn: Callable[[Session], T], write: bool = True) -> T:
        """``fn(session)`` in a transaction, retried on conflicts; :class:`Unavailable`
        when every attempt conflicted. Other exceptions propagate (after rollback)."""
        for attempt in range(self.attempts):
            try:
                with self.transaction(write) as session:
                    return fn(session)
            except DBAPIError as error:
                if not is_conflict(error):
                    raise
                if attempt + 1 == self.attempts:
                    raise Unavailable(str(error.orig)) from error
                time.sleep(self.backoff * (2 ** attempt) * (0.5 + random.random()))
        raise Unavailable("no attempt made")  # attempts == 0


def lock_game(session: Session, game_id: str) -> Game | None:
    """The game row, locked until the transaction ends (``FOR UPDATE`` on PostgreSQL;
    on SQLite the ``BEGIN IMMEDIATE`` of the write transaction already holds the lock).
    ``None`` if there is no such game."""
    statement = select(Game).where(Game.id == game_id).with_for_update()
    return session.execute(statement).scalar_one_or_none()

"""Retention: how long the store keeps games and idempotency records, and the purge.

:func:`purge` deletes, in batches,

* idempotency records older than the store's ``idempotency_ttl`` (expired: the store
  no longer replays them anyway);
* finished games whose last change (``games.updated_at``: the action that finished
  them) is older than ``finished_before``;
* abandoned games: not finished, and no action since ``abandoned_before``;

a game with its seats, events and idempotency records (``ON DELETE CASCADE``). A live
game (not finished, acted on since ``abandoned_before``) is never touched: the DELETE
states the condition again, so a game that was acted on after it was picked (the
action commits first, or waits for the DELETE and then finds no game) is kept.
``archive(game_id)`` is called for every picked game before it is deleted (the purge
command writes its export there).

Run by ``flask --app service purge`` (see :mod:`service.cli`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, Connection, and_, delete, func, or_, select

from service.store.models import utcnow
from service.store.records import GameStore
from service.store.statements import _GAMES, _KEYS
from service.store.values import AnyRow

FINISHED = "finished"
BATCH = 500


@dataclass(frozen=True)
class PurgeReport:
    """What :func:`purge` deleted (or, with ``dry_run``, would delete)."""

    finished: int
    abandoned: int
    idempotency_records: int

    def __str__(self) -> str:
        return (
            f"{self.finished} finished games, {self.abandoned} abandoned games, "
            f"{self.idempotency_records} expired idempotency records"
        )


def _condition(
    finished_before: datetime | None, abandoned_before: datetime | None
) -> ColumnElement[bool] | None:
    """The games a purge may delete (never a live one, see the module docstring)."""
    finished = _GAMES.c.status == FINISHED
    parts = []
    if finished_before is not None:
        parts.append(and_(finished, _GAMES.c.updated_at < finished_before))
    if abandoned_before is not None:
        parts.append(and_(~finished, _GAMES.c.updated_at < abandoned_before))
    return or_(*parts) if parts else None


def purge(
    store: GameStore,
    finished_before: datetime | None,
    abandoned_before: datetime | None,
    *,
    dry_run: bool = False,
    archive: Callable[[str], None] | None = None,
    batch: int = BATCH,
) -> PurgeReport:
    """Delete expired idempotency records, and finished games last changed before
    ``finished_before`` and unfinished ones last acted on before ``abandoned_before``
    (None: keep that kind). ``dry_run``: count only. Each batch of games is one
    transaction; ``archive`` sees each game before its batch is deleted."""
    keys_before = utcnow() - store.idempotency_ttl
    condition = _condition(finished_before, abandoned_before)
    if dry_run:
        return _count(store, condition, keys_before)
    counts = {True: 0, False: 0}
    while condition is not None:
        picked = store.uow.read_one(
            lambda c: c.execute(
                select(_GAMES.c.id, _GAMES.c.status)
                .where(condition)
                .order_by(_GAMES.c.updated_at)
                .limit(batch)
            ).all()
        )
        if not picked:
            break
        for row in picked:
            if archive is not None:
                archive(row.id)

        def delete_picked(c: Connection, picked: Sequence[AnyRow] = picked) -> Sequence[str]:
            return (
                c.execute(
                    delete(_GAMES)
                    .where(_GAMES.c.id.in_([r.id for r in picked]), condition)
                    .returning(_GAMES.c.status)
                )
                .scalars()
                .all()
            )

        deleted = store.uow.run(delete_picked, core=True)
        for status in deleted:  # a picked game acted on since no longer matches
            counts[status == FINISHED] += 1
    keys = store.uow.run(
        lambda c: c.execute(delete(_KEYS).where(_KEYS.c.created_at < keys_before)).rowcount,
        core=True,
    )
    return PurgeReport(counts[True], counts[False], keys)


def _count(
    store: GameStore, condition: ColumnElement[bool] | None, keys_before: datetime
) -> PurgeReport:
    def fn(connection: Connection) -> PurgeReport:
        counts = {True: 0, False: 0}
        if condition is not None:
            for status, count in connection.execute(
                select(_GAMES.c.status, func.count()).where(condition).group_by(_GAMES.c.status)
            ):
                counts[status == FINISHED] += count
        keys = connection.execute(
            select(func.count()).select_from(_KEYS).where(_KEYS.c.created_at < keys_before)
        ).scalar_one()  # COUNT(*): always one row
        return PurgeReport(counts[True], counts[False], keys)

    return store.uow.run(fn, write=False, core=True)

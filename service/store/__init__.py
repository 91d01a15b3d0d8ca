"""The durable game store (SQLAlchemy 2.x): models, unit of work, idempotency.

``GameStore(url)`` is the entry point (see :mod:`service.store.records`);
:func:`get_store` gives the Flask app's store, created on first use from the app's
``DATABASE_URL``; :func:`get_feed` the app's event feed watcher (:mod:`service.store.feed`).
The schema comes from the Alembic migrations (``alembic upgrade head``).
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from sqlalchemy import Connection, text
from sqlalchemy.exc import OperationalError, ProgrammingError

from service.store.feed import FALLBACK_SECONDS, HOLD_SECONDS, POLL_SECONDS, Feed, Watch
from service.messages import Message
from service.store.models import SCHEMA_REVISION
from service.store.records import (
    REFEREE,
    Applied,
    EventPage,
    GameNotFound,
    GameRecord,
    GameStore,
    IdempotencyRequest,
    KeyInFlight,
    KeyReused,
    Refused,
    ReplayReport,
    Reply,
    SeatNotFound,
    StoreError,
    Unauthenticated,
    Unavailable,
    UnknownGame,
    hash_token,
    request_hash,
)

if TYPE_CHECKING:
    from flask import Flask

__all__ = [
    "REFEREE",
    "SCHEMA_REVISION",
    "Applied",
    "EventPage",
    "Feed",
    "GameNotFound",
    "GameRecord",
    "GameStore",
    "IdempotencyRequest",
    "KeyInFlight",
    "KeyReused",
    "Refused",
    "ReplayReport",
    "Reply",
    "SchemaNotCurrent",
    "SeatNotFound",
    "StoreError",
    "Unauthenticated",
    "Unavailable",
    "UnknownGame",
    "Watch",
    "check_schema",
    "get_feed",
    "get_store",
    "hash_token",
    "request_hash",
]

_EXTENSION = "card-referee-store"
_FEED_EXTENSION = "card-referee-feed"
_lock = threading.Lock()


class SchemaNotCurrent(Exception):
    """The database is not at the migration this release needs (the API answers 503
    ``schema-not-current`` with this message, its argument)."""


def get_store(app: Flask) -> GameStore:
    """The app's :class:`GameStore` (one per app, created lazily from
    ``app.config["DATABASE_URL"]``; ``STORE_ATTEMPTS``,
    ``IDEMPOTENCY_IN_FLIGHT_SECONDS`` and ``IDEMPOTENCY_TTL_SECONDS`` tune retries,
    abandoned keys and how long a key is kept).

    Before first use the database's Alembic revision is checked: not
    :data:`~service.store.models.SCHEMA_REVISION` (never migrated, behind, or ahead of
    this release) raises :class:`SchemaNotCurrent`, and the next request checks
    again, so the service answers as soon as the database is migrated."""
    store: GameStore | None = app.extensions.get(_EXTENSION)
    if store is None:
        with _lock:
            store = app.extensions.get(_EXTENSION)
            if store is None:
                store = GameStore(
                    app.config["DATABASE_URL"],
                    attempts=app.config.get("STORE_ATTEMPTS", 6),
                    in_flight_seconds=app.config.get("IDEMPOTENCY_IN_FLIGHT_SECONDS", 60.0),
                    idempotency_ttl_seconds=app.config.get("IDEMPOTENCY_TTL_SECONDS", 24 * 3600),
                )
                try:
                    check_schema(store)
                except BaseException as error:
                    store.dispose()
                    if isinstance(error, SchemaNotCurrent):
                        logging.getLogger(__name__).error("%s", error)
                    raise
                app.extensions[_EXTENSION] = store
    return store


def check_schema(store: GameStore) -> None:
    """:class:`SchemaNotCurrent` unless the database is at ``SCHEMA_REVISION``."""

    def revisions(connection: Connection) -> list[str]:
        try:
            return list(
                connection.execute(text("SELECT version_num FROM alembic_version")).scalars()
            )
        except (OperationalError, ProgrammingError) as error:
            if "alembic_version" not in str(error.orig):
                raise
            return []  # never migrated

    found = store.uow.read_one(revisions)
    if found != [SCHEMA_REVISION]:
        if found:
            raise SchemaNotCurrent(
                Message(
                    "The database is at revision %(found)s; this release needs %(needed)s. Run "
                    "`alembic upgrade head` (make serve does) with the same DATABASE_URL.",
                    found=found[0],
                    needed=SCHEMA_REVISION,
                )
            )
        raise SchemaNotCurrent(
            Message(
                "The database is not migrated; this release needs %(needed)s. Run `alembic "
                "upgrade head` (make serve does) with the same DATABASE_URL.",
                needed=SCHEMA_REVISION,
            )
        )


def get_feed(app: Flask) -> Feed:
    """The app's :class:`Feed` over its store (one per app, created lazily;
    ``FEED_LISTEN`` (default True: LISTEN/NOTIFY on PostgreSQL), ``FEED_POLL_SECONDS``
    (SQLite's poll), ``FEED_FALLBACK_SECONDS`` (the poll behind LISTEN) and
    ``FEED_HOLD_SECONDS`` (how often a game's streams are woken, at most, by its
    notifications) tune it)."""
    feed: Feed | None = app.extensions.get(_FEED_EXTENSION)
    if feed is None:
        store = get_store(app)
        with _lock:
            feed = app.extensions.get(_FEED_EXTENSION)
            if feed is None:
                config = app.config
                feed = Feed(
                    store,
                    listen=config.get("FEED_LISTEN", True),
                    poll_seconds=config.get("FEED_POLL_SECONDS", POLL_SECONDS),
                    fallback_seconds=config.get("FEED_FALLBACK_SECONDS", FALLBACK_SECONDS),
                    hold_seconds=config.get("FEED_HOLD_SECONDS", HOLD_SECONDS),
                )
                app.extensions[_FEED_EXTENSION] = feed
    return feed

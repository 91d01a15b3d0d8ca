"""The durable game store (SQLAlchemy 2.x): models, unit of work, idempotency.

``GameStore(url)`` is the entry point (see :mod:`service.store.records`);
:func:`get_store` gives the Flask app's store, created on first use from the app's
``DATABASE_URL``; :func:`get_feed` the app's event feed watcher (:mod:`service.store.feed`).
The schema comes from the Alembic migrations (``alembic upgrade head``).
"""
from __future__ import annotations

import threading

from service.store.feed import FALLBACK_SECONDS, POLL_SECONDS, Feed, Watch
from service.store.records import (REFEREE, Applied, EventPage, GameNotFound, GameRecord,
                                   GameStore, IdempotencyRequest, KeyInFlight, KeyReused,
                                   Refused, ReplayReport, Reply, StoreError, Unauthenticated,
                                   Unavailable, UnknownGame, hash_token, request_hash)

__all__ = ["REFEREE", "Applied", "EventPage", "GameNotFound", "GameRecord", "GameStore",
           "IdempotencyRequest", "KeyInFlight", "KeyReused", "Refused", "ReplayReport",
           "Reply", "StoreError", "Unauthenticated", "Unavailable", "UnknownGame",
           "Feed", "Watch", "get_feed", "get_store", "hash_token", "request_hash"]

_EXTENSION = "card-referee-store"
_FEED_EXTENSION = "card-referee-feed"
_lock = threading.Lock()


def get_store(app) -> GameStore:
    """The app's :class:`GameStore` (one per app, created lazily from
    ``app.config["DATABASE_URL"]``; ``STORE_ATTEMPTS`` and
    ``IDEMPOTENCY_IN_FLIGHT_SECONDS`` tune retries and abandoned keys)."""
    store = app.extensions.get(_EXTENSION)
    if store is None:
        with _lock:
            store = app.extensions.get(_EXTENSION)
            if store is None:
                store = GameStore(app.config["DATABASE_URL"],
                                  attempts=app.config.get("STORE_ATTEMPTS", 6),
                                  in_flight_seconds=app.config.get(
                                      "IDEMPOTENCY_IN_FLIGHT_SECONDS", 60.0))
                app.extensions[_EXTENSION] = store
    return store


def get_feed(app) -> Feed:
    """The app's :class:`Feed` over its store (one per app, created lazily;
    ``FEED_LISTEN`` (default True: LISTEN/NOTIFY on PostgreSQL), ``FEED_POLL_SECONDS``
    (SQLite's poll) and ``FEED_FALLBACK_SECONDS`` (the poll behind LISTEN) tune it)."""
    feed = app.extensions.get(_FEED_EXTENSION)
    if feed is None:
        store = get_store(app)
        with _lock:
            feed = app.extensions.get(_FEED_EXTENSION)
            if feed is None:
                config = app.config
                feed = Feed(store, listen=config.get("FEED_LISTEN", True),
                            poll_seconds=config.get("FEED_POLL_SECONDS", POLL_SECONDS),
                            fallback_seconds=config.get("FEED_FALLBACK_SECONDS",
                                                        FALLBACK_SECONDS))
                app.extensions[_FEED_EXTENSION] = feed
    return feed

"""The durable game store (SQLAlchemy 2.x): models, unit of work, idempotency.

``GameStore(url)`` is the entry point (see :mod:`service.store.records`);
:func:`get_store` gives the Flask app's store, created on first use from the app's
``DATABASE_URL``. The schema comes from the Alembic migrations (``alembic upgrade head``).
"""
from __future__ import annotations

import threading

from service.store.records import (REFEREE, Applied, EventPage, GameNotFound, GameRecord,
                                   GameStore, IdempotencyRequest, KeyInFlight, KeyReused,
                                   Refused, ReplayReport, Reply, SeatNotFound, StoreError,
                                   Unauthenticated, Unavailable, UnknownGame, hash_token,
                                   request_hash)

__all__ = ["REFEREE", "Applied", "EventPage", "GameNotFound", "GameRecord", "GameStore",
           "IdempotencyRequest", "KeyInFlight", "KeyReused", "Refused", "ReplayReport",
           "Reply", "SeatNotFound", "StoreError", "Unauthenticated", "Unavailable", "UnknownGame",
           "get_store", "hash_token", "request_hash"]

_EXTENSION = "card-referee-store"
_lock = threading.Lock()


def get_store(app) -> GameStore:
    """The app's :class:`GameStore` (one per app, created lazily from
    ``app.config["DATABASE_URL"]``; ``STORE_ATTEMPTS``,
    ``IDEMPOTENCY_IN_FLIGHT_SECONDS`` and ``IDEMPOTENCY_TTL_SECONDS`` tune retries,
    abandoned keys and how long a key is kept)."""
    store = app.extensions.get(_EXTENSION)
    if store is None:
        with _lock:
            store = app.extensions.get(_EXTENSION)
            if store is None:
                store = GameStore(app.config["DATABASE_URL"],
                                  attempts=app.config.get("STORE_ATTEMPTS", 6),
                                  in_flight_seconds=app.config.get(
                                      "IDEMPOTENCY_IN_FLIGHT_SECONDS", 60.0),
                                  idempotency_ttl_seconds=app.config.get(
                                      "IDEMPOTENCY_TTL_SECONDS", 24 * 3600))
                app.extensions[_EXTENSION] = store
    return store

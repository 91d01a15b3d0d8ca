"""SQLAlchemy 2.x models of the game store.

* ``games``: one row per game: the engine name, options, ``status``, ``version`` (bumped
  by 1 per accepted action), the current ``snapshot`` (the engine state folded from
  every event, so an action costs the same at move 1000 as at move 1), ``last_seq``
  (the seq of the game's last event: an action appends after it and moves it on in
  the same UPDATE), the ``seed`` (secret until the game is finished) and the referee
  token's SHA-256.
* ``seats``: one row per seat with its token's SHA-256 (tokens themselves are never
  stored).
* ``events``: the append-only record, ``(game_id, seq)`` unique (it is the primary
  key); an UPDATE is refused by a trigger (see the migration).
* ``service_keys``: secrets drawn once by the migrations (the export signing key).
* ``idempotency_keys``: one row per (game, actor, key) -- the actor a seat or
  "referee" -- with the request's hash and what the reply is rebuilt from: an accepted
  action's resulting ``version`` and the ``first_seq``..``last_seq`` of the events it
  appended (the reply is re-rendered from them for that caller, see
  :meth:`service.store.records.GameStore.act`); a refusal's problem body in
  ``response_body`` (small). Never a token: game creation, whose reply carries the
  tokens, takes no idempotency key. A record is written ``done`` in the action's own
  transaction and expires ``IDEMPOTENCY_TTL_SECONDS`` after ``created_at``.
  ``in-flight`` rows (no reply) and whole stored replies were written by earlier
  releases.

The schema itself is built by the Alembic migrations in ``migrations/``, never by
``create_all``; these classes must match them (a test compares).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, MetaData, String, UniqueConstraint
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# JSON everywhere; JSONB on PostgreSQL (compact, comparable).
JSONType = JSON().with_variant(postgresql.JSONB(), "postgresql")
# the same, keeping Python None as SQL NULL (not the JSON text 'null')
NullableJSON = JSON(none_as_null=True).with_variant(
    postgresql.JSONB(none_as_null=True), "postgresql"
)

# The Alembic revision these models match (the newest in migrations/versions, a test
# keeps them equal): the service answers 503 on a database at any other revision.
SCHEMA_REVISION = "0008_two_way_manifest_text"

IN_FLIGHT = "in-flight"
DONE = "done"


def utcnow() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class Game(Base):
    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(40))
    options: Mapped[dict[str, Any]] = mapped_column(JSONType)
    status: Mapped[str] = mapped_column(String(16))
    version: Mapped[int] = mapped_column(Integer)
    snapshot: Mapped[dict[str, Any]] = mapped_column(JSONType)
    last_seq: Mapped[int] = mapped_column(Integer, server_default="0")
    seed: Mapped[str] = mapped_column(String(128))
    referee_token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # bumped by every token re-issue: the event feed ends the streams it opened
    credentials: Mapped[int] = mapped_column(Integer, server_default="0")
    names: Mapped[dict[str, str] | None] = mapped_column(NullableJSON, nullable=True)
    rematch_of: Mapped[str | None] = mapped_column(String(32), nullable=True)  # the game before
    rematch: Mapped[str | None] = mapped_column(String(32), nullable=True)  # the game after

    # NULL: refereed here; {"at": ISO 8601, "verified": bool}: an imported copy
    imported: Mapped[dict[str, Any] | None] = mapped_column(NullableJSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Seat(Base):
    __tablename__ = "seats"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[str] = mapped_column(String(40), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)


class Invitation(Base):
    """A seat's single-use, expiring invitation (its code stored as SHA-256)."""

    __tablename__ = "invitations"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[str] = mapped_column(String(40), primary_key=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class Event(Base):
    __tablename__ = "events"

    game_id: Mapped[str] = mapped_column(
        String(32), ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    type: Mapped[str] = mapped_column(String(64))
    seat: Mapped[str | None] = mapped_column(String(40), nullable=True)
    payload: Mapped[dict[str, Any]] = mapped_column(JSONType)
    # on the first event of an accepted action: who acted and the action (else NULL)
    actor: Mapped[str | None] = mapped_column(String(40), nullable=True)
    action: Mapped[dict[str, Any] | None] = mapped_column(NullableJSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class IdempotencyKey(Base):
    __tablename__ = "idempotency_keys"
    __table_args__ = (UniqueConstraint("game_id", "actor", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(String(32), ForeignKey("games.id", ondelete="CASCADE"))
    actor: Mapped[str] = mapped_column(String(40))
    key: Mapped[str] = mapped_column(String(255))
    request_hash: Mapped[str] = mapped_column(String(64))
    state: Mapped[str] = mapped_column(String(16))
    status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    response_body: Mapped[dict[str, Any] | None] = mapped_column(NullableJSON, nullable=True)
    version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    first_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_seq: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ServiceKey(Base):
    """A secret drawn once by the migration and shared by every worker and host on the
    database (``export-signing``: the key that signs exports when
    ``CARD_REFEREE_SECRET`` is unset)."""

    __tablename__ = "service_keys"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

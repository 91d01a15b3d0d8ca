"""Game store: games, seats, events (append-only), idempotency keys.

Revision ID: 0001_game_store
Revises:
Create Date: 2025-11-30
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001_game_store"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TIMESTAMP = sa.DateTime(timezone=True)

# events are append-only: an UPDATE is refused by the database itself.
_SQLITE_TRIGGER = """
CREATE TRIGGER events_append_only BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END
"""
_PG_FUNCTION = """
CREATE FUNCTION events_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only';
END
$$ LANGUAGE plpgsql
"""
_PG_TRIGGER = """
CREATE TRIGGER events_append_only BEFORE UPDATE ON events
FOR EACH ROW EXECUTE FUNCTION events_append_only()
"""


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("game", sa.String(40), nullable=False),
        sa.Column("options", JSONType, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("snapshot", JSONType, nullable=False),
        sa.Column("seed", sa.String(128), nullable=False),
        sa.Column("referee_token_hash", sa.String(64), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_games"),
        sa.UniqueConstraint("referee_token_hash", name="uq_games_referee_token_hash"),
    )
    op.create_table(
        "seats",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.String(40), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE",
                                name="fk_seats_game_id_games"),
        sa.PrimaryKeyConstraint("game_id", "seat", name="pk_seats"),
        sa.UniqueConstraint("token_hash", name="uq_seats_token_hash"),
    )
    op.create_table(
        "events",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("seat", sa.String(40), nullable=True),
        sa.Column("payload", JSONType, nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE",
                                name="fk_events_game_id_games"),
        sa.PrimaryKeyConstraint("game_id", "seq", name="pk_events"),
    )
    op.create_table(
        "idempotency_keys",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("scope", sa.String(40), nullable=False),
        sa.Column("game_id", sa.String(32), nullable=True),
        sa.Column("actor", sa.String(40), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("response_body", JSONType, nullable=True),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("updated_at", TIMESTAMP, nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE",
                                name="fk_idempotency_keys_game_id_games"),
        sa.PrimaryKeyConstraint("id", name="pk_idempotency_keys"),
        sa.UniqueConstraint("scope", "actor", "key", name="uq_idempotency_keys_scope_actor_key"),
    )
    op.create_index("ix_idempotency_keys_game_id", "idempotency_keys", ["game_id"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute(_PG_FUNCTION)
        op.execute(_PG_TRIGGER)
    elif op.get_bind().dialect.name == "sqlite":
        op.execute(_SQLITE_TRIGGER)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS events_append_only ON events")
        op.execute("DROP FUNCTION IF EXISTS events_append_only()")
    elif op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS events_append_only")
    op.drop_index("ix_idempotency_keys_game_id", table_name="idempotency_keys")
    op.drop_table("idempotency_keys")
    op.drop_table("events")
    op.drop_table("seats")
    op.drop_table("games")

"""Seat names, invitations and rematches.

* ``games.names``: the seats' display names (1-40 printable characters each), a JSON
  object ``{seat: name}`` read with the game row (NULL: none).
* ``invitations``: one per seat at most, a single-use, expiring code (stored as its
  SHA-256 like a token) that a player exchanges for the seat's token
  (``POST /v1/games/{id}/seats/{seat}/join``); ``used_at`` once joined.
* ``games.rematch_of`` / ``games.rematch``: the games a rematch links (no foreign key:
  the purge may delete one of them; a link then leads to a 404).

Revision ID: 0006_seats_invitations
Revises: 0005_credentials
Create Date: 2026-12-01
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006_seats_invitations"
down_revision: str | None = "0005_credentials"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMESTAMP = sa.DateTime(timezone=True)
JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.add_column("games", sa.Column("names", JSON, nullable=True))
    op.add_column("games", sa.Column("rematch_of", sa.String(32), nullable=True))
    op.add_column("games", sa.Column("rematch", sa.String(32), nullable=True))
    op.create_table(
        "invitations",
        sa.Column("game_id", sa.String(32), nullable=False),
        sa.Column("seat", sa.String(40), nullable=False),
        sa.Column("code_hash", sa.String(64), nullable=False),
        sa.Column("expires_at", TIMESTAMP, nullable=False),
        sa.Column("used_at", TIMESTAMP, nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE",
                                name="fk_invitations_game_id_games"),
        sa.PrimaryKeyConstraint("game_id", "seat", name="pk_invitations"),
        sa.UniqueConstraint("code_hash", name="uq_invitations_code_hash"))


def downgrade() -> None:
    op.drop_table("invitations")
    # plain ALTER TABLE ... DROP COLUMN (SQLite >= 3.35): a batch copy of "games" would
    # drop the table, and with foreign keys on that cascades to its events
    op.drop_column("games", "rematch")
    op.drop_column("games", "rematch_of")
    op.drop_column("games", "names")

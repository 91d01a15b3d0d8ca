"""games.last_seq: the seq of the game's last event, kept with the snapshot.

An action appends its events after ``last_seq`` and moves it on in the same UPDATE that
stores the new snapshot, instead of asking ``max(events.seq)`` every time. Existing
games are filled in from their events. Workers of the previous release do not keep
this column: stop them before upgrading (as ``make serve`` does: migrate, then start).

Revision ID: 0002_games_last_seq
Revises: 0001_game_store
Create Date: 2025-12-02
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_games_last_seq"
down_revision: str | None = "0001_game_store"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("last_seq", sa.Integer(), nullable=False,
                                     server_default="0"))
    op.execute("UPDATE games SET last_seq = (SELECT COALESCE(MAX(events.seq), 0) "
               "FROM events WHERE events.game_id = games.id)")


def downgrade() -> None:
    # a plain ALTER TABLE ... DROP COLUMN (SQLite >= 3.35): a batch copy of "games"
    # would drop the table, and with foreign keys on that cascades to its events
    op.drop_column("games", "last_seq")

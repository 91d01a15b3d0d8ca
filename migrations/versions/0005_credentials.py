"""A game's credentials generation: bumped by every token re-issue.

``games.credentials`` counts the re-issues of the game's tokens (a seat's or the
referee's). The event feed reads it with ``last_seq`` (and a re-issue notifies it on
PostgreSQL), so an open stream whose token was re-issued ends within about a second on
every worker and host.

Revision ID: 0005_credentials
Revises: 0004_idempotency_retention
Create Date: 2026-12-01
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_credentials"
down_revision: str | None = "0004_idempotency_retention"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("credentials", sa.Integer(), nullable=False,
                                     server_default="0"))


def downgrade() -> None:
    # a plain ALTER TABLE ... DROP COLUMN (SQLite >= 3.35): a batch copy of "games"
    # would drop the table, and with foreign keys on that cascades to its events
    op.drop_column("games", "credentials")

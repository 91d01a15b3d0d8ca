"""Imports that trust nothing: the actions behind events, imported copies, the export key.

* ``events.actor`` and ``events.action``: on the first event an accepted action
  appended, who acted (a seat or ``referee``) and the action as the engine received it
  (NULL on the other events, and on every event written before this revision). An
  export carries them, so that an import re-derives each event from the engine's
  ``apply`` (:mod:`service.store.rederive`).
* ``games.imported``: NULL for a game refereed here; ``{"at": ISO 8601, "verified":
  bool}`` for a copy made by ``POST /v1/games/import``.
* ``service_keys``: secrets the service draws once and every worker and host on the
  database shares; one row here, ``export-signing`` (64 hex digits), the key that signs
  exports when ``CARD_REFEREE_SECRET`` is unset.

Downgrading drops the three (an imported copy then looks like any game: the previous
release had no way to say so).

Revision ID: 0007_imported
Revises: 0006_seats_invitations
Create Date: 2026-12-01
"""
from __future__ import annotations

import secrets
from datetime import datetime, timezone
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007_imported"
down_revision: str | None = "0006_seats_invitations"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON_NULLABLE = (sa.JSON(none_as_null=True)
                 .with_variant(postgresql.JSONB(none_as_null=True), "postgresql"))


def upgrade() -> None:
    # plain ADD COLUMN (nullable, no default) on both backends: SQLite keeps the
    # events table and its append-only triggers as they are
    op.add_column("events", sa.Column("actor", sa.String(40), nullable=True))
    op.add_column("events", sa.Column("action", JSON_NULLABLE, nullable=True))
    op.add_column("games", sa.Column("imported", JSON_NULLABLE, nullable=True))
    keys = op.create_table(
        "service_keys",
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("value", sa.String(128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_service_keys"))
    op.bulk_insert(keys, [{"name": "export-signing", "value": secrets.token_hex(32),
                           "created_at": datetime.now(timezone.utc)}])


def downgrade() -> None:
    op.drop_table("service_keys")
    # SQLite >= 3.35 drops a column in place too (a batch copy of the events table
    # would lose its append-only triggers)
    for table, column in (("games", "imported"), ("events", "action"), ("events", "actor")):
        op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")

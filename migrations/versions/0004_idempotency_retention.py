"""Idempotency records: small and expiring.

An accepted action's reply is no longer stored: the record keeps the game ``version``
the action produced and the ``first_seq``/``last_seq`` of the events it appended, from
which the store re-renders the same reply for that caller (a refusal keeps its problem
body, a few hundred bytes). The key is unique per (game_id, actor, key): the ``scope``
column repeated the game id, ``updated_at`` repeated ``created_at`` (a record is
written once), and the unique index serves the game's cascade, so the separate
``game_id`` index goes too. Records expire (see ``IDEMPOTENCY_TTL_SECONDS``) and the
purge command deletes them (a scan of ``created_at``: the table holds a day of keys,
an index on it would cost more bytes per action than it saves).

Replies stored whole by the previous release stay as they are and are replayed as
they are (until they expire). Downgrading drops the records of accepted actions (the
previous release could not replay them from a seq range): a retry of such an action
then meets the advanced version (412), never a second effect.

Revision ID: 0004_idempotency_retention
Revises: 0003_one_vocabulary
Create Date: 2025-12-05
"""
from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_idempotency_retention"
down_revision: str | None = "0003_one_vocabulary"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.execute("DELETE FROM idempotency_keys WHERE game_id IS NULL")  # never written
    with op.batch_alter_table("idempotency_keys") as batch:
        batch.drop_constraint("uq_idempotency_keys_scope_actor_key", type_="unique")
        batch.drop_index("ix_idempotency_keys_game_id")
        batch.alter_column("game_id", existing_type=sa.String(32), nullable=False)
        batch.drop_column("scope")
        batch.drop_column("updated_at")
        batch.add_column(sa.Column("version", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("first_seq", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("last_seq", sa.Integer(), nullable=True))
        batch.create_unique_constraint("uq_idempotency_keys_game_id_actor_key",
                                       ["game_id", "actor", "key"])


def downgrade() -> None:
    op.execute("DELETE FROM idempotency_keys WHERE version IS NOT NULL")
    with op.batch_alter_table("idempotency_keys") as batch:
        batch.drop_constraint("uq_idempotency_keys_game_id_actor_key", type_="unique")
        batch.drop_column("last_seq")
        batch.drop_column("first_seq")
        batch.drop_column("version")
        batch.add_column(sa.Column("scope", sa.String(40), nullable=True))
        batch.add_column(sa.Column("updated_at", TIMESTAMP, nullable=True))
    op.execute("UPDATE idempotency_keys SET scope = game_id, updated_at = created_at")
    with op.batch_alter_table("idempotency_keys") as batch:
        batch.alter_column("scope", existing_type=sa.String(40), nullable=False)
        batch.alter_column("updated_at", existing_type=TIMESTAMP, nullable=False)
        batch.alter_column("game_id", existing_type=sa.String(32), nullable=True)
        batch.create_unique_constraint("uq_idempotency_keys_scope_actor_key",
                                       ["scope", "actor", "key"])
    op.create_index("ix_idempotency_keys_game_id", "idempotency_keys", ["game_id"])

"""2-Way Cards snapshots keep the tile manifest as one string.

A 2-Way Cards game's snapshot held its manifest as 108 objects ``{"blue": "AS",
"green": "KH"}``, three quarters of the snapshot that every action reads and writes
back. It is now one string, each tile's faces ``blue/green`` comma-separated in tile
id order (``"AS/KH,2C/JD,..."``, ``service.games.two_way.tiles.manifest_text``; issue
23). The events keep the manifest as they always did: only the snapshots change.

upgrade
    Every 2-Way Cards snapshot whose manifest is a list gets the string (one already a
    string, as 0003 folds it with the engines being installed, is left as it is).
downgrade
    The string becomes the list of objects again.

Stop every worker of the previous release before upgrading (as ``make serve`` does).

Revision ID: 0008_two_way_manifest_text
Revises: 0007_imported
Create Date: 2026-12-07
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0008_two_way_manifest_text"
down_revision: str | None = "0007_imported"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
_games = sa.table("games", sa.column("id", sa.String), sa.column("game", sa.String),
                  sa.column("snapshot", JSONType))


def as_text(manifest: Any) -> Any:
    """The list of tiles as the string (frozen here: tiles.manifest_text)."""
    if not isinstance(manifest, list):
        return manifest
    return ",".join(f"{t['blue']}/{t['green']}" for t in manifest)


def as_list(manifest: Any) -> Any:
    """The string as the list of tiles the previous release kept."""
    if not isinstance(manifest, str):
        return manifest
    return [dict(zip(("blue", "green"), pair.split("/"))) for pair in manifest.split(",")]


def _rewrite(change: Callable[[Any], Any], batch: int = 500) -> None:
    """Every 2-Way Cards snapshot's manifest through ``change``, ``batch`` games at a
    time (in id order: a large store is never read whole)."""
    connection = op.get_bind()
    after = ""
    while True:
        rows = connection.execute(
            sa.select(_games.c.id, _games.c.snapshot)
            .where(_games.c.game == "two-way", _games.c.id > after)
            .order_by(_games.c.id)
            .limit(batch)
        ).all()
        if not rows:
            return
        after = rows[-1][0]
        _rewrite_rows(connection, rows, change)


def _rewrite_rows(connection: Any, rows: Sequence[Any], change: Callable[[Any], Any]) -> None:
    for game_id, snapshot in rows:
        if not isinstance(snapshot, dict) or "manifest" not in snapshot:
            continue
        changed = change(snapshot["manifest"])
        if changed != snapshot["manifest"]:
            connection.execute(
                _games.update()
                .where(_games.c.id == game_id)
                .values(snapshot={**snapshot, "manifest": changed})
            )


def upgrade() -> None:
    _rewrite(as_text)


def downgrade() -> None:
    _rewrite(as_list)

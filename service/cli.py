"""Operator commands: ``flask --app service purge`` (README, "Operating")."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import click
from flask import current_app
from flask.cli import with_appcontext

from service.store import GameStore, SchemaNotCurrent, get_store
from service.store.models import utcnow
from service.store.retention import purge


class _Days(click.ParamType):
    """A number of days > 0, or ``never``."""

    name = "days"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float | None:
        if value is None or isinstance(value, float):
            return value
        if str(value).strip().lower() == "never":
            return None
        try:
            days = float(value)
        except ValueError:
            self.fail(f"{value!r}: a number of days, or never", param, ctx)
        if not 0 < days < float("inf"):
            self.fail(f"{value!r}: a number of days > 0, or never", param, ctx)
        return days


@click.command("purge")
@click.option(
    "--finished-days",
    type=_Days(),
    default=None,
    help="delete finished games whose last action is older than this many "
    "days (default RETAIN_FINISHED_DAYS, 30; 'never' keeps them)",
)
@click.option(
    "--abandoned-days",
    type=_Days(),
    default=None,
    help="delete unfinished games without an action for this many days "
    "(default RETAIN_ABANDONED_DAYS, 30; 'never' keeps them)",
)
@click.option(
    "--export-dir",
    type=click.Path(file_okay=False, writable=True),
    default=None,
    help="write each game's archive there first (<id>.json, mode 0600: the "
    "whole record, the seed of an unfinished game too; POST it to "
    "/v1/games/import to restore the game)",
)
@click.option("--dry-run", is_flag=True, help="count what would be deleted, delete nothing")
@with_appcontext
def purge_command(
    finished_days: float | None,
    abandoned_days: float | None,
    export_dir: str | None,
    dry_run: bool,
) -> None:
    """Delete expired idempotency records, and finished and abandoned games past their
    retention (a live game is never touched). Run it from cron, e.g. hourly."""
    config = current_app.config
    finished = _default(finished_days, config["RETAIN_FINISHED_DAYS"], "--finished-days")
    abandoned = _default(abandoned_days, config["RETAIN_ABANDONED_DAYS"], "--abandoned-days")
    now = utcnow()
    try:
        store = get_store(current_app)
    except SchemaNotCurrent as error:
        raise click.ClickException(str(error)) from error
    archive = None if export_dir is None else _archiver(store, export_dir)
    report = purge(
        store,
        None if finished is None else now - timedelta(days=finished),
        None if abandoned is None else now - timedelta(days=abandoned),
        dry_run=dry_run,
        archive=archive,
    )
    click.echo(("would delete " if dry_run else "deleted ") + str(report))


def _archiver(store: GameStore, directory: str) -> Callable[[str], None]:
    """The purge's ``archive``: each game's archive written into ``directory``
    (``--export-dir``) before the game is deleted."""
    from service.store.transfer import write_export

    secret = current_app.config.get("EXPORT_SECRET")

    def archive(game_id: str) -> None:
        write_export(store, game_id, directory, secret)

    return archive


def _default(given: float | None, configured: float | None, option: str) -> float | None:
    """The option as given, else the configured default (``never`` is None either way)."""
    ctx = click.get_current_context()
    source = ctx.get_parameter_source(option.lstrip("-").replace("-", "_"))
    return given if source == click.core.ParameterSource.COMMANDLINE else configured

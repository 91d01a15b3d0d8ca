"""Operator commands: ``flask --app service purge`` (README, "Operating")."""

from __future__ import annotations

from datetime import timedelta

import click
from flask import current_app
from flask.cli import with_appcontext

from service.store import SchemaNotCurrent, get_store
from service.store.models import utcnow
from service.store.retention import purge


class _Days(click.ParamType):
    """A number of days > 0, or ``never``."""

    name = "days"

    def convert(self, value, param, ctx):
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
def purge_command(finished_days, abandoned_days, export_dir, dry_run):
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
    archive = None
    if export_dir is not None:
        from service.store.transfer import write_export

        secret = current_app.config.get("EXPORT_SECRET")
        archive = lambda game_id: write_export(store, game_id, export_dir, secret)  # noqa: E731
    report = purge(
        store,
        None if finished is None else now - timedelta(days=finished),
        None if abandoned is None else now - timedelta(days=abandoned),
        dry_run=dry_run,
        archive=archive,
    )
    click.echo(("would delete " if dry_run else "deleted ") + str(report))


def _default(given, configured, option: str):
    """The option as given, else the configured default (``never`` is None either way)."""
    ctx = click.get_current_context()
    source = ctx.get_parameter_source(option.lstrip("-").replace("-", "_"))
    return given if source == click.core.ParameterSource.COMMANDLINE else configured

"""The ``card-referee`` command (a console script of the package): serve, migrate,
purge, and write the contract, for a service installed with ``pip install .``.

    card-referee serve [--host 127.0.0.1] [--port 8000] [--workers 4]
        # migrates the database first (DATABASE_URL, else var/card-referee.sqlite3),
        # then runs gunicorn with the packaged settings (service/gunicorn.conf.py)
    card-referee migrate                  # alembic upgrade head, nothing else
    card-referee purge [--dry-run ...]    # as `flask --app service purge`
    card-referee openapi write --format yaml openapi.yaml   # the contract
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click
from flask.cli import FlaskGroup

from service.data import PACKAGE, data_dir


def _app():
    from service import create_app

    return create_app()


@click.group(
    cls=FlaskGroup,
    create_app=_app,
    add_default_commands=False,
    add_version_option=False,
    load_dotenv=False,
)
def main() -> None:
    """Card Referee: a REST API that referees 2-Way Cards, Sequence, Sequence Numbers,
    Halves and Solitaire Frenzy."""


def migrate_database(url: str | None = None) -> None:
    """``alembic upgrade head`` on ``url`` (default: DATABASE_URL, else the SQLite file
    var/card-referee.sqlite3) with the packaged migrations."""
    from alembic import command
    from alembic.config import Config

    from service.config import database_url

    config = Config()
    config.set_main_option("script_location", str(data_dir("migrations")))
    config.attributes["url"] = url or database_url()
    config.attributes["configure_logger"] = False
    command.upgrade(config, "head")


@main.command("migrate")
def migrate_command() -> None:
    """Bring the database to this release's schema (alembic upgrade head)."""
    migrate_database()
    click.echo("database migrated")


@main.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--workers", default=4, show_default=True, type=click.IntRange(1, 64))
def serve_command(host: str, port: int, workers: int) -> None:
    """Migrate the database, then serve with gunicorn (gevent workers)."""
    migrate_database()
    metrics = Path(
        os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", str(Path.cwd() / "var" / "prometheus"))
    )
    metrics.mkdir(parents=True, exist_ok=True)
    for stale in metrics.glob("*.db"):
        stale.unlink()
    argv = [
        sys.executable,
        "-m",
        "gunicorn",
        "--config",
        str(PACKAGE / "gunicorn.conf.py"),
        "--workers",
        str(workers),
        "--bind",
        f"{host}:{port}",
        "--no-control-socket",
        "service:create_app()",
    ]
    os.execv(sys.executable, argv)


if __name__ == "__main__":
    main()

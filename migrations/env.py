"""Alembic environment: runs the migrations online against one database.

The URL comes, in order, from ``config.attributes["url"]`` (tests pass it through the
command API), the ``sqlalchemy.url`` option, or :func:`service.config.database_url`
(the ``DATABASE_URL`` environment variable, else the SQLite file under ``var/``).
The engine is the store's own (:func:`service.store.db.make_engine`), so on SQLite the
migrations run inside a real ``BEGIN`` ... ``COMMIT`` (transactional DDL) in WAL mode.
"""
from __future__ import annotations

from logging.config import fileConfig

from alembic import context

from service.config import database_url
from service.store.db import make_engine
from service.store.models import Base

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def _url() -> str:
    return (config.attributes.get("url") or config.get_main_option("sqlalchemy.url")
            or database_url())


def run_migrations_offline() -> None:
    """Emit SQL to stdout (``alembic upgrade head --sql``)."""
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True,
                      render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    """Connect and migrate in one transaction per run."""
    engine = make_engine(_url())
    try:
        with engine.connect() as connection:
            context.configure(connection=connection, target_metadata=target_metadata,
                              render_as_batch=connection.dialect.name == "sqlite",
                              # our SQLite engine emits BEGIN itself: DDL is transactional
                              transactional_ddl=True)
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()

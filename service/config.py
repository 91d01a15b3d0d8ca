"""Settings read from the environment."""
from __future__ import annotations

import os
from pathlib import Path


def database_url() -> str:
    """``DATABASE_URL`` if set, else an SQLite file ``var/card-referee.sqlite3``
    under the current directory (the directory is created)."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return url
    path = Path.cwd() / "var" / "card-referee.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


SECRET_ENV = "CARD_REFEREE_SECRET"


def secret_key() -> str | None:
    """``CARD_REFEREE_SECRET``: the key that signs stream tickets. Every worker and
    every host serving one database must have the same one (a ticket issued by one is
    used on another). ``make serve`` (gunicorn.conf.py) draws one per server start
    when it is unset; None when unset here (the app then draws one for this process
    alone)."""
    return os.environ.get(SECRET_ENV) or None

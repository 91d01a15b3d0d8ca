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

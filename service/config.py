"""Settings read from the environment (README, "Operating").

:func:`settings` gives every operator setting as Flask config; a malformed value
stops the app at start with a message naming the variable (never a surprise later).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

HOUR = 3600
DAY = 24 * HOUR


class ConfigError(ValueError):
    """An environment variable holds a value the service cannot use."""


def database_url() -> str:
    """``DATABASE_URL`` if set, else an SQLite file ``var/card-referee.sqlite3``
    under the current directory (the directory is created)."""
    url = os.environ.get("DATABASE_URL")
    if url:
        return url
    path = Path.cwd() / "var" / "card-referee.sqlite3"
    path.parent.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{path}"


def _number(name: str, default: float, minimum: float = 0) -> float:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r}: expected a number") from None
    if not value >= minimum or value == float("inf"):
        raise ConfigError(f"{name}={raw!r}: expected a number >= {minimum}")
    return value


def _days_or_never(name: str, default: float) -> float | None:
    """Days (> 0), or ``never`` (None: that kind of game is never purged)."""
    if os.environ.get(name, "").strip().lower() == "never":
        return None
    days = _number(name, default)
    if days <= 0:
        raise ConfigError(f"{name}: a number of days > 0, or never")
    return days


def _flag(name: str, default: bool) -> bool:
    raw = os.environ.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name}={raw!r}: expected true or false")


def _choice(name: str, default: str, choices: tuple[str, ...]) -> str:
    raw = os.environ.get(name, "").strip().lower() or default
    if raw not in choices:
        raise ConfigError(f"{name}={raw!r}: expected one of {', '.join(choices)}")
    return raw


def api_keys() -> tuple[str, ...]:
    """``API_KEYS``: comma-separated keys (each 16 to 256 visible ASCII characters, no
    comma); empty or unset: game creation and import stay open."""
    keys = tuple(k.strip() for k in os.environ.get("API_KEYS", "").split(",") if k.strip())
    for key in keys:
        if not (16 <= len(key) <= 256 and all("\x21" <= ch <= "\x7e" for ch in key)):
            raise ConfigError("API_KEYS: each key is 16 to 256 visible ASCII characters")
    return keys


def read_deadline() -> float:
    """``READ_DEADLINE_SECONDS`` [15]: seconds a request may take to arrive whole,
    headers and body (service.server)."""
    seconds = _number("READ_DEADLINE_SECONDS", 15)
    if seconds <= 0:
        raise ConfigError("READ_DEADLINE_SECONDS: a number of seconds > 0")
    return seconds


def max_connections_per_address() -> int:
    """``MAX_CONNECTIONS_PER_ADDRESS`` [100 per worker; 0 (off) when
    ``TRUSTED_PROXY_HOPS`` > 0, where the proxy is every connection's address]: open
    connections one client address may hold in each worker (service.server); 0: no
    cap."""
    if not os.environ.get("MAX_CONNECTIONS_PER_ADDRESS", "").strip():
        return 0 if _number("TRUSTED_PROXY_HOPS", 0) else 100
    return int(_number("MAX_CONNECTIONS_PER_ADDRESS", 100))


def cors_origins() -> tuple[str, ...]:
    """``CORS_ORIGINS``: comma-separated origins (``scheme://host[:port]``, no path) a
    browser front end may call the API from, or ``*`` (any origin; credentials are
    never allowed, see :mod:`service.cors`); empty or unset: none."""
    origins = tuple(
        o.strip().rstrip("/") for o in os.environ.get("CORS_ORIGINS", "").split(",") if o.strip()
    )
    for origin in origins:
        scheme, sep, rest = origin.partition("://")
        if origin != "*" and (
            scheme not in ("http", "https")
            or not sep
            or not rest
            or "/" in rest
            or any(ch.isspace() for ch in rest)
        ):
            raise ConfigError(
                f"CORS_ORIGINS: {origin!r} is not an origin like "
                "https://app.example or http://localhost:3000, nor *"
            )
    return origins


def settings() -> dict[str, Any]:
    """Every setting from the environment, as Flask config (defaults in brackets):

    * ``DATABASE_URL`` [SQLite file var/card-referee.sqlite3];
    * ``IDEMPOTENCY_TTL_SECONDS`` [86400]: how long an Idempotency-Key is replayed;
    * ``RETAIN_FINISHED_DAYS`` [30], ``RETAIN_ABANDONED_DAYS`` [30]: the purge's
      defaults (days since the last action, or ``never``);
    * ``API_KEYS`` [none: open]: keys that POST /v1/games and import need;
    * ``RATELIMIT_CREATE`` [30 per minute, per client: a configured API key, else the
      address], ``RATELIMIT_IMPORT_COST`` [5: creations an import counts as],
      ``RATELIMIT_ACTIONS`` [20 per second, per seat (or referee) of a game],
      ``RATELIMIT_STORAGE_URI`` [memory://, per process;
      ``redis://host:6379`` to share], ``RATELIMIT_ENABLED`` [true];
    * ``CORS_ORIGINS`` [none]: origins of browser front ends allowed to call the API;
    * ``TRUSTED_PROXY_HOPS`` [0]: proxies in front whose X-Forwarded-For is believed;
    * ``MAX_IMPORT_BYTES`` [4194304]: the largest export POST /v1/games/import takes;
    * ``READ_DEADLINE_SECONDS`` [15], ``MAX_CONNECTIONS_PER_ADDRESS`` [100 per worker]:
      the gunicorn worker's limits (:mod:`service.server`);

    * ``CARD_REFEREE_SECRET`` [a key drawn into the database]: signs exports
      (``EXPORT_SECRET``; see :func:`export_secret`) and stream tickets;
    * ``LOG_FORMAT`` [json] (or text), ``LOG_LEVEL`` [INFO];
    * ``PROMETHEUS_MULTIPROC_DIR``: read by prometheus-client itself (see README).
    """
    return {
        "DATABASE_URL": database_url(),
        "IDEMPOTENCY_TTL_SECONDS": _number("IDEMPOTENCY_TTL_SECONDS", DAY),
        "RETAIN_FINISHED_DAYS": _days_or_never("RETAIN_FINISHED_DAYS", 30),
        "RETAIN_ABANDONED_DAYS": _days_or_never("RETAIN_ABANDONED_DAYS", 30),
        "API_KEYS": api_keys(),
        "RATELIMIT_CREATE": os.environ.get("RATELIMIT_CREATE", "30 per minute"),
        "RATELIMIT_ACTIONS": os.environ.get("RATELIMIT_ACTIONS", "20 per second"),
        "RATELIMIT_IMPORT_COST": int(_number("RATELIMIT_IMPORT_COST", 5, 1)),
        "RATELIMIT_STORAGE_URI": os.environ.get("RATELIMIT_STORAGE_URI", "memory://"),
        "RATELIMIT_ENABLED": _flag("RATELIMIT_ENABLED", True),
        "CORS_ORIGINS": cors_origins(),
        "TRUSTED_PROXY_HOPS": int(_number("TRUSTED_PROXY_HOPS", 0)),
        "MAX_IMPORT_BYTES": int(_number("MAX_IMPORT_BYTES", 4 * 1024 * 1024, 1024)),
        # the gunicorn worker's (service.server), checked here too: at start
        "READ_DEADLINE_SECONDS": read_deadline(),
        "MAX_CONNECTIONS_PER_ADDRESS": max_connections_per_address(),
        "EXPORT_SECRET": export_secret(),
        "LOG_FORMAT": _choice("LOG_FORMAT", "json", ("json", "text")),
        "LOG_LEVEL": _choice("LOG_LEVEL", "info", ("debug", "info", "warning", "error")),
    }


SECRET_ENV = "CARD_REFEREE_SECRET"


def secret_key() -> str | None:
    """``CARD_REFEREE_SECRET``: the key that signs stream tickets. Every worker and
    every host serving one database must have the same one (a ticket issued by one is
    used on another). ``make serve`` (gunicorn.conf.py) draws one per server start
    when it is unset; None when unset here (the app then draws one for this process
    alone)."""
    return os.environ.get(SECRET_ENV) or None


# set by gunicorn.conf.py when it drew CARD_REFEREE_SECRET for one server's lifetime
SECRET_DRAWN_ENV = "CARD_REFEREE_SECRET_DRAWN"


def export_secret() -> str | None:
    """``CARD_REFEREE_SECRET`` as the operator set it: the key that signs exports
    (service.store.signing). None when unset, or when gunicorn.conf.py drew it for
    one server's lifetime: exports are then signed with the key migration 0005 drew
    into the database, which every worker and host on that database shares and which
    survives restarts."""
    if os.environ.get(SECRET_DRAWN_ENV):
        return None
    return secret_key()

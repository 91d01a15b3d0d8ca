"""Creation limits (issue 11, item 2): API keys and rate limits.

* ``API_KEYS`` (comma-separated): when set, ``POST /v1/games`` and ``POST
  /v1/games/import`` need ``X-API-Key: <one of them>``: none, 401 ``api-key-required``;
  another, 403 ``api-key-refused``. Unset: both stay open (local use).
* Rate limits, by Flask-Limiter: game creation and import share ``RATELIMIT_CREATE``
  per client: the API key when it is one of ``API_KEYS``, else the client address
  (the peer, or with ``TRUSTED_PROXY_HOPS`` the address that many proxies forwarded):
  an X-API-Key the operator did not configure is no client of its own, so sending a
  new one per request gains nothing. An import costs ``RATELIMIT_IMPORT_COST`` (5)
  creations (it writes a whole game at once). Actions have ``RATELIMIT_ACTIONS`` per
  actor, after authentication: the game and the seat (or its referee) the token
  opens, so the header's spelling (``bearer``, extra spaces) is no new bucket, and a
  re-issued token keeps its seat's count. A request over a limit is a 429 problem
  ``rate-limited`` with ``Retry-After``
  (seconds) and the ``X-RateLimit-*`` headers. Counts live in ``RATELIMIT_STORAGE_URI``:
  ``memory://`` (the default) counts per process, so N gunicorn workers allow up to N
  times the limit; ``redis://host:6379`` shares one count between workers and hosts.
"""

from __future__ import annotations

import hashlib
import hmac

from flask import Flask, Response
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from werkzeug.middleware.proxy_fix import ProxyFix

from service.context import current_flask, current_g, current_request
from service.errors import problem
from service.messages import Message

API_KEY_HEADER = "X-API-Key"
# endpoints that create a game (the API key and the creation limit apply to them)
CREATING = ("games.create_game", "records.import_record")
ACTING = ("games.post_action",)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def require_api_key() -> Response | None:
    """The API key check of :data:`CREATING` endpoints (a ``before_request`` hook)."""
    keys = current_flask().config["API_KEYS"]
    http = current_request()
    if not keys or http.endpoint not in CREATING:
        return None
    sent = http.headers.get(API_KEY_HEADER)
    if not sent:
        return problem(
            401,
            "api-key-required",
            Message("Send %(header)s: <your API key>.", header=API_KEY_HEADER),
            headers={"WWW-Authenticate": 'ApiKey realm="card-referee"'},
        )
    if not any(hmac.compare_digest(_digest(sent), _digest(key)) for key in keys):
        return problem(403, "api-key-refused", Message("This API key is not accepted here."))
    return None


def _client() -> str:
    """Who is creating: a configured API key (hashed), else the address. (With
    ``API_KEYS`` set, any other key was refused before; without, every key is one
    the operator never handed out: the address counts.)"""
    sent = current_request().headers.get(API_KEY_HEADER)
    keys = current_flask().config["API_KEYS"]
    if sent and any(hmac.compare_digest(_digest(sent), _digest(key)) for key in keys):
        return "key:" + _digest(sent)[:32]
    return "addr:" + get_remote_address()


def _creation_cost() -> int:
    """An import counts as ``RATELIMIT_IMPORT_COST`` creations, a creation as one."""
    if current_request().endpoint == "records.import_record":
        return current_flask().config["RATELIMIT_IMPORT_COST"]
    return 1


def _actor() -> str:
    """Who is acting: the game and the actor its token authenticated as (the
    limit runs after authentication: a refused token never reaches it)."""
    game_id = (current_request().view_args or {}).get("game_id", "")
    return f"actor:{game_id}:{current_g().get('actor', '')}"


def init_limits(app: Flask) -> Limiter:
    """Check API keys and apply the rate limits on ``app`` (its blueprints registered)."""
    hops = app.config["TRUSTED_PROXY_HOPS"]
    if hops:  # Flask's way to add WSGI middleware: replace the app's wsgi_app method
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops)  # type: ignore[method-assign]
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", True)
    limiter = Limiter(get_remote_address, app=app)
    app.extensions["card-referee-limiter"] = limiter  # the limits hold it weakly
    app.before_request(require_api_key)
    create = limiter.shared_limit(
        lambda: current_flask().config["RATELIMIT_CREATE"],
        scope="create",
        key_func=_client,
        cost=_creation_cost,
        error_message=lambda: Message(
            "Too many games created or imported by this client: at most %(limit)s.",
            limit=current_flask().config["RATELIMIT_CREATE"],
        ),
    )
    act = limiter.limit(
        lambda: current_flask().config["RATELIMIT_ACTIONS"],
        key_func=_actor,
        error_message=lambda: Message(
            "Too many actions with this token: at most %(limit)s.",
            limit=current_flask().config["RATELIMIT_ACTIONS"],
        ),
    )
    if not app.config["RATELIMIT_ENABLED"]:
        return limiter  # limits off: the views stay unwrapped (no cost per request)
    manager = limiter.limit_manager
    if not (manager.default_limits or manager.application_limits):
        # Flask-Limiter also checks every request in a hook of its own, for default and
        # application limits. There are none here: the limited views' wrappers below
        # check their limits. Without the hook, a /healthz is about a third cheaper and
        # an action 7% (interpreter instructions, bench/bench_instructions.py).
        app.before_request_funcs[None].remove(limiter._check_request_limit)
    for endpoints, limit in ((CREATING, create), (ACTING, act)):
        for endpoint in endpoints:
            # limit() returns the view wrapped, with its signature (Callable[P, R] in,
            # Callable[P, R] out); mypy solves that for RouteCallable, a union of a sync
            # and an async view, as neither member
            app.view_functions[endpoint] = limit(app.view_functions[endpoint])  # type: ignore[assignment]
    return limiter

"""Observability (issue 11, item 5): structured logs with a request id, Prometheus metrics.

Logs: every record of the ``service`` loggers goes to stderr, one JSON object a line
(python-json-logger; ``LOG_FORMAT=text`` for plain lines), with ``time`` (ISO 8601,
UTC), ``level``,
``logger``, ``message`` and, inside a request, ``request_id``. Each request ends with one
``request`` record: ``method``, ``route`` (the URL rule, e.g.
``/v1/games/<game_id>/actions``), ``path``, ``status``, ``duration_ms``. A 5xx is
logged with its traceback by Flask under the same request id.

Request id: ``X-Request-Id`` from the client when it is 1 to 128 characters of
``A-Z a-z 0-9 . _ : -`` (anything else is replaced, never echoed), otherwise a new
random one; sent back in ``X-Request-Id`` on every response.

Metrics (prometheus-client), at ``GET /metrics`` in the text exposition format:

* ``card_referee_http_requests_total{method, route, status}``;
* ``card_referee_http_request_duration_seconds{method, route}`` (histogram);
  ``method`` is one of GET HEAD POST PUT PATCH DELETE OPTIONS, or ``OTHER`` for any
  method a client made up (answered 405), so that no client adds series at will;
* ``card_referee_actions_total{game}``: accepted actions;
* ``card_referee_action_refusals_total{game, code}``: actions the store refused (rule
  violations with the engine's code, 412 version-mismatch, 428 version-required);
* ``card_referee_idempotent_replays_total``: replies replayed for an Idempotency-Key;
* ``card_referee_games_created_total{game, how}`` (how: created or imported).

Under gunicorn with several workers each worker counts for itself: set
``PROMETHEUS_MULTIPROC_DIR`` to an empty directory before gunicorn starts (``make serve``
does), and ``/metrics`` adds up every worker's files (prometheus-client's multiprocess
mode; ``gunicorn.conf.py`` tells it when a worker exits).
"""

from __future__ import annotations

import logging
import os
import re
import secrets
import sys
import time
from typing import Any

from flask import Flask, Response, has_request_context
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from pythonjsonlogger.orjson import OrjsonFormatter

from service.context import current_g, current_request
from service.store import Applied, Refused

REQUEST_ID_HEADER = "X-Request-Id"
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_HANDLER_MARK = "card_referee_handler"

REQUESTS = Counter(
    "card_referee_http_requests", "HTTP requests answered", ["method", "route", "status"]
)
LATENCY = Histogram(
    "card_referee_http_request_duration_seconds",
    "Time from the request reaching the app to its response",
    ["method", "route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
ACTIONS = Counter("card_referee_actions", "Actions accepted", ["game"])
REFUSALS = Counter("card_referee_action_refusals", "Actions refused by the store", ["game", "code"])
REPLAYS = Counter("card_referee_idempotent_replays", "Replies replayed for an Idempotency-Key")
GAMES = Counter("card_referee_games_created", "Games created or imported", ["game", "how"])
# the methods the metrics name (any other is counted as OTHER: see _series)
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
_SERIES: dict[tuple[str, str, int], tuple[Any, Any]] = {}
_CHILDREN: dict[tuple[Counter, tuple[str, ...]], Any] = {}
_REQUEST_LOG = logging.getLogger("service.request")


class _RequestIdFilter(logging.Filter):
    """Puts ``request_id`` on every record made inside a request."""

    def filter(self, record: logging.LogRecord) -> bool:
        if has_request_context():
            request_id = current_g().get("request_id")
            if request_id is not None:
                record.request_id = request_id
        return True


def configure_logging(app: Flask) -> None:
    """The ``service`` loggers write to stderr as ``LOG_FORMAT`` (json or text) at
    ``LOG_LEVEL``; calling it again (another app in one process) replaces the handler."""
    logger = logging.getLogger("service")
    for handler in [h for h in logger.handlers if getattr(h, _HANDLER_MARK, False)]:
        logger.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    setattr(handler, _HANDLER_MARK, True)
    if app.config["LOG_FORMAT"] == "json":
        # python-json-logger's orjson formatter: one compact UTF-8 JSON object per line
        # (formatting a request's record measured 10.5 us, against 29 us by its
        # standard-library formatter; issue 23)
        handler.setFormatter(
            OrjsonFormatter(
                "{levelname}{name}{message}",
                style="{",
                timestamp="time",
                rename_fields={"levelname": "level", "name": "logger"},
            )
        )
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    handler.addFilter(_RequestIdFilter())
    logger.addHandler(handler)
    logger.setLevel(app.config["LOG_LEVEL"].upper())
    logger.propagate = False


def _start() -> None:
    sent = current_request().headers.get(REQUEST_ID_HEADER, "")
    context = current_g()
    context.request_id = sent if _REQUEST_ID.fullmatch(sent) else secrets.token_hex(16)
    context.started = time.perf_counter()


def _series(method: str, route: str, status: int) -> tuple[Any, Any]:
    """The request's two series, the count and the latency, taken from the metrics
    once per (method, route, status) and remembered (prometheus-client's ``labels``
    checks and locks on every call: 4 to 6 us each under gunicorn's multiprocess
    mode). A method outside :data:`METHODS` is counted as ``OTHER``: a client
    inventing methods makes no new series (nor entries here)."""
    key = (method if method in METHODS else "OTHER", route, status)
    found = _SERIES.get(key)
    if found is None:
        found = _SERIES[key] = (
            REQUESTS.labels(key[0], route, str(status)),
            LATENCY.labels(key[0], route),
        )
    return found


def _finish(response: Response) -> Response:
    context = current_g()
    started = context.get("started")
    if started is None:  # the request never reached our first hook
        return response
    elapsed = time.perf_counter() - started
    http = current_request()
    rule, method, status = http.url_rule, http.method, response.status_code
    route = rule.rule if rule is not None else "unmatched"
    count, latency = _series(method, route, status)
    count.inc()
    latency.observe(elapsed)
    response.headers[REQUEST_ID_HEADER] = context.request_id
    _REQUEST_LOG.info(
        "request",
        extra={
            "method": method,
            "route": route,
            "path": http.path,
            "status": status,
            "duration_ms": round(elapsed * 1000, 3),
        },
    )
    return response


def count_action(outcome: Applied | Refused | None, replayed: bool) -> None:
    """Count one action's outcome (``replayed``: a reply given again, counted apart).
    Each series is taken from its metric once and remembered, as :func:`_series`
    does (its labels are a game and an engine's refusal code: a few dozen at most)."""
    if replayed:
        REPLAYS.inc()
    elif isinstance(outcome, Applied):
        _child(ACTIONS, outcome.game.game).inc()
    elif isinstance(outcome, Refused):
        _child(REFUSALS, outcome.game or "unknown", outcome.code).inc()


def _child(metric: Counter, *labels: str) -> Any:
    """``metric.labels(*labels)``, remembered (about 1 us a call saved in gunicorn's
    multiprocess mode)."""
    key = (metric, labels)
    found = _CHILDREN.get(key)
    if found is None:
        found = _CHILDREN[key] = metric.labels(*labels)
    return found


def count_game(game: str, how: str) -> None:
    """Count a game ``created`` or ``imported``."""
    GAMES.labels(game, how).inc()


def metrics() -> Response:
    """The metrics in the Prometheus text format: this process's, or with
    ``PROMETHEUS_MULTIPROC_DIR`` every gunicorn worker's added up."""
    registry = REGISTRY
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    return Response(
        generate_latest(registry),
        content_type=CONTENT_TYPE_LATEST,
        headers={"Cache-Control": "no-store"},
    )


def init_observability(app: Flask) -> None:
    """Request ids, the request log and the HTTP metrics on ``app`` (call it before
    any other ``before_request`` hook is registered, so that every request is seen)."""
    configure_logging(app)
    app.before_request(_start)
    app.after_request(_finish)

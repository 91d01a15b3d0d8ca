"""Liveness and metrics."""

from __future__ import annotations

from marshmallow import Schema, fields

from flask import current_app
from sqlalchemy.exc import DBAPIError

from service.api.base import Blueprint
from service.errors import problem
from service.messages import Message
from service.observability import metrics
from service.store import check_schema, get_store

blp = Blueprint("meta", __name__, description="Service health and metrics")


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"example": "ok"})


@blp.get("/healthz")
@blp.response(200, HealthSchema)
@blp.doc(operationId="getHealth")
def healthz():
    """Liveness probe: ``{"status": "ok"}`` while the process serves requests."""
    return {"status": "ok"}


@blp.get("/readyz")
@blp.response(200, HealthSchema)
@blp.alt_response(503, response="SERVICE_UNAVAILABLE")
@blp.doc(operationId="getReadiness")
def readyz():
    """Readiness probe: `{"status": "ready"}` when the database answers and is at
    this release's migration; otherwise 503, `schema-not-current` (naming both
    revisions) or `unavailable` (the database cannot be reached)."""
    try:
        check_schema(get_store(current_app))
    except DBAPIError:
        return problem(
            503,
            "unavailable",
            Message("The database cannot be reached."),
            headers={"Retry-After": "5"},
        )
    return {"status": "ready"}


@blp.get("/metrics")
@blp.doc(
    responses={
        "200": {
            "description": "Prometheus text exposition format",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        }
    }
)
def get_metrics():
    """Prometheus metrics: requests by route and status, latency histograms, actions
    and refusals by game and code, replays, games created (service.observability).
    Every gunicorn worker's counts added up when PROMETHEUS_MULTIPROC_DIR is set."""
    return metrics()

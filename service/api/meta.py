"""Liveness and metrics."""
from __future__ import annotations

from marshmallow import Schema, fields

from service.api.base import Blueprint
from service.observability import metrics

blp = Blueprint("meta", __name__, description="Service health and metrics")


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"example": "ok"})


@blp.get("/healthz")
@blp.response(200, HealthSchema)
def healthz():
    """Liveness probe: ``{"status": "ok"}`` while the process serves requests."""
    return {"status": "ok"}


@blp.get("/metrics")
@blp.doc(responses={"200": {
    "description": "Prometheus text exposition format",
    "content": {"text/plain": {"schema": {"type": "string"}}}}})
def get_metrics():
    """Prometheus metrics: requests by route and status, latency histograms, actions
    and refusals by game and code, replays, games created (service.observability).
    Every gunicorn worker's counts added up when PROMETHEUS_MULTIPROC_DIR is set."""
    return metrics()

"""Liveness."""
from __future__ import annotations

from marshmallow import Schema, fields

from service.api.base import Blueprint

blp = Blueprint("meta", __name__, description="Service health")


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"example": "ok"})


@blp.get("/healthz")
@blp.response(200, HealthSchema)
def healthz():
    """Liveness probe: ``{"status": "ok"}`` while the process serves requests."""
    return {"status": "ok"}

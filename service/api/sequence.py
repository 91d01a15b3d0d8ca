"""Stateless sequence validation endpoints (no database)."""
from __future__ import annotations

from service.api.base import Blueprint

blp = Blueprint("sequence", __name__, url_prefix="/v1/sequence",
                description="sequence validation")

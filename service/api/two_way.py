"""Stateless two-way validation endpoints (no database)."""
from __future__ import annotations

from service.api.base import Blueprint

blp = Blueprint("two-way", __name__, url_prefix="/v1/two-way",
                description="two-way validation")

"""Shared assertion for RFC 9457 problem responses."""
from __future__ import annotations

PROBLEM = "application/problem+json"


def assert_problem(response, status: int, code: str | None = None) -> dict:
    """Assert ``response`` is a problem with ``status`` (and ``code``); return its body."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == PROBLEM
    body = response.get_json(force=True)
    assert body["status"] == status
    assert {"type", "title", "detail", "code"} <= body.keys()
    if code:
        assert body["code"] == code
    return body

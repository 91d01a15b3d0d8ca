"""Shared test helpers: the RFC 9457 problem assertion, a walk over nested keys, the
play client's transport over a Flask test client."""

from __future__ import annotations

import json

from service.play import Reply

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


def walk_keys(value: object):
    """Every dict key anywhere inside ``value`` (to look for a leaked field)."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from walk_keys(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk_keys(item)


class ClientTransport:
    """service.play.Transport over a Flask test client."""

    def __init__(self, client):
        self.client = client

    def request(self, method, path, body=None, headers=None) -> Reply:
        response = self.client.open(path, method=method, json=body, headers=headers or {})
        data = response.get_data()
        return Reply(
            response.status_code,
            json.loads(data) if data else None,
            {k.lower(): v for k, v in response.headers.items()},
        )


class StreamingTransport(ClientTransport):
    """ClientTransport that also opens event streams (so that the play client follows
    games): the stream's body as the app yields it (the generator runs in the reading
    thread; it ends with its game, its time or the app's feed); None for a 204."""

    def stream(self, path, headers):
        response = self.client.get(path, headers=headers, buffered=False)
        if response.status_code == 204:
            return None
        if response.status_code != 200:
            raise OSError(f"GET {path}: HTTP {response.status_code}")
        return StreamBody(response)


class StreamBody:
    def __init__(self, response):
        self.response = response

    def __iter__(self):
        return iter(self.response.response)

    def close(self):
        pass

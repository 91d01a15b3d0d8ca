"""CORS (service/cors.py): off by default; with ``CORS_ORIGINS`` every operation answers
its preflight before any token, body or rate-limit check, the headers a client needs
are allowed and exposed, credentials never; and a page on a second origin, in headless
Chromium, creates a Sequence game, plays it and follows its stream with a ticket."""

from __future__ import annotations

import http.server
import json
import socket
import threading
from collections.abc import Iterator

import pytest
import yaml
from werkzeug.serving import make_server

from service import create_app
from service.config import ConfigError, cors_origins
from service.cors import ALLOW_HEADERS, EXPOSE_HEADERS
from service.store import get_feed, get_store
from tests.conftest import ROOT, migrate

FRONT = "http://localhost:3000"


def _app(origins: tuple[str, ...], url: str = "sqlite://"):
    return create_app({"TESTING": True, "DATABASE_URL": url, "CORS_ORIGINS": origins})


def _operations() -> list[tuple[str, str]]:
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    return [
        (path.replace("{", "<").replace("}", ">"), method.upper())
        for path, item in spec["paths"].items()
        for method in item
        if method in ("get", "post")
    ]


def _concrete(path: str) -> str:
    for name, value in (
        ("<game_id>", "g123"),
        ("<seat>", "north"),
        ("<rule_id>", "TW-S1"),
        ("<code>", "not-found"),
        ("<game>", "halves"),
    ):
        path = path.replace(name, value)
    return path


def test_cors_is_off_by_default():
    client = _app(()).test_client()
    response = client.get("/healthz", headers={"Origin": FRONT})
    assert "Access-Control-Allow-Origin" not in response.headers
    preflight = client.options(
        "/v1/games", headers={"Origin": FRONT, "Access-Control-Request-Method": "POST"}
    )
    assert "Access-Control-Allow-Origin" not in preflight.headers


@pytest.mark.parametrize(("path", "method"), _operations())
def test_every_operation_answers_its_preflight(path, method):
    """No token, no body, no rate limit: 204 with the origin, the method, the headers
    asked for (If-Match, Idempotency-Key, Last-Event-ID...) and a max age."""
    client = _app((FRONT, "https://app.example")).test_client()
    asked = (
        "authorization, content-type, if-match, idempotency-key, last-event-id, "
        "accept-language, x-api-key"
    )
    response = client.options(
        _concrete(path),
        headers={
            "Origin": FRONT,
            "Access-Control-Request-Method": method,
            "Access-Control-Request-Headers": asked,
        },
    )
    assert response.status_code == 204, (path, response.status_code)
    assert response.headers["Access-Control-Allow-Origin"] == FRONT
    assert method in response.headers["Access-Control-Allow-Methods"]
    assert set(response.headers["Access-Control-Allow-Headers"].split(", ")) == set(
        asked.split(", ")
    )
    assert response.headers["Access-Control-Max-Age"] == "600"
    assert "Origin" in response.headers["Vary"]
    assert "Access-Control-Allow-Credentials" not in response.headers
    assert "Content-Type" not in response.headers


def test_replies_expose_what_a_client_reads_and_other_origins_get_nothing():
    client = _app((FRONT,)).test_client()
    created = client.post(
        "/v1/two-way/sequences/check", json={"cards": ["AS", "2S", "3S"]}, headers={"Origin": FRONT}
    )
    assert created.status_code == 200
    exposed = set(created.headers["Access-Control-Expose-Headers"].split(", "))
    assert {
        "ETag",
        "Retry-After",
        "Idempotent-Replayed",
        "Content-Language",
        "X-Request-Id",
        "X-RateLimit-Limit",
        "X-RateLimit-Remaining",
        "X-RateLimit-Reset",
    } <= exposed
    assert exposed == set(EXPOSE_HEADERS)
    assert created.headers["Access-Control-Allow-Origin"] == FRONT
    other = client.get("/healthz", headers={"Origin": "http://evil.example"})
    assert "Access-Control-Allow-Origin" not in other.headers
    preflight = client.options(
        "/v1/games",
        headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert "Access-Control-Allow-Origin" not in preflight.headers


def test_any_origin_is_a_wildcard_without_credentials():
    client = _app(("*",)).test_client()
    response = client.get("/healthz", headers={"Origin": "http://anywhere.example"})
    assert response.headers["Access-Control-Allow-Origin"] == "*"
    assert "Access-Control-Allow-Credentials" not in response.headers
    assert set(ALLOW_HEADERS) >= {
        "If-Match",
        "Idempotency-Key",
        "Last-Event-ID",
        "Accept-Language",
        "Authorization",
    }


@pytest.mark.parametrize("raw", ["localhost:3000", "http://x/path", "ftp://x", "http://", "x y"])
def test_cors_origins_must_be_origins(monkeypatch, raw):
    monkeypatch.setenv("CORS_ORIGINS", raw)
    with pytest.raises(ConfigError, match="CORS_ORIGINS"):
        cors_origins()


def test_cors_origins_are_read_from_the_environment(monkeypatch):
    monkeypatch.setenv("CORS_ORIGINS", " http://localhost:3000/ , https://app.example ")
    assert cors_origins() == ("http://localhost:3000", "https://app.example")


# ----- a front end on another origin, in a browser --------------------------------

FRONT_PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>front</title></head>
<body><pre id="out">running</pre><script>
const API = %(api)s;
async function call(path, options = {}) {
  const response = await fetch(API + path, options);
  const text = await response.text();
  return {status: response.status, etag: response.headers.get("ETag"),
          body: text ? JSON.parse(text) : null};
}
async function main() {
  const created = await call("/v1/games", {method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({game: "sequence", seed: "ab".repeat(32)})});
  const game = created.body, id = game.id;
  const auth = token => ({"Authorization": "Bearer " + token});
  const ticket = await call(`/v1/games/${id}/stream-tickets`,
                            {method: "POST", headers: auth(game.referee_token)});
  const seen = [];
  const stream = new EventSource(`${API}/v1/games/${id}/stream?ticket=${ticket.body.ticket}`);
  stream.addEventListener("placed", e => seen.push(Number(e.lastEventId)));
  await new Promise(resolve => stream.addEventListener("view", resolve, {once: true}));
  const played = [];
  for (let round = 0; round < 6; round++) {
    for (const [seat, entry] of Object.entries(game.seats)) {
      const legal = await call(`/v1/games/${id}/legal-actions`, {headers: auth(entry.token)});
      const play = (legal.body.actions || []).find(a => a.type === "play");
      if (!play) continue;
      const view = await call(`/v1/games/${id}`, {headers: auth(entry.token)});
      const done = await call(`/v1/games/${id}/actions`, {method: "POST",
        headers: {...auth(entry.token), "Content-Type": "application/json",
                  "If-Match": view.etag, "Idempotency-Key": `k-${round}-${seat}`},
        body: JSON.stringify(play)});
      played.push(done.status);
    }
  }
  const log = await call(`/v1/games/${id}/events`, {headers: auth(game.referee_token)});
  const placed = log.body.events.filter(e => e.type === "placed").map(e => e.seq);
  for (let i = 0; i < 50 && seen.length < placed.length; i++)
    await new Promise(resolve => setTimeout(resolve, 100));
  stream.close();
  document.getElementById("out").textContent = JSON.stringify(
    {created: created.status, played, placed, seen});
}
main().catch(error => { document.getElementById("out").textContent = "error " + error; });
</script></body></html>"""


@pytest.fixture()
def two_origins(tmp_path) -> Iterator[tuple[str, str]]:
    """The API on 127.0.0.1:<port> allowing the front's origin, and the front's page
    on localhost:<other port>: two origins."""
    front = socket.create_server(("127.0.0.1", 0))
    front_port = front.getsockname()[1]
    front.close()
    front_origin = f"http://localhost:{front_port}"
    url = f"sqlite:///{tmp_path / 'store.sqlite3'}"
    migrate(url)
    app = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": url,
            "RATELIMIT_ENABLED": False,
            "CORS_ORIGINS": (front_origin,),
            "FEED_POLL_SECONDS": 0.05,
        }
    )
    api = make_server("127.0.0.1", 0, app, threaded=True)
    api_origin = f"http://127.0.0.1:{api.server_port}"
    page = (FRONT_PAGE % {"api": json.dumps(api_origin)}).encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *args) -> None:
            pass

    site = http.server.ThreadingHTTPServer(("127.0.0.1", front_port), Page)
    for server in (api, site):
        threading.Thread(target=server.serve_forever, daemon=True).start()
    yield api_origin, front_origin
    site.shutdown()
    api.shutdown()
    get_feed(app).close()
    get_store(app).dispose()


def test_a_page_on_another_origin_plays_a_game_and_follows_its_stream(two_origins, browser):
    _api, front = two_origins
    page = browser.new_page()
    try:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(front + "/")
        page.wait_for_function(
            "document.getElementById('out').textContent !== 'running'", timeout=60_000
        )
        text = page.text_content("#out")
    finally:
        page.close()
    assert not text.startswith("error"), text
    result = json.loads(text)
    assert result["created"] == 201
    assert len(result["played"]) >= 6 and set(result["played"]) == {200}
    assert result["placed"] and sorted(result["seen"]) == result["placed"]
    assert not errors

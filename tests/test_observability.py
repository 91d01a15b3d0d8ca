"""Observability (issue 11, item 5): request ids in and out, one JSON log record per
request, Prometheus metrics at /metrics (requests by route and status, latency,
actions and refusals by game and code, replays), added up over gunicorn workers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from service import create_app

ROOT = Path(__file__).resolve().parent.parent


def _value(name, **labels):
    return REGISTRY.get_sample_value(name, labels) or 0.0


@pytest.mark.parametrize(
    "sent, echoed",
    [
        ("req-42.a:b_c", True),
        ("x" * 128, True),
        ("x" * 129, False),
        ("has space", False),
        ("é", False),
        ("", False),
    ],
)
def test_the_request_id_is_echoed_when_sane_else_a_new_one(client, sent, echoed):
    response = client.get("/healthz", headers={"X-Request-Id": sent})
    got = response.headers["X-Request-Id"]
    if echoed:
        assert got == sent
    else:
        assert got != sent and len(got) == 32 and int(got, 16) >= 0


def test_every_answer_carries_a_request_id_problems_too(client):
    for response in (
        client.get("/nothing"),
        client.post("/v1/games", data="x", content_type="text/plain"),
    ):
        assert response.status_code in (404, 415)
        assert len(response.headers["X-Request-Id"]) == 32
    ids = {client.get("/healthz").headers["X-Request-Id"] for _ in range(3)}
    assert len(ids) == 3


def test_each_request_is_one_json_log_record_with_its_request_id(capsys):
    app = create_app({"TESTING": True, "DATABASE_URL": "sqlite://"})
    client = app.test_client()
    client.get("/v1/games/catalog", headers={"X-Request-Id": "trace-1"})
    client.get("/v1/nothing", headers={"X-Request-Id": "trace-2"})
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    records = {r["request_id"]: r for r in lines if r["message"] == "request"}
    catalog, missing = records["trace-1"], records["trace-2"]
    assert catalog["route"] == "/v1/games/catalog" and catalog["status"] == 200
    assert catalog["method"] == "GET" and catalog["level"] == "INFO"
    assert catalog["logger"] == "service.request" and catalog["time"]
    assert catalog["duration_ms"] >= 0
    assert (missing["route"], missing["path"], missing["status"]) == (
        "unmatched",
        "/v1/nothing",
        404,
    )


def test_a_json_log_record_is_one_compact_utf8_line(capsys):
    """The request log is written by orjson (python-json-logger's orjson formatter):
    compact, non-ASCII as UTF-8, one line per record (issue 23: 10.5 us a record
    against 29 us by the standard library's json)."""
    app = create_app({"TESTING": True, "DATABASE_URL": "sqlite://"})
    app.test_client().get("/v1/n\u00e9ant", headers={"X-Request-Id": "trace-3"})
    lines = [line for line in capsys.readouterr().err.splitlines() if "trace-3" in line]
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert (record["path"], record["status"], record["route"]) == (
        "/v1/n\u00e9ant",
        404,
        "unmatched",
    )
    assert '"path":"/v1/n\u00e9ant"' in lines[0] and ", " not in lines[0]


def test_text_logs_when_asked(capsys):
    app = create_app({"TESTING": True, "DATABASE_URL": "sqlite://", "LOG_FORMAT": "text"})
    app.test_client().get("/healthz")
    err = capsys.readouterr().err
    assert "INFO service.request request" in err and not err.lstrip().startswith("{")


def test_metrics_count_requests_actions_refusals_and_replays(store_client, make_game):
    game = make_game()
    url = f"/v1/games/{game['id']}/actions"
    route = "/v1/games/<game_id>/actions"
    before = {
        "ok": _value("card_referee_http_requests_total", method="POST", route=route, status="200"),
        "actions": _value("card_referee_actions_total", game="counter"),
        "refusals": _value(
            "card_referee_action_refusals_total", game="counter", code="not-your-turn"
        ),
        "stale": _value(
            "card_referee_action_refusals_total", game="counter", code="version-mismatch"
        ),
        "replays": _value("card_referee_idempotent_replays_total"),
        "created": _value("card_referee_games_created_total", game="counter", how="created"),
        "latency": _value(
            "card_referee_http_request_duration_seconds_count", method="POST", route=route
        ),
    }
    north = {**game["auth"]["north"], "Idempotency-Key": "m1"}
    for _ in range(2):  # the second is a replay
        assert (
            store_client.post(
                url, headers=north, json={"type": "add", "amount": 1, "expected_version": 1}
            ).status_code
            == 200
        )
    store_client.post(
        url, headers=game["auth"]["north"], json={"type": "add", "amount": 1, "expected_version": 2}
    )  # not its turn
    store_client.post(
        url, headers=game["auth"]["south"], json={"type": "add", "amount": 1, "expected_version": 1}
    )  # stale
    make_game()
    response = store_client.get("/metrics")
    assert response.status_code == 200
    assert response.mimetype == "text/plain" and "version=" in response.headers["Content-Type"]
    families = {f.name for f in text_string_to_metric_families(response.get_data(as_text=True))}
    assert {
        "card_referee_http_requests",
        "card_referee_actions",
        "card_referee_http_request_duration_seconds",
    } <= families
    assert (
        _value("card_referee_http_requests_total", method="POST", route=route, status="200")
        == before["ok"] + 2
    )
    assert _value("card_referee_actions_total", game="counter") == before["actions"] + 1
    assert (
        _value("card_referee_action_refusals_total", game="counter", code="not-your-turn")
        == before["refusals"] + 1
    )
    assert (
        _value("card_referee_action_refusals_total", game="counter", code="version-mismatch")
        == before["stale"] + 1
    )
    assert _value("card_referee_idempotent_replays_total") == before["replays"] + 1
    assert (
        _value("card_referee_games_created_total", game="counter", how="created")
        == before["created"] + 1
    )
    assert (
        _value("card_referee_http_request_duration_seconds_count", method="POST", route=route)
        == before["latency"] + 4
    )


def test_made_up_methods_are_counted_as_other_and_add_no_series(client):
    def requests_of(method):
        # a 405 matches no URL rule: its route is "unmatched"
        return _value(
            "card_referee_http_requests_total", method=method, route="unmatched", status="405"
        )

    def latencies_of(method):
        return _value(
            "card_referee_http_request_duration_seconds_count", method=method, route="unmatched"
        )

    before = {m: (requests_of(m), latencies_of(m)) for m in ("OTHER", "DELETE")}
    for method in ("BREW", "BREW", "X-MADE-UP-1", "DELETE"):
        assert client.open("/healthz", method=method).status_code == 405
    assert (requests_of("OTHER"), latencies_of("OTHER")) == tuple(n + 3 for n in before["OTHER"])
    assert (requests_of("DELETE"), latencies_of("DELETE")) == tuple(n + 1 for n in before["DELETE"])
    named = {s.labels.get("method") for f in REGISTRY.collect() for s in f.samples}
    assert "DELETE" in named and not {"BREW", "X-MADE-UP-1"} & named


@pytest.mark.slow
def test_metrics_add_up_every_gunicorn_worker(tmp_path):
    """Three workers with PROMETHEUS_MULTIPROC_DIR (as make serve runs them): whichever
    worker answers /metrics, it counts the requests every worker served."""
    from test_store_gunicorn import _free_port

    port = _free_port()
    env = {**os.environ, "DATABASE_URL": "sqlite://", "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    log = tmp_path / "gunicorn.log"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "gunicorn",
            "--workers",
            "3",
            "--bind",
            f"127.0.0.1:{port}",
            "--no-control-socket",
            "service:create_app()",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=log.open("w"),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                requests.get(base + "/healthz", timeout=5)
                break
            except requests.RequestException:
                if time.monotonic() > deadline or process.poll() is not None:
                    pytest.fail("gunicorn did not start: " + log.read_text())
                time.sleep(0.2)

        def served():
            text = requests.get(base + "/metrics", timeout=10).text
            return sum(
                sample.value
                for family in text_string_to_metric_families(text)
                for sample in family.samples
                if sample.name == "card_referee_http_requests_total"
                and sample.labels["route"] == "/healthz"
            )

        before = served()
        for _ in range(60):  # fresh connections: spread over the workers
            assert requests.get(base + "/healthz", timeout=10).status_code == 200
        assert {served() for _ in range(6)} == {before + 60}
        assert len(list(tmp_path.glob("*.db"))) >= 2  # more than one worker wrote
    finally:
        process.terminate()
        process.wait(20)

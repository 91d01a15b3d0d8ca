"""Creation limits (issue 11, item 2): API keys on game creation and import, and rate
limits per client (creation) and per token (actions) answered as 429 problems with
Retry-After; counts shared between processes through Redis when configured."""

from __future__ import annotations

import os
import secrets

import pytest
from flask import request
from flask_limiter import Limiter

from service import create_app
from service.config import ConfigError
from service.store import get_store

from helpers import assert_problem

KEY, OTHER_KEY = "k-" + "1" * 30, "k-" + "2" * 30
# the machine's Redis (CI's .ci/run makes sure it answers)
REDIS_URL = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


@pytest.fixture()
def make_app(db_url, counter_engine):
    apps = []

    def make(**config):
        app = create_app({"TESTING": True, "DATABASE_URL": db_url, **config})
        apps.append(app)
        return app

    yield make
    for app in apps:
        get_store(app).dispose()


def _create(client, headers=None, address="10.0.0.1"):
    return client.post(
        "/v1/games",
        json={"game": "counter"},
        headers=headers or {},
        environ_base={"REMOTE_ADDR": address},
    )


def test_without_api_keys_creation_stays_open(make_app):
    assert _create(make_app().test_client()).status_code == 201


def test_with_api_keys_creation_needs_one_of_them(make_app):
    client = make_app(API_KEYS=(KEY, OTHER_KEY)).test_client()
    missing = _create(client)
    assert_problem(missing, 401, "api-key-required")
    assert missing.headers["WWW-Authenticate"] == 'ApiKey realm="card-referee"'
    assert_problem(_create(client, {"X-API-Key": KEY + "x"}), 403, "api-key-refused")
    assert_problem(_create(client, {"Authorization": f"Bearer {KEY}"}), 401, "api-key-required")
    for key in (KEY, OTHER_KEY):
        assert _create(client, {"X-API-Key": key}).status_code == 201


def test_with_api_keys_import_needs_one_too_and_actions_do_not(make_app):
    client = make_app(API_KEYS=(KEY,)).test_client()
    game = _create(client, {"X-API-Key": KEY}).get_json()
    referee = {"Authorization": f"Bearer {game['referee_token']}"}
    document = client.get(f"/v1/games/{game['id']}/export", headers=referee).get_json()
    assert_problem(client.post("/v1/games/import", json=document), 401, "api-key-required")
    assert (
        client.post("/v1/games/import", json=document, headers={"X-API-Key": KEY}).status_code
        == 201
    )
    north = {"Authorization": f"Bearer {game['seats']['north']['token']}"}
    done = client.post(
        f"/v1/games/{game['id']}/actions",
        headers=north,
        json={"type": "tick", "expected_version": 1},
    )
    assert done.status_code == 200


def test_creation_over_the_limit_is_429_with_retry_after(make_app):
    client = make_app(RATELIMIT_ENABLED=True, RATELIMIT_CREATE="2 per minute").test_client()
    for _ in range(2):
        created = _create(client)
        assert created.status_code == 201
        assert created.headers["X-RateLimit-Limit"] == "2"
    refused = _create(client)
    body = assert_problem(refused, 429, "rate-limited")
    assert "2 per minute" in body["detail"]
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert refused.headers["X-RateLimit-Remaining"] == "0"
    assert _create(client, address="10.0.0.2").status_code == 201  # another client


def test_behind_trusted_proxies_the_forwarded_address_is_the_client(make_app):
    client = make_app(
        RATELIMIT_ENABLED=True, RATELIMIT_CREATE="1 per minute", TRUSTED_PROXY_HOPS=1
    ).test_client()
    for forwarded, status in (("192.0.2.1", 201), ("192.0.2.2", 201), ("192.0.2.1", 429)):
        response = _create(client, {"X-Forwarded-For": forwarded}, address="10.9.9.9")
        assert response.status_code == status
    # without trusted hops the proxy's address is every client's
    direct = make_app(RATELIMIT_ENABLED=True, RATELIMIT_CREATE="1 per minute").test_client()
    assert _create(direct, {"X-Forwarded-For": "192.0.2.1"}).status_code == 201
    assert _create(direct, {"X-Forwarded-For": "192.0.2.2"}).status_code == 429


def test_an_import_counts_as_five_creations_and_keys_count_apart(make_app):
    """The creation limit is shared with the import, which costs RATELIMIT_IMPORT_COST
    (5) creations: with 7 per minute, a creation and an import leave one."""
    app = make_app(
        RATELIMIT_ENABLED=True, RATELIMIT_CREATE="7 per minute", API_KEYS=(KEY, OTHER_KEY)
    )
    assert app.config["RATELIMIT_IMPORT_COST"] == 5
    client = app.test_client()
    game = _create(client, {"X-API-Key": KEY}).get_json()
    referee = {"Authorization": f"Bearer {game['referee_token']}"}
    document = client.get(f"/v1/games/{game['id']}/export", headers=referee).get_json()
    imported = client.post("/v1/games/import", json=document, headers={"X-API-Key": KEY})
    assert imported.status_code == 201
    assert imported.headers["X-RateLimit-Remaining"] == "1"
    assert _create(client, {"X-API-Key": KEY}).status_code == 201
    assert_problem(_create(client, {"X-API-Key": KEY}), 429, "rate-limited")
    assert_problem(
        client.post("/v1/games/import", json=document, headers={"X-API-Key": KEY}),
        429,
        "rate-limited",
    )
    # the same address with another configured key is another client
    assert _create(client, {"X-API-Key": OTHER_KEY}).status_code == 201


def test_an_unconfigured_api_key_is_no_client_of_its_own(make_app):
    """Without API_KEYS every X-API-Key is one nobody handed out: the address counts
    (a fresh key per request made a fresh bucket: 1,307 games in 10 s)."""
    client = make_app(RATELIMIT_ENABLED=True, RATELIMIT_CREATE="2 per minute").test_client()
    for n in range(2):
        assert _create(client, {"X-API-Key": f"invented-{n}-" + "x" * 20}).status_code == 201
    assert_problem(_create(client, {"X-API-Key": "invented-2-" + "x" * 20}), 429, "rate-limited")
    assert_problem(_create(client), 429, "rate-limited")
    assert _create(client, address="10.0.0.2").status_code == 201  # another address


def test_only_the_limited_views_reach_the_limiters_check(make_app, monkeypatch):
    """Flask-Limiter's own per-request hook is off (this app sets no default limits):
    a /healthz or a GET never reaches its check, an action once (its view's wrapper)
    and is still limited (the tests around this one)."""
    checked: list[str | None] = []
    check = Limiter._check_request_limit

    def counted(self, *args, **kwargs):
        checked.append(request.endpoint)
        return check(self, *args, **kwargs)

    monkeypatch.setattr(Limiter, "_check_request_limit", counted)
    client = make_app(RATELIMIT_ENABLED=True).test_client()
    game = _create(client).get_json()
    token = game["seats"]["north"]["token"]
    assert client.get("/healthz").status_code == 200
    auth = {"Authorization": f"Bearer {token}"}
    assert client.get(f"/v1/games/{game['id']}", headers=auth).status_code == 200
    action = {"type": "tick", "expected_version": 1}
    assert (
        client.post(f"/v1/games/{game['id']}/actions", headers=auth, json=action).status_code == 200
    )
    assert checked == ["games.create_game", "games.post_action"]


def test_actions_are_limited_per_token(make_app):
    client = make_app(RATELIMIT_ENABLED=True, RATELIMIT_ACTIONS="3 per minute").test_client()
    game = _create(client).get_json()
    url = f"/v1/games/{game['id']}/actions"

    def tick(seat, version):
        token = game["seats"][seat]["token"]
        return client.post(
            url,
            headers={"Authorization": f"Bearer {token}"},
            json={"type": "tick", "expected_version": version},
        )

    for version in (1, 2, 3):
        assert tick("north", version).status_code == 200
    refused = tick("north", 4)
    assert_problem(refused, 429, "rate-limited")
    assert int(refused.headers["Retry-After"]) >= 1
    assert tick("south", 4).status_code == 200  # another token, its own count


@pytest.mark.parametrize(
    "spelling", ["bearer {}", "BEARER {}", "Bearer   {}", "Bearer {}  ", "bEaReR  {} "]
)
def test_the_action_limit_is_per_seat_whatever_the_header_spelling(make_app, spelling):
    """The action limit counts per (game, seat) after authentication: the Authorization
    header re-cased or re-spaced opens the same seat and shares its count (it was a
    new bucket per spelling: 600 actions in 4 s against 20 per second)."""
    client = make_app(RATELIMIT_ENABLED=True, RATELIMIT_ACTIONS="2 per minute").test_client()
    game = _create(client).get_json()
    url = f"/v1/games/{game['id']}/actions"
    token = game["seats"]["north"]["token"]

    def tick(header, version):
        return client.post(
            url,
            headers={"Authorization": header},
            json={"type": "tick", "expected_version": version},
        )

    assert tick(f"Bearer {token}", 1).status_code == 200
    assert tick(spelling.format(token), 2).status_code == 200
    assert_problem(tick(spelling.format(token), 3), 429, "rate-limited")
    assert_problem(tick(f"Bearer {token}", 3), 429, "rate-limited")
    # a re-issued token is the same seat: still over its limit
    referee = {"Authorization": f"Bearer {game['referee_token']}"}
    new = client.post(f"/v1/games/{game['id']}/seats/north/token", headers=referee)
    assert_problem(tick(f"Bearer {new.get_json()['token']}", 3), 429, "rate-limited")


def test_redis_storage_shares_the_count_between_processes(make_app):
    """Two apps stand for two gunicorn workers: with Redis they share one count (with
    the default memory storage each would allow the limit by itself)."""
    config = {
        "RATELIMIT_ENABLED": True,
        "RATELIMIT_CREATE": "2 per minute",
        "RATELIMIT_STORAGE_URI": REDIS_URL,
        "RATELIMIT_KEY_PREFIX": f"test-{secrets.token_hex(4)}",
    }
    first, second = make_app(**config).test_client(), make_app(**config).test_client()
    assert _create(first).status_code == 201
    assert _create(second).status_code == 201
    assert_problem(_create(first), 429, "rate-limited")
    assert_problem(_create(second), 429, "rate-limited")
    memory = {**config, "RATELIMIT_STORAGE_URI": "memory://"}
    apart = [make_app(**memory).test_client() for _ in range(2)]
    assert [_create(c).status_code for c in apart + apart] == [201, 201, 201, 201]


@pytest.mark.parametrize(
    "name, value",
    [
        ("API_KEYS", "short"),
        ("IDEMPOTENCY_TTL_SECONDS", "a day"),
        ("RETAIN_FINISHED_DAYS", "0"),
        ("RATELIMIT_ENABLED", "maybe"),
        ("LOG_FORMAT", "xml"),
        ("READ_DEADLINE_SECONDS", "0"),
        ("MAX_CONNECTIONS_PER_ADDRESS", "many"),
        ("RATELIMIT_IMPORT_COST", "0"),
    ],
)
def test_a_malformed_setting_stops_the_app_at_start_naming_it(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=name):
        create_app()


@pytest.mark.parametrize(
    "env, cap",
    [
        ({}, 100),
        ({"TRUSTED_PROXY_HOPS": "1"}, 0),
        ({"TRUSTED_PROXY_HOPS": "1", "MAX_CONNECTIONS_PER_ADDRESS": "500"}, 500),
        ({"MAX_CONNECTIONS_PER_ADDRESS": "0"}, 0),
    ],
)
def test_the_connection_cap_is_off_behind_proxies_unless_set(monkeypatch, env, cap):
    """Behind a proxy every connection comes from the proxy's address: the per-address
    cap (service.server) would cap the whole service, so it is off unless set."""
    from service.config import max_connections_per_address

    for name in ("TRUSTED_PROXY_HOPS", "MAX_CONNECTIONS_PER_ADDRESS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert max_connections_per_address() == cap

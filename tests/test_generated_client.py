"""A client generated from openapi.yaml (openapi-python-client) plays a whole game of
each kind through its typed functions (tests/client_driver.py), and the driver passes
``mypy --strict`` against the generated package: no casts, no raw HTTP."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import schemathesis
import yaml
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.conftest import migrated_app

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
PACKAGE = "card_referee_client"


@pytest.fixture(scope="module")
def served(new_database):
    url = new_database("sqlite")
    with migrated_app(url) as app:
        yield app


@pytest.fixture(scope="module")
def generated(served, tmp_path_factory):
    """The client package generated from the served contract, importable."""
    root = tmp_path_factory.mktemp("client")
    spec = root / "openapi.yaml"
    spec.write_text(served.test_client().get("/openapi.yaml").get_data(as_text=True))
    (root / "config.yaml").write_text(
        yaml.dump(
            {
                "post_hooks": [],
                # pictures are SVG documents: the client hands them over as bytes
                "content_type_overrides": {"image/svg+xml": "application/octet-stream"},
            }
        )
    )
    run = subprocess.run(
        [
            BIN / "openapi-python-client",
            "generate",
            "--path",
            spec,
            "--output-path",
            root / PACKAGE,
            "--meta",
            "none",
            "--config",
            root / "config.yaml",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Warning" not in run.stdout + run.stderr, run.stdout + run.stderr
    sys.path.insert(0, str(root))
    yield root
    sys.path.remove(str(root))
    for name in [m for m in sys.modules if m.startswith((PACKAGE, "tests.client_driver"))]:
        del sys.modules[name]


def test_the_driver_needs_no_cast(generated):
    run = subprocess.run(
        [
            BIN / "mypy",
            "--strict",
            "--follow-imports=silent",
            "--cache-dir",
            generated / ".mypy",
            HERE / "client_driver.py",
        ],
        capture_output=True,
        text=True,
        check=False,
        env={"MYPYPATH": str(generated), "PATH": str(BIN)},
    )
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.mark.parametrize(
    "game", ["two-way", "sequence", "sequence-numbers", "halves", "solitaire-frenzy"]
)
def test_a_generated_client_plays_a_whole_game(generated, served, game):
    driver = importlib.import_module("tests.client_driver")
    view, actions, referee = driver.play(game, httpx.WSGITransport(app=served))
    assert view.status == "finished" and view.game == game
    result = view.result
    assert result is not None and result.reason
    assert set(result.scores.additional_properties) == set(view.view.seats)
    assert view.view.game.value == game and view.view.result is not None
    assert actions > 1
    for path in (
        "/v1/games/{game_id}",
        "/v1/games/{game_id}/events",
        "/v1/games/{game_id}/legal-actions",
        "/v1/games/{game_id}/export",
    ):
        assert_conforms(served, path, view.id, referee)


def assert_conforms(app, path: str, game_id: str, token: str) -> None:
    """The referee's GET of ``path`` on the finished game is 200 and matches the
    contract (schemathesis' response_schema_conformance: results, events, views)."""
    schema = schemathesis.openapi.from_wsgi("/openapi.yaml", app)
    case = schema[path]["GET"].Case(
        path_parameters={"game_id": game_id}, headers={"Authorization": f"Bearer {token}"}
    )
    response = case.call()
    assert response.status_code == 200, response.text
    case.validate_response(response, checks=[response_schema_conformance])

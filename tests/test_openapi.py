"""openapi.yaml is generated from the code, valid, and committed up to date."""

import re
from pathlib import Path

import yaml
from openapi_spec_validator import validate

ROOT = Path(__file__).resolve().parent.parent


def test_committed_spec_matches_the_code(app):
    committed = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    generated = yaml.safe_load(
        yaml.dump(app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict())
    )
    assert committed == generated, "openapi.yaml is stale: run `make openapi` and commit it"


def test_spec_is_valid_openapi(client):
    response = client.get("/openapi.yaml")
    assert response.status_code == 200
    spec = yaml.safe_load(response.data)
    validate(spec)
    assert spec["info"]["title"] == "Card Referee"
    assert "/healthz" in spec["paths"]


def _operations(spec: dict):
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                yield path, method, operation


def test_every_operation_has_a_unique_readable_operation_id(app):
    spec = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()
    ids = [op.get("operationId") for _, _, op in _operations(spec)]
    assert None not in ids
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert all(re.fullmatch(r"[a-z][A-Za-z]+", i) for i in ids), ids
    by_path = {(path, method): op["operationId"] for path, method, op in _operations(spec)}
    assert by_path[("/v1/games", "post")] == "createGame"
    assert by_path[("/v1/games/{game_id}/actions", "post")] == "postAction"
    assert by_path[("/v1/two-way/sequences/check", "post")] == "checkTwoWaySequence"


def test_spec_passes_a_second_validator(client):
    """aiopenapi3 builds its own typed model of the document (every reference resolved,
    unknown members refused), independently of openapi-spec-validator."""
    from aiopenapi3 import OpenAPI

    spec = yaml.safe_load(client.get("/openapi.yaml").data)
    api = OpenAPI("http://127.0.0.1:8000/", spec)
    assert len(api.paths.paths) == len(spec["paths"])
    assert {"createGame", "postAction", "getLegalActions"} <= set(api._.Iter(api, False))


def test_the_contract_names_413_and_422_as_published_on_every_python():
    """Python 3.13 renamed them after RFC 9110 (CONTENT_TOO_LARGE, UNPROCESSABLE_CONTENT);
    the contract, its generated clients and openapi.yaml keep the published names."""
    from http import HTTPStatus

    from service.api.contract import status_name

    assert status_name(HTTPStatus(413)) == ("REQUEST_ENTITY_TOO_LARGE", "Request Entity Too Large")
    assert status_name(HTTPStatus(422)) == ("UNPROCESSABLE_ENTITY", "Unprocessable Entity")
    assert status_name(HTTPStatus(409)) == ("CONFLICT", "Conflict")
    spec = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
    assert {"REQUEST_ENTITY_TOO_LARGE", "UNPROCESSABLE_ENTITY"} <= set(
        spec["components"]["responses"]
    )


def test_documenting_decorators_leave_no_layer_around_the_view(app):
    """``doc`` and ``alt_response`` (service/api/base.py) document without wrapping:
    the action's view runs as written, one call below flask-smorest's ``response``
    layer, and its nine documented answers are still in the contract."""
    view, layers = app.view_functions["games.post_action"], []
    while view is not None:
        layers.append(view.__code__.co_filename.rsplit("/", 2)[-2:])
        view = getattr(view, "__wrapped__", None)
    assert ["flask_smorest", "response.py"] in layers
    assert ["flask_smorest", "blueprint.py"] not in layers  # doc's layer
    assert layers.count(["flask_smorest", "response.py"]) == 1  # no alt_response layers
    spec = app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()
    operation = spec["paths"]["/v1/games/{game_id}/actions"]["post"]
    assert {"200", "401", "403", "404", "409", "412", "428", "429", "503"} <= set(
        operation["responses"]
    )
    assert {"If-Match", "Idempotency-Key"} <= {
        p["name"] for p in operation["parameters"] if p["in"] == "header"
    }

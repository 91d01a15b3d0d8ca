"""openapi.yaml is generated from the code, valid, and committed up to date."""
from pathlib import Path

import yaml
from openapi_spec_validator import validate

ROOT = Path(__file__).resolve().parent.parent


def test_committed_spec_matches_the_code(app):
    committed = yaml.safe_load((ROOT / "openapi.yaml").read_text())
    generated = yaml.safe_load(yaml.dump(app.extensions["flask-smorest"]["apis"][""]["ext_obj"].spec.to_dict()))
    assert committed == generated, "openapi.yaml is stale: run `make openapi` and commit it"


def test_spec_is_valid_openapi(client):
    response = client.get("/openapi.yaml")
    assert response.status_code == 200
    spec = yaml.safe_load(response.data)
    validate(spec)
    assert spec["info"]["title"] == "Card Referee"
    assert "/healthz" in spec["paths"]

"""The contract against the served app (schemathesis): requests generated from
openapi.yaml get no 5xx, only responses the contract describes, and a schema-valid
request is never refused as malformed (400/422).

Bounded (a few examples per operation) so that it stays within seconds; a temp SQLite
database migrated like production."""
from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (positive_data_acceptance,
                                               response_schema_conformance)

from service import create_app
from service.store import get_feed, get_store
from tests.conftest import migrate

EXAMPLES = 12
# a well-formed request may still be refused by credentials or by the game's state
ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "412", "428"]
CHECKS = [not_a_server_error, response_schema_conformance, positive_data_acceptance]


@pytest.fixture(scope="module")
def fuzz_app(new_database):
    url = new_database("sqlite")
    migrate(url)
    app = create_app({"TESTING": True, "DATABASE_URL": url})
    yield app
    get_feed(app).close()
    get_store(app).dispose()


@pytest.fixture(scope="module")
def contract(fuzz_app):
    config = SchemathesisConfig.from_dict({"checks": {
        "positive_data_acceptance": {"expected-statuses": ACCEPTED}}})
    return schemathesis.openapi.from_wsgi("/openapi.yaml", fuzz_app, config=config)


def test_the_service_keeps_its_contract(contract):
    failures = []
    for result in contract.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))
        def check(case):
            case.call_and_validate(checks=CHECKS)

        try:
            check()
        except Exception as failure:  # noqa: BLE001 - gathered, then reported together
            failures.append(f"{operation.label}: {failure}")
    assert not failures, "\n\n".join(failures)

"""Shared fixtures: the app and its test client (database fixtures live in the store
tests' own conftest section below once the store exists)."""
from __future__ import annotations

import pytest

from service import create_app


@pytest.fixture()
def app():
    """An app on an in-memory SQLite database unless a test asks for another store."""
    return create_app({"TESTING": True, "DATABASE_URL": "sqlite://"})


@pytest.fixture()
def client(app):
    return app.test_client()

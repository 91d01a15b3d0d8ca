"""The TypeScript client (clients/typescript: openapi-typescript types generated from
openapi.yaml, openapi-fetch, versions pinned by its package-lock.json) type-checks under
`tsc --strict` with no casts, and plays a whole game of each kind under Node against a
live server, posting listed legal actions back as they are."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import threading
from collections.abc import Iterator

import pytest
from werkzeug.serving import make_server

from service import create_app
from service.store import get_feed, get_store
from tests.conftest import ROOT, migrate

pytestmark = pytest.mark.slow
CLIENT = ROOT / "clients" / "typescript"
GAMES = ("two-way", "sequence", "sequence-numbers", "halves", "solitaire-frenzy")


def _npm(*args: str, timeout: int = 600) -> str:
    npm = shutil.which("npm")
    assert npm, "npm is not installed (.ci/run installs nodejs and npm)"
    done = subprocess.run([npm, *args], cwd=CLIENT, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"npm {' '.join(args)}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def built() -> None:
    """`npm ci` (the pinned versions), the types generated from openapi.yaml, then
    `tsc` (strict) builds dist/."""
    if not (CLIENT / "node_modules" / ".package-lock.json").is_file():
        _npm("ci", "--no-audit", "--no-fund")
    _npm("run", "-s", "generate")
    _npm("run", "-s", "build")


@pytest.fixture(scope="module")
def base_url(tmp_path_factory) -> Iterator[str]:
    url = f"sqlite:///{tmp_path_factory.mktemp('ts') / 'store.sqlite3'}"
    migrate(url)
    app = create_app({"TESTING": True, "DATABASE_URL": url, "RATELIMIT_ENABLED": False})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    get_feed(app).close()
    get_store(app).dispose()


def test_the_client_is_strict_and_has_no_casts(built):
    config = json.loads((CLIENT / "tsconfig.json").read_text())["compilerOptions"]
    assert config["strict"] is True and config["noUncheckedIndexedAccess"] is True
    for source in (CLIENT / "src").glob("*.ts"):
        if source.name == "schema.d.ts":
            continue
        code = re.sub(r"/\*.*?\*/|//[^\n]*", "", source.read_text(), flags=re.S)
        assert not re.search(r"\bas\s+(?!const\b)\w|<any>|:\s*any\b|@ts-", code), source.name
    _npm("run", "-s", "check")  # tsc --noEmit, strict


def test_the_typescript_client_plays_every_game(built, base_url):
    node = shutil.which("node")
    assert node
    done = subprocess.run(
        [node, "dist/play.js", base_url, *GAMES],
        cwd=CLIENT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["game"] for r in results] == list(GAMES)
    for result in results:
        assert result["status"] == "finished", result
        assert result["actions"] >= 10 and result["reason"], result

"""A real Python package: a built wheel carries the seeds, the migrations, the gunicorn
settings and the page, and installed on its own (no checkout, no `make`) its console
script `card-referee` migrates, serves (translations compiled at start) and writes the
contract."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(folder), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    (built,) = folder.glob("card_referee-*.whl")
    return built


def test_the_wheel_carries_what_the_service_loads(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for needed in (
        "service/_data/seeds/halves-deck.json",
        "service/_data/seeds/rules/two-way.yaml",
        "service/_data/seeds/problems.yaml",
        "service/_data/migrations/env.py",
        "service/_data/migrations/versions/0001_game_store.py",
        "service/gunicorn.conf.py",
        "service/referee/index.html",
        "service/translations/fr/LC_MESSAGES/messages.po",
    ):
        assert needed in names, needed
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert (
        "card-referee = service.console:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_the_installed_wheel_serves_without_make(wheel, tmp_path):
    """Installed into a folder of its own (the dependencies from this environment),
    run from an empty directory: `card-referee serve` migrates its SQLite file and
    answers, in French too (the catalogs compiled at start); `openapi write` works."""
    target = tmp_path / "site"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--target",
            str(target),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    for compiled in target.glob("service/translations/*/LC_MESSAGES/*.mo"):
        compiled.unlink()  # as a clone without `make` builds it: the .po files only
    work = tmp_path / "work"
    work.mkdir()
    env = {**os.environ, "PYTHONPATH": str(target), "RATELIMIT_ENABLED": "false"}
    env.pop("DATABASE_URL", None)
    where = subprocess.run(
        [sys.executable, "-c", "import service; print(service.__file__)"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert where.stdout.strip().startswith(str(target)), where
    console = [sys.executable, "-m", "service.console"]
    port = _free_port()
    server = subprocess.Popen(
        [*console, "serve", "--port", str(port), "--workers", "1"],
        cwd=work,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(150):
            try:
                with urllib.request.urlopen(base + "/healthz", timeout=1) as reply:
                    assert json.load(reply)["status"] == "ok"
                    break
            except OSError:
                assert server.poll() is None, server.stdout.read()
                time.sleep(0.2)
        else:
            raise AssertionError("card-referee serve did not answer")
        assert (work / "var" / "card-referee.sqlite3").is_file()  # migrated there
        request = urllib.request.Request(
            base + "/v1/games",
            data=json.dumps({"game": "halves"}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as reply:
            assert reply.status == 201
        french = urllib.request.Request(
            base + "/v1/games/nope", headers={"Accept-Language": "fr", "Authorization": "Bearer x"}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(french, timeout=10)
        assert refused.value.headers["Content-Language"] == "fr"
    finally:
        server.terminate()
        server.wait(timeout=30)
    written = subprocess.run(
        [*console, "openapi", "write", "--format", "yaml", "spec.yaml"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert written.returncode == 0, written.stderr
    assert (work / "spec.yaml").read_text().startswith("components:") or "openapi: 3.0.3" in (
        work / "spec.yaml"
    ).read_text()

"""Interpreter instructions per request, in process or in one gunicorn worker (run by
hand; needs valgrind).

    .venv/bin/python bench/bench_instructions.py [--baseline DIR] [--requests 200]
        [--kinds healthz,...] [--server] [--backend sqlite|postgresql] [--pg-url URL]

Time on a shared 2-CPU machine swings by a third from one minute to the next; the
instructions a request costs do not: the children run with PYTHONHASHSEED=0, and two
runs of one tree counted 1,131,096 and 1,131,078 per 6-card check (0.1-0.7% apart with
random hash seeds). So a change of a few percent on a request's path, which no timing
resolves, is measured here.

Each figure runs in a child process under valgrind's callgrind, counting only while the
requests run: the app is built on a migrated database (``--backend``), the requests
are warmed up and the garbage of all that is collected before the count is switched on
(``callgrind_control``). Else a full collection that the app's start made due could
fall among the counted requests: about 30 million instructions (a 6-card check with
rate limits on counted 1,375,186 per request with one among 100 requests, 986,598
without). Each request is handed straight to the app's WSGI callable: no gunicorn,
gevent or socket (bench_speed.py measures the whole server). The client's own work is
counted too, not subtracted: a hand-built environ, reading the reply and, for an
action, choosing the next one.

Figures per request: ``GET /healthz``; a durable 2-Way Cards action (SQLite, keyed,
with ``expected_version``: bench_speed.py's game); the grid scan, the Sequence move
check and the 6-card check of bench_speed.py. Then each against /healthz (issue 23:
target 1 counts a durable action's CPU against a /healthz in the server, where each
request also pays the server's own work), and with ``--baseline`` (a checkout of
another revision) every figure of this tree against the baseline's.

``--backend postgresql``: the same requests on a fresh PostgreSQL database per figure
(``--pg-url``, default ``TEST_DATABASE_URL``), migrated by the tree's own Alembic and
dropped afterwards; only this process's instructions are counted (or the worker's), not
the database server's.

``--server``: the same requests served by gunicorn as ``make serve`` starts it
(gunicorn.conf.py: the gevent worker, prometheus-client's multiprocess mode), one
worker, counted in that worker only: so gunicorn's HTTP parsing, gevent and the
sockets are in the figure too, and the client (this process, over one keep-alive
connection) is not. callgrind cannot switch its count on in a forked worker, so each
figure is the difference of two servers' worker totals, from start to exit: one
served the warm-up and ``--requests`` more requests, the other the warm-up alone
(both at once; about 80 s a figure on 2 CPUs). The worker's garbage is collected after
the warm-up here too (a request with ``X-Bench-Collect``, by a ``post_request`` hook
added to the tree's gunicorn settings).

valgrind: ``apt-get install valgrind`` (Debian). A figure in process takes 20 to 45 s
per tree.
valgrind cannot run gunicorn's optional C parser (gunicorn-h1c: its SSE 4.2
instructions stop the worker with SIGILL), which this project does not install.
"""

from __future__ import annotations

import argparse
import gc
import io
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
KINDS = ["healthz", "2-Way action", "grid scan", "Sequence move check", "6-card check"]
CHECKS = {  # kind: (path, bench_speed.py's body)
    "grid scan": ("/v1/two-way/grid/sequences", "GRID"),
    "Sequence move check": ("/v1/sequence/moves/check", "SEQUENCE_MOVE"),
    "6-card check": ("/v1/two-way/sequences/check", "CHECK_6"),
}
WARM_UP = 30


# ----- the child: one kind of request, counted between two signal files ----------------


def environ(method: str, path: str, body: bytes | None = None, headers: dict | None = None):
    """A WSGI environ as gunicorn hands it over (built by hand: a few dict entries, so
    that the client adds little to the count)."""
    env = {
        "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1", "HTTP_HOST": "127.0.0.1:8000",
        "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(body or b""),
        "wsgi.errors": sys.stderr, "wsgi.version": (1, 0), "wsgi.multithread": False,
        "wsgi.multiprocess": True, "wsgi.run_once": False,
    }
    if body is not None:
        env["CONTENT_TYPE"], env["CONTENT_LENGTH"] = "application/json", str(len(body))
    for name, value in (headers or {}).items():
        env["HTTP_" + name.upper().replace("-", "_")] = value
    return env


def requester(kind: str, call: Callable[..., Any]) -> Callable[[], None]:
    """One request of ``kind`` per call, made by ``call(method, path, body, headers,
    expect)``."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    if kind == "2-Way action":
        from bench_speed import Game

        game = [Game(call)]

        def one() -> None:
            if game[0].status != "active":
                game[0] = Game(call)
            game[0].step()
    elif kind == "healthz":
        def one() -> None:
            call("GET", "/healthz")
    else:
        import bench_speed

        path, name = CHECKS[kind]
        body = getattr(bench_speed, name)

        def one() -> None:
            call("POST", path, body)
    return one


def child(kind: str, requests: int, signals: Path) -> None:
    """Build the app on the migrated database ``DATABASE_URL``, warm ``kind`` up, then
    run ``requests`` of it between ``signals``/ready, go and done."""
    import orjson

    url = os.environ["DATABASE_URL"]
    os.environ.setdefault("RATELIMIT_ENABLED", "false")  # as bench_speed.py serves
    from service import create_app

    app = create_app({"DATABASE_URL": url})

    def call(method: str, path: str, body: object = None, headers: dict | None = None,
             expect: int = 200):
        status: list[str] = []
        data = None if body is None else orjson.dumps(body)
        reply = b"".join(app(environ(method, path, data, headers),
                             lambda s, h, e=None: status.append(s)))
        if int(status[0][:3]) != expect:
            raise RuntimeError(f"{method} {path} -> {status[0]} {reply[:300]!r}")
        return orjson.loads(reply) if reply else None

    one = requester(kind, call)

    for _ in range(WARM_UP):
        one()
    # the garbage of building the app, collected now: else the full collection it is
    # due (about 30 million instructions) could fall among the counted requests
    gc.collect()
    (signals / "ready").touch()
    while not (signals / "go").exists():
        time.sleep(0.02)
    for _ in range(requests):
        one()
    (signals / "done").touch()
    while (signals / "go").exists():
        time.sleep(0.02)


# ----- the parent: one child per tree and kind under callgrind -------------------------


def wait_for(path: Path, process: subprocess.Popen) -> None:
    while not path.exists():
        if process.poll() is not None:
            raise RuntimeError(f"the child ended ({process.returncode}) before {path.name}")
        time.sleep(0.05)


def database(tree: Path, backend: str, pg_url: str) -> Any:
    """A fresh database of ``backend`` migrated by ``tree``'s Alembic (bench_speed.py's):
    ``.url``, and ``.drop()`` when done."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    from bench_speed import Database

    return Database(backend, pg_url, tree)


def count(tree: Path, kind: str, requests: int, backend: str, pg_url: str) -> float:
    """Instructions per request of ``kind`` served by ``tree``'s app."""
    store = database(tree, backend, pg_url)
    with tempfile.TemporaryDirectory(prefix="bench-instructions-") as folder:
        signals = Path(folder)
        out = signals / "callgrind.out"
        process = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no",
             f"--callgrind-out-file={out}", sys.executable, str(Path(__file__).resolve()),
             "--child", kind, "--requests", str(requests), "--signals", folder],
            cwd=tree, env={**os.environ, "DATABASE_URL": store.url, "PYTHONPATH": str(tree),
                           "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"},
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(signals / "ready", process)
            control = ["callgrind_control", "--instr=on", str(process.pid)]
            subprocess.run(control, check=True, capture_output=True)
            (signals / "go").touch()
            wait_for(signals / "done", process)
            control[1] = "--instr=off"
            subprocess.run(control, check=True, capture_output=True)
            (signals / "go").unlink()
            process.wait(timeout=120)
        finally:
            if process.poll() is None:
                process.kill()
            store.drop()
        totals = [line for line in out.read_text().splitlines() if line.startswith("totals:")]
        return int(totals[0].split()[1]) / requests


# ----- --server: one gunicorn worker under callgrind, counted from start to exit ---------

# the tree's gunicorn settings, plus a hook: the request that carries COLLECT_HEADER
# (sent once the warm-up is over) collects the worker's garbage (see child())
COLLECT_HEADER = "X-Bench-Collect"
SERVER_SETTINGS = """
import gc
from pathlib import Path

_SETTINGS = Path({settings!r})
exec(compile(_SETTINGS.read_text(encoding="utf-8"), str(_SETTINGS), "exec"))


def post_request(worker, req, environ, resp):
    if environ.get({environ_key!r}):
        gc.collect()
"""


def served_total(tree: Path, kind: str, requests: int, backend: str, pg_url: str) -> int:
    """Instructions of one gunicorn worker of ``tree`` (``make serve``'s settings, one
    worker, limits off) from its start to its exit, having served WARM_UP requests of
    ``kind`` and then ``requests`` more over one keep-alive connection."""
    import http.client
    import signal
    import socket

    import orjson

    store = database(tree, backend, pg_url)
    with tempfile.TemporaryDirectory(prefix="bench-instructions-") as folder:
        env = {**os.environ, "DATABASE_URL": store.url, "PROMETHEUS_MULTIPROC_DIR": folder,
               "RATELIMIT_ENABLED": os.environ.get("RATELIMIT_ENABLED", "false"),
               "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        settings = Path(folder) / "gunicorn.conf.py"
        settings.write_text(SERVER_SETTINGS.format(
            settings=str(tree / "service" / "gunicorn.conf.py"),
            environ_key="HTTP_" + COLLECT_HEADER.upper().replace("-", "_")))
        server = subprocess.Popen(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={folder}/callgrind.%p",
             sys.executable, "-m", "gunicorn", "--config", str(settings),
             "--workers", "1", "--timeout", "600", "--no-control-socket",
             "--bind", f"127.0.0.1:{port}", "service:create_app()"],
            cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
            for _ in range(600):  # valgrind starts the worker in a minute or so
                try:
                    connection.request("GET", "/healthz")
                    connection.getresponse().read()
                    break
                except OSError:
                    connection.close()
                    time.sleep(0.5)
            else:
                raise RuntimeError("the server did not start")

            def call(method: str, path: str, body: object = None,
                     headers: dict | None = None, expect: int = 200):
                sent = {**(headers or {})}
                data = None if body is None else orjson.dumps(body)
                if data is not None:
                    sent["Content-Type"] = "application/json"
                connection.request(method, path, body=data, headers=sent)
                response = connection.getresponse()
                reply = response.read()
                if response.status != expect:
                    raise RuntimeError(f"{method} {path} -> {response.status} {reply[:300]!r}")
                return orjson.loads(reply) if reply else None

            one = requester(kind, call)
            for _ in range(WARM_UP):
                one()
            call("GET", "/healthz", headers={COLLECT_HEADER: "1"})
            for _ in range(requests):
                one()
            workers = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=300)
            store.drop()
        out = Path(folder) / f"callgrind.{workers[0]}"
        totals = [line for line in out.read_text().splitlines() if line.startswith("totals:")]
        return int(totals[0].split()[1])


def served_count(tree: Path, kind: str, requests: int, backend: str, pg_url: str) -> float:
    """Instructions per request of ``kind`` in one gunicorn worker of ``tree``: two
    servers at once, with and without ``requests`` more after the warm-up."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(2) as pool:
        more, fewer = pool.map(
            lambda n: served_total(tree, kind, n, backend, pg_url), [requests, 0]
        )
    return (more - fewer) / requests


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", type=Path, help="a checkout to compare with")
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--server", action="store_true",
                        help="count in one gunicorn worker (gevent, sockets, HTTP parsing)")
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="sqlite")
    parser.add_argument("--pg-url", default=os.environ.get(
        "TEST_DATABASE_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--signals", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.requests, args.signals)
        return
    kinds = [k.strip() for k in args.kinds.split(",")]
    trees = [("this tree", ROOT)]
    if args.baseline:
        trees.insert(0, ("baseline", args.baseline.resolve()))
    figures: dict[tuple[str, str], float] = {}
    for kind in kinds:
        for label, tree in trees:
            measure = served_count if args.server else count
            figures[label, kind] = measure(tree, kind, args.requests, args.backend, args.pg_url)
            print(f"  {label}: {kind} {figures[label, kind]:,.0f}", flush=True)
    labels = [label for label, _ in trees]
    where = "in one gunicorn worker" if args.server else "in process"
    backend = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}[args.backend]
    print(f"\ninstructions per request ({args.requests} requests, {where}, {backend})")
    print(f"{'figure':40s}" + "".join(f"{label:>16s}" for label in labels)
          + ("    this / baseline" if args.baseline else ""))
    rows = [(kind, lambda label, k=kind: figures[label, k], "{:,.0f}") for kind in kinds]
    if "healthz" in kinds:
        rows += [(f"{kind} / healthz", lambda label, k=kind: figures[label, k]
                  / figures[label, "healthz"], "{:.2f}") for kind in kinds if kind != "healthz"]
    for name, value, fmt in rows:
        line = f"{name:40s}" + "".join(f"{fmt.format(value(label)):>16s}" for label in labels)
        if args.baseline:
            line += f"    {value('this tree') / value('baseline'):.3f}"
        print(line)


if __name__ == "__main__":
    main()

"""Benchmark the two-way line check and grid scan (run by hand; prints figures and ratios).

    .venv/bin/python bench/bench_two_way_check.py [--seconds 5] [--threads 4]

1. classify_line calls/s in process for 6-card lines with 2 jokers, cache cleared and
   every input distinct, so each call does the work (cached figure shown for contrast).
2. Full 49-cell grid scan time, cache cleared before each scan (target <= 2 ms), on
   grids drawn from the tile faces and on adversarial grids (one suit, one rank, jokers).
3. HTTP throughput of POST /v1/two-way/sequences/check as a ratio of GET /healthz, both
   served by the same gunicorn (`--workers 2`, 127.0.0.1, a free port), each measured
   for a bounded time by a few client threads with keep-alive sessions (target >= 0.8).
"""
from __future__ import annotations

import argparse
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.cards import DECK, JOKER, RANKS, SUITS  # noqa: E402
from service.games.two_way import lines as two_way_lines  # noqa: E402
from service.games.two_way import classify_line, scan_grid  # noqa: E402

TILE_FACES = list(DECK) * 2 + [JOKER] * 4  # one colour's 108 faces (TW-C2)


def distinct_lines(rng: random.Random, count: int) -> list[list[str]]:
    """``count`` distinct 6-card lines with exactly 2 jokers, a third each drawn from
    one suit, one rank, or the whole deck (so runs, same-rank and invalid all occur)."""
    pools = ([[r + s for r in RANKS] for s in SUITS] + [[r + s for s in SUITS] for r in RANKS]
             + [list(DECK)])
    seen: set[tuple[str, ...]] = set()
    while len(seen) < count:
        pool = rng.choice(pools)
        line = [rng.choice(pool) for _ in range(4)]
        for _ in range(2):
            line.insert(rng.randrange(len(line) + 1), JOKER)
        seen.add(tuple(line))
    return [list(line) for line in seen]


def bench_classify(rng: random.Random) -> None:
    lines = distinct_lines(rng, 20000)
    two_way_lines._judge.cache_clear()
    start = time.perf_counter()
    verdicts = [classify_line(line) for line in lines]
    cold = len(lines) / (time.perf_counter() - start)
    start = time.perf_counter()
    for line in lines:
        classify_line(line)
    warm = len(lines) / (time.perf_counter() - start)
    valid = sum(v["valid"] for v in verdicts)
    print(f"classify_line, 6 cards with 2 jokers, {len(lines)} distinct lines "
          f"({valid} valid):")
    print(f"  uncached {cold:,.0f} calls/s ({1e6 / cold:.1f} us/call); "
          f"cached {warm:,.0f} calls/s; cached/uncached = {warm / cold:.1f}x")


def grid_of(rng: random.Random, pool: list[str]) -> list[list[str | None]]:
    return [[rng.choice(pool) for _ in range(7)] for _ in range(7)]


def bench_scan(rng: random.Random, rounds: int = 200) -> None:
    kinds = {
        "tile faces (realistic)": TILE_FACES,
        "one suit + jokers (adversarial)": [r + "S" for r in RANKS] + [JOKER],
        "one rank + jokers (adversarial)": ["7" + s for s in SUITS] + [JOKER],
        "all jokers": [JOKER],
    }
    print(f"scan_grid, full 49-cell grid, median of {rounds} (target <= 2 ms):")
    for name, pool in kinds.items():
        cold, warm, found = [], [], 0
        for _ in range(rounds):
            grid = grid_of(rng, pool)
            two_way_lines._judge.cache_clear()
            two_way_lines._segments.cache_clear()
            start = time.perf_counter()
            found += len(scan_grid(grid))
            cold.append((time.perf_counter() - start) * 1e3)
            start = time.perf_counter()
            scan_grid(grid)
            warm.append((time.perf_counter() - start) * 1e3)
        med = statistics.median(cold)
        print(f"  {name:34s} uncached {med:6.3f} ms (p90 "
              f"{sorted(cold)[int(rounds * 0.9)]:6.3f}) cached {statistics.median(warm):6.3f} ms"
              f"  {found / rounds:5.1f} lines/grid  target/actual = {2 / med:5.1f}x")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_gunicorn(port: int) -> subprocess.Popen:
    env = dict(os.environ, DATABASE_URL="sqlite://")
    proc = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "--workers", "2",
         "--bind", f"127.0.0.1:{port}", "--log-level", "warning", "service:create_app()"],
        cwd=ROOT, env=env)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).ok:
                return proc
        except requests.ConnectionError:
            time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("gunicorn did not start")


def throughput(url: str, body: dict | None, seconds: float, threads: int) -> float:
    """Requests/s of ``threads`` keep-alive clients for ``seconds`` (all must be 200)."""
    counts = [0] * threads
    stop = time.monotonic() + seconds
    failures: list[str] = []

    def client(slot: int) -> None:
        with requests.Session() as session:
            while time.monotonic() < stop:
                response = (session.post(url, json=body, timeout=5) if body is not None
                            else session.get(url, timeout=5))
                if response.status_code != 200:
                    failures.append(f"{response.status_code} {response.text[:200]}")
                    return
                counts[slot] += 1

    workers = [threading.Thread(target=client, args=(i,)) for i in range(threads)]
    start = time.monotonic()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if failures:
        raise RuntimeError(failures[0])
    return sum(counts) / (time.monotonic() - start)


def bench_http(seconds: float, threads: int) -> None:
    port = free_port()
    proc = start_gunicorn(port)
    base = f"http://127.0.0.1:{port}"
    check_body = {"cards": ["KS", "JK", "2S", "3S", "JK", "5S"]}
    try:
        throughput(base + "/healthz", None, 1.0, threads)  # warm-up both workers
        throughput(base + "/v1/two-way/sequences/check", check_body, 1.0, threads)
        health = throughput(base + "/healthz", None, seconds, threads)
        check = throughput(base + "/v1/two-way/sequences/check", check_body, seconds, threads)
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    print(f"HTTP, gunicorn --workers 2 on 127.0.0.1:{port}, {threads} client threads, "
          f"{seconds:g} s each:")
    print(f"  GET /healthz                     {health:8.0f} req/s")
    print(f"  POST /v1/two-way/sequences/check {check:8.0f} req/s")
    print(f"  check / healthz = {check / health:.2f} (target >= 0.80)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    bench_classify(rng)
    bench_scan(rng)
    bench_http(args.seconds, args.threads)


if __name__ == "__main__":
    main()

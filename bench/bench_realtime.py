"""Benchmark a real-time game raced over HTTP (run by hand; prints figures and ratios).

    .venv/bin/python bench/bench_realtime.py --game solitaire-frenzy [--players 4]
        [--seconds 30] [--at-once 2] [--workers 4] [--options JSON]
        [--backends sqlite,postgresql] [--pg-url postgresql+psycopg://...]

For each backend, on a fresh database migrated by Alembic (PostgreSQL: a randomly named
database created from --pg-url / TEST_DATABASE_URL, dropped at the end), with gunicorn
``--workers`` on 127.0.0.1 (as ``make serve``), in ONE run, one after the other:

1. Baseline: GET /healthz (no database) from ``--players`` client threads for
   ``--seconds / 2``: requests/s and the p50/p99 latency.
2. The race: ``service.play.Racer``, one client thread per seat (legal-actions -> a
   random body -> POST, no version: the bodies name what they aim at), ``--at-once``
   games side by side, whole games until ``--seconds`` have passed: accepted plays/s
   (action type ``play``), stale refusals (lost races), all requests/s, and the p50/p99
   latency of a play POST.

Ratios against the baseline measured in the same run: race requests/s / healthz
requests/s (the share of the HTTP floor an action costs), and p99 play / p99 healthz.
The machine's load (os.getloadavg) is printed before and after: on a shared machine
the ratios are what count, not the absolute figures.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_store import DEFAULT_PG, Database, in_threads, start_gunicorn, stop  # noqa: E402

from service.play import HTTPTransport, RaceStats, Racer  # noqa: E402


def percentile(samples: list[float], fraction: float) -> float:
    """The ``fraction`` quantile (nearest rank) of ``samples``; 0.0 when empty."""
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def healthz(base: str, seconds: float, threads: int) -> tuple[float, list[float]]:
    """GET /healthz per second from ``threads`` clients, and every request's seconds."""
    latencies: list[list[float]] = [[] for _ in range(threads)]
    deadline = time.perf_counter() + seconds

    def client(slot: int) -> None:
        http = HTTPTransport(base)
        while time.perf_counter() < deadline:
            begin = time.perf_counter()
            assert http.request("GET", "/healthz").status == 200
            latencies[slot].append(time.perf_counter() - begin)
        http.close()

    start = time.perf_counter()
    in_threads(threads, client)
    every = [s for slot in latencies for s in slot]
    return len(every) / (time.perf_counter() - start), every


def race(base: str, game: str, options: dict, seconds: float, at_once: int) -> RaceStats:
    """Whole games raced ``at_once`` side by side until ``seconds`` have passed."""
    racer = Racer(lambda: HTTPTransport(base), random.Random(1))
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        racer.race(game, at_once, options, at_once)
    return racer.stats


def bench(backend: str, args: argparse.Namespace) -> None:
    try:
        database = Database(backend, args.pg_url)
    except Exception as error:  # PostgreSQL not reachable: say so, bench the rest
        print(f"{backend}: skipped ({type(error).__name__}: {error})")
        return
    options = {"players": args.players, **args.options}
    try:
        process, base = start_gunicorn(database.url, args.workers)
        try:
            floor, floor_seconds = healthz(base, args.seconds / 2, args.players)
            stats = race(base, args.game, options, args.seconds, args.at_once)
        finally:
            stop(process)
    finally:
        database.drop()
    if stats.errors:
        print(f"{backend}: ERRORS {stats.errors}: {stats.error_samples[:3]}")
    plays = stats.accepted["play"] / stats.seconds
    requests = stats.requests / stats.seconds
    p50, p99 = percentile(stats.play_seconds, 0.5), percentile(stats.play_seconds, 0.99)
    h50, h99 = percentile(floor_seconds, 0.5), percentile(floor_seconds, 0.99)
    print(f"{backend}: GET /healthz ({args.players} clients): {floor:,.0f} req/s, "
          f"p50 {h50 * 1000:.1f} ms, p99 {h99 * 1000:.1f} ms")
    print(f"{backend}: race {args.game} {options} x{args.at_once} at once: {stats.summary()}")
    print(f"{backend}: accepted plays {plays:,.1f}/s, play POSTs "
          f"{stats.posts['play'] / stats.seconds:,.1f}/s (stale {stats.stale}), all requests "
          f"{requests:,.0f}/s; play POST p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms")
    print(f"{backend}: ratios: race requests/s / healthz req/s = {requests / floor:.3f}; "
          f"p99 play / p99 healthz = {p99 / h99:.1f}; accepted plays/s / healthz req/s = "
          f"{plays / floor:.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", required=True, help="a real-time game (see the catalog)")
    parser.add_argument("--players", type=int, default=4, help="seats, one client each")
    parser.add_argument("--seconds", type=float, default=30.0, help="race time per backend")
    parser.add_argument("--at-once", type=int, default=2, help="games raced side by side")
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--options", type=json.loads, default={},
                        help="more game options as a JSON object")
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--pg-url", default=os.environ.get("TEST_DATABASE_URL", DEFAULT_PG))
    args = parser.parse_args()
    print(f"bench_realtime: {args.game}, {os.cpu_count()} CPUs, load "
          f"{os.getloadavg()[0]:.1f}, {args.seconds:g} s of racing per backend")
    for backend in args.backends.split(","):
        bench(backend.strip(), args)
    print(f"load afterwards {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

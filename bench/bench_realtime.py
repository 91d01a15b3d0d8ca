"""Benchmark a real-time game's races over HTTP (run by hand; prints figures and ratios).

    .venv/bin/python bench/bench_realtime.py --game halves [--players 6] [--seconds 10]
        [--games-at-once 16] [--workers 4] [--backends sqlite,postgresql]
        [--options JSON] [--pg-url postgresql+psycopg://postgres@127.0.0.1:5432/test]

For each backend, on a fresh database migrated by Alembic (PostgreSQL: a randomly named
database created from --pg-url / TEST_DATABASE_URL and dropped at the end), gunicorn
``--workers`` on 127.0.0.1, and in the same run:

1. Baseline: ``GET /healthz`` (no database) from as many client threads as the race
   uses (one game's seats, then every game's seats): requests/s, p50 and p99.
2. One game: ``service.play.Racer`` races whole games one after the other for about
   ``--seconds``, one thread per seat (``legal-actions`` -> a random body -> POST
   without a version, all seats at once): accepted plays/s, and p50/p99 of one play
   POST (accepted or refused stale alike).
3. ``--games-at-once`` games side by side (that many times the seats in threads), the
   same figures.

Ratios against the baseline with the same number of client threads: play p50 and p99
over /healthz p50 and p99 (what a play costs beyond the HTTP floor), and the race's
requests/s (its legal-actions GETs and action POSTs) over /healthz requests/s. The
machine may be shared: only the ratios of one run count.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_store import DEFAULT_PG, Database, in_threads, start_gunicorn, stop  # noqa: E402
from service.play import HTTPTransport, RaceStats, Racer  # noqa: E402


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile (0.5 = median) of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def healthz(base: str, seconds: float, threads: int) -> tuple[float, float, float]:
    """(requests/s, p50 s, p99 s) of GET /healthz from ``threads`` clients."""
    times: list[list[float]] = [[] for _ in range(threads)]
    start = time.perf_counter()
    deadline = start + seconds

    def client(slot: int) -> None:
        http = HTTPTransport(base)
        try:
            while time.perf_counter() < deadline:
                begin = time.perf_counter()
                assert http.request("GET", "/healthz").status == 200
                times[slot].append(time.perf_counter() - begin)
        finally:
            http.close()

    in_threads(threads, client)
    every = [t for slot in times for t in slot]
    return len(every) / (time.perf_counter() - start), percentile(every, .5), \
        percentile(every, .99)


def race(base: str, game: str, options: dict, seconds: float, at_once: int,
         seed: int) -> RaceStats:
    """Race batches of ``at_once`` games until ``seconds`` have passed (whole games)."""
    racer = Racer(lambda: HTTPTransport(base), random.Random(seed))
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        racer.race(game, at_once, options, at_once)
    return racer.stats


def report(backend: str, label: str, stats: RaceStats, floor: tuple[float, float, float],
           threads: int) -> None:
    plays = stats.play_seconds
    p50, p99 = percentile(plays, .5), percentile(plays, .99)
    rate = stats.accepted["play"] / stats.seconds
    posts = stats.posts["play"] / stats.seconds
    requests = stats.requests / stats.seconds
    print(f"{backend}: {label}: {stats.games} games ({stats.finished} finished, errors "
          f"{stats.errors}), {stats.posts['play']} play POSTs, {stats.accepted['play']} "
          f"accepted, {stats.stale} stale")
    print(f"{backend}: {label}: accepted plays/s {rate:,.1f} (play POSTs/s {posts:,.1f}); "
          f"one play p50 {p50 * 1000:.1f} ms, p99 {p99 * 1000:.1f} ms")
    print(f"{backend}: {label}: /healthz with {threads} clients: {floor[0]:,.0f} req/s, "
          f"p50 {floor[1] * 1000:.1f} ms, p99 {floor[2] * 1000:.1f} ms -> ratios: play "
          f"p50/healthz p50 {p50 / floor[1]:.1f}, p99/p99 {p99 / floor[2]:.1f}; race "
          f"requests/s (legal-actions GETs and POSTs) {requests:,.0f} / healthz req/s "
          f"{requests / floor[0]:.2f}")


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
            race(base, args.game, options, 1.0, 1, 0)  # warm up the workers
            one = args.players
            many = args.players * args.games_at_once
            floor_one = healthz(base, args.seconds / 2, one)
            single = race(base, args.game, options, args.seconds, 1, 1)
            floor_many = healthz(base, args.seconds / 2, many)
            parallel = race(base, args.game, options, args.seconds, args.games_at_once, 2)
        finally:
            stop(process)
    finally:
        database.drop()
    report(backend, f"1 game x {one} seats", single, floor_one, one)
    report(backend, f"{args.games_at_once} games x {args.players} seats", parallel,
           floor_many, many)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="halves")
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--options", type=json.loads, default={})
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--games-at-once", type=int, default=16)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--backends", default="sqlite,postgresql")
    parser.add_argument("--pg-url", default=os.environ.get("TEST_DATABASE_URL", DEFAULT_PG))
    args = parser.parse_args()
    print(f"bench_realtime: {args.game}, {os.cpu_count()} CPUs, gunicorn --workers "
          f"{args.workers}, ~{args.seconds:g} s per figure")
    for backend in args.backends.split(","):
        bench(backend.strip(), args)


if __name__ == "__main__":
    main()

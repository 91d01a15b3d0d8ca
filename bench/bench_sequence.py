"""Benchmark the Sequence engine (run by hand; prints figures and ratios).

    .venv/bin/python bench/bench_sequence.py [--positions 2000] [--seconds 5]

1. Per-placement sequence detection: ``new_sequences`` (looks only at the four lines
   through the new chip) against the baseline measured in the same run, a full-board
   rescan (``scan_sequences`` over every line) after the same placement, on random
   mid-game positions with locked sequences. Ratio = rescan time / incremental time.
2. Full random games in process, both games and both dealing modes: actions/s where
   one action is what the store asks of the engine (``legal_actions`` for the actor,
   ``apply``, ``fold`` of each event), against the baseline measured in the same run
   of one JSON round trip of the state per action (what the store pays to snapshot
   it). Ratio = engine time per action / JSON round trip time per action.
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from service.games import sequence as sq  # noqa: E402

BOARD = [list(row) for row in sq.CLASSIC_BOARD]
OPEN = [(r, c) for r in range(10) for c in range(10) if (r, c) not in sq.CORNERS]


def position(rng: random.Random, chips_count: int) -> tuple[list, list]:
    """Chips placed one by one for random sides, sequences recorded as a game would."""
    chips: list[list[str | None]] = [[None] * 10 for _ in range(10)]
    sequences: list[dict] = []
    for r, c in rng.sample(OPEN, chips_count):
        side = rng.choice(("green", "blue"))
        chips[r][c] = side
        for window in sq.new_sequences(BOARD, chips, sequences, (r, c), side):
            sequences.append({"side": side, "cells": [list(x) for x in window]})
    return chips, sequences


def bench_detection(rng: random.Random, count: int) -> None:
    cases = []
    for _ in range(count):
        chips, sequences = position(rng, rng.randint(30, 80))
        empty = [(r, c) for r, c in OPEN if chips[r][c] is None]
        cell = rng.choice(empty)
        side = rng.choice(("green", "blue"))
        chips[cell[0]][cell[1]] = side
        cases.append((chips, sequences, cell, side))
    incremental, rescan, found = [], [], 0
    for chips, sequences, cell, side in cases:
        start = time.perf_counter()
        made = sq.new_sequences(BOARD, chips, sequences, cell, side)
        incremental.append(time.perf_counter() - start)
        start = time.perf_counter()
        sq.scan_sequences(BOARD, chips, sequences, side)
        rescan.append(time.perf_counter() - start)
        found += len(made)
    inc, full = statistics.median(incremental) * 1e6, statistics.median(rescan) * 1e6
    print(f"per-placement detection, {count} random positions of 30-80 chips "
          f"({found} sequences completed):")
    print(f"  incremental (4 lines through the chip) median {inc:7.2f} us")
    print(f"  baseline full-board rescan             median {full:7.2f} us")
    print(f"  rescan / incremental = {full / inc:.1f}x")


def play_games(game: str, options: dict, seconds: float, rng: random.Random) -> None:
    actions = engine_time = json_time = 0.0
    games = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        events = sq.new_game(game, options, f"{rng.getrandbits(256):064x}")
        state = None
        for event in events:
            state = sq.fold(state, event)
        while state["status"] == "active":
            actors = [s for s in state["seats"] if sq.legal_actions(state, s)]
            actor = rng.choice(actors) if actors else "referee"
            start = time.perf_counter()
            action = rng.choice(sq.legal_actions(state, actor))
            for event in sq.apply(state, actor, action):
                state = sq.fold(state, event)
            engine_time += time.perf_counter() - start
            start = time.perf_counter()
            json.loads(json.dumps(state))
            json_time += time.perf_counter() - start
            actions += 1
        games += 1
    per_action = engine_time / actions * 1e6
    per_json = json_time / actions * 1e6
    mode = options.get("dealing", "server")
    print(f"  {game:16s} {options.get('players', 2)} players, {mode:6s}: {games:4d} games, "
          f"{actions / games:5.0f} actions/game, {actions / engine_time:8,.0f} actions/s "
          f"({per_action:6.1f} us); JSON round trip {per_json:5.1f} us; "
          f"engine/JSON = {per_action / per_json:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--seconds", type=float, default=5.0, help="per game setup")
    args = parser.parse_args()
    rng = random.Random(20261130)
    bench_detection(rng, args.positions)
    print("full random games in process (legal_actions + apply + fold per action):")
    for game, options in (("sequence", {}), ("sequence", {"players": 4}),
                          ("sequence", {"dealing": "table"}),
                          ("sequence-numbers", {"players": 6, "sides": 3})):
        play_games(game, options, args.seconds, rng)


if __name__ == "__main__":
    main()

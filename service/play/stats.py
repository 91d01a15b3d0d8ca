"""What a run counted (games, turns, declarations, errors...) and the 2-Way Cards
strategy helpers (grid lines, free sequence lengths, wrong declarations)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from service.play.constants import (
    GRID_DIRECTIONS,
)

# ----- statistics ------------------------------------------------------------------


@dataclass
class Stats:
    """What a run did (see :meth:`summary`)."""

    games: int = 0
    finished: int = 0
    turns: int = 0
    actions: int = 0
    requests: int = 0
    declarations_valid: int = 0
    declarations_wrong: int = 0
    penalties: int = 0
    retries: int = 0
    winners: Counter = field(default_factory=Counter)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    seconds: float = 0.0
    streamed: int = 0  # acknowledged actions whose events the stream delivered
    stream_lag: float = 0.0  # the slowest: seconds from the reply to the stream

    def error(self, text: str) -> None:
        self.errors += 1
        if len(self.error_samples) < 20:
            self.error_samples.append(text)

    @property
    def actions_per_second(self) -> float:
        return self.actions / self.seconds if self.seconds else 0.0

    def summary(self) -> str:
        """One line: games, turns, actions, declarations, penalties, winners, errors,
        actions/s."""
        winners = ", ".join(
            f"{who} {n}"
            for who, n in sorted(
                self.winners.items(), key=lambda item: (item[0] == "draw", item[0])
            )
        )
        return (
            f"games {self.games} (finished {self.finished}) | turns {self.turns} | "
            f"actions {self.actions} | declarations {self.declarations_valid} valid, "
            f"{self.declarations_wrong} wrong | penalties {self.penalties} | "
            f"winners {winners or '-'} | errors {self.errors} | "
            f"{self.actions_per_second:.0f} actions/s ({self.seconds:.1f} s, "
            f"{self.requests} requests) | streamed {self.streamed}, slowest "
            f"{self.stream_lag * 1000:.0f} ms"
        )


# ----- strategy helpers (2-Way Cards) ----------------------------------------------


def grid_lines(grid: list[list[Any]], lengths: set[int]) -> list[list[list[int]]]:
    """Every straight, contiguous line (TW-D1) of occupied spaces of ``grid`` (None is
    empty) whose length is in ``lengths``, each listed once in reading direction."""
    size = len(grid)
    out = []
    for r in range(size):
        for c in range(size):
            for dr, dc in GRID_DIRECTIONS:
                for n in sorted(lengths):
                    cells = [[r + i * dr, c + i * dc] for i in range(n)]
                    if all(
                        0 <= y < size and 0 <= x < size and grid[y][x] is not None for y, x in cells
                    ):
                        out.append(cells)
    return out


def free_lengths(view: dict, seat: str) -> set[int]:
    """TW-D3: the declaration lengths ``seat`` still has a free slot for (its view's
    ``slots``: {seat: {length: {allowed, held}}}); the only limit on lengths (TW-T3)."""
    return {int(n) for n, slot in view["slots"][seat].items() if slot["held"] < slot["allowed"]}


def wrong_declarations(view: dict, seat: str, legal: list[dict]) -> list[list[list[int]]]:
    """Lines ``seat`` could declare that are NOT correct: occupied, free length, and
    not among the legal declarations (in either direction)."""
    correct = {frozenset(map(tuple, a["cells"])) for a in legal if a["type"] == "declare"}
    return [
        cells
        for cells in grid_lines(view["grid"], free_lengths(view, seat))
        if frozenset(map(tuple, cells)) not in correct
    ]


def winner_of(view: dict) -> str:
    """ "draw" or the winning seats joined by "+" (a team: ``p1+p3``), from a finished
    game's view: its ``result.winners`` (the one result shape of every game)."""
    return "+".join(view["result"]["winners"]) or "draw"

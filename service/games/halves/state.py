"""The shape of a Halves state (what ``fold`` builds; plain JSON data)."""

from __future__ import annotations

from typing import Any, TypeAlias, TypedDict

# An event of the log: {"type", "seat", ...payload} (free-form JSON, :mod:`service.games`)
Event: TypeAlias = dict[str, Any]


class Options(TypedDict):
    """Normalised options (``normalise_options``)."""

    players: int
    dealing: str  # "server" (G-M1) | "table" (G-M2, HV-M1)
    first_seat: str
    match: str  # HV-T1: "per_half" | "whole_card" | "any_half"
    allow_turning: bool
    deck: list[str] | None  # a custom deck, upright codes; None: the default 72 cards
    idle_seconds: int | None  # G-T1 (absent in games created before it: off)


class CentreEntry(TypedDict):
    """One card of the central pile: upright code, laid turned round or not."""

    card: str
    turned: bool


class Counts(TypedDict):
    """The record so far (shown in the view)."""

    plays: int
    draws: int
    top_up_draws: int
    bottom_card_moves: int
    pile_turns: int


class Result(TypedDict):
    """The shared RESULT of :mod:`service.games` (reason ``out``, ``no-legal-play`` or
    ``last-seat``)."""

    winners: list[str]
    scores: dict[str, int]
    reason: str
    halves: dict[str, Any]


class HalvesState(TypedDict):
    """A game of Halves. Cards are upright codes (``RC-GS``); in table mode a hidden
    card is None (the service knows only the counts, HV-M1)."""

    game: str  # "halves"
    options: Options
    seed: str
    status: str  # "active" | "finished"
    phase: str  # "deal" (table mode, before the deal report) | "play"
    result: Result | None
    seats: list[str]  # p1..pN
    retired: dict[str, int]  # seat -> its cards left when it retired (HV-T6)
    deck: list[str]  # the game's cards, upright
    box: list[str | None]  # out of play: the deal's leftovers, retired seats' cards
    hands: dict[str, list[str | None]]
    piles: dict[str, list[str | None]]  # top first
    centre: list[CentreEntry]  # bottom first
    streak: int  # block moves in a row since the hands last changed (HV-T5 ruling)
    turner: str  # where the pile-turn rotation carries on (HV-T5)
    counts: Counts
    from_position: bool  # G-P1: started from a stated position, not from a deal
    timed_out: list[str]  # G-T1: seats treated as unable to play on the current top

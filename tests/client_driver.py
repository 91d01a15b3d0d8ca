"""Plays whole games through the Python client generated from openapi.yaml
(openapi-python-client, package ``card_referee_client``): its typed functions only, no
casts and no raw HTTP (tests/test_generated_client.py generates the package, type-checks
this module with ``mypy --strict`` and runs :func:`play`).

Each step asks every seat (then the referee) for its legal actions and posts one of
them back exactly as listed, with ``If-Match`` set to the listed version, until the
game is finished. The choice favours what ends a game soon (declarations, plays next
to one's own chips, foundations); after ``patience`` steps the referee's listed
actions (a seat retiring) are taken first.
"""

from __future__ import annotations

import random

import httpx
from card_referee_client import AuthenticatedClient
from card_referee_client.api.games import create_game, get_game, get_legal_actions, post_action
from card_referee_client.models import (
    ActionResult,
    CreatedGame,
    GameView,
    HalvesCreateGame,
    HalvesCreateGameGame,
    HalvesOptions,
    Problem,
    SequenceCreateGame,
    SequenceCreateGameGame,
    SequenceNumbersCreateGame,
    SequenceNumbersCreateGameGame,
    SequenceNumbersOptions,
    SequenceNumbersOptionsSequencesToWin,
    SequenceNumbersOptionsStalemateDecks,
    SequenceOptions,
    SequenceOptionsSequencesToWin,
    SequenceOptionsStalemateDecks,
    SolitaireFrenzyCreateGame,
    SolitaireFrenzyCreateGameGame,
    SolitaireFrenzyOptions,
    SolitaireFrenzyOptionsRounds,
    TwoWayCreateGame,
    TwoWayCreateGameGame,
    TwoWayOptions,
    TwoWayOptionsVariant,
)

Body = (
    TwoWayCreateGame
    | SequenceCreateGame
    | SequenceNumbersCreateGame
    | HalvesCreateGame
    | SolitaireFrenzyCreateGame
)

# quick games of each kind: easy 2-Way Cards, one sequence to win, one round...
BODIES: dict[str, Body] = {
    "two-way": TwoWayCreateGame(
        game=TwoWayCreateGameGame.TWO_WAY, options=TwoWayOptions(variant=TwoWayOptionsVariant.EASY)
    ),
    "sequence": SequenceCreateGame(
        game=SequenceCreateGameGame.SEQUENCE,
        options=SequenceOptions(
            sequences_to_win=SequenceOptionsSequencesToWin.VALUE_1,
            stalemate_decks=SequenceOptionsStalemateDecks.VALUE_1,
        ),
    ),
    "sequence-numbers": SequenceNumbersCreateGame(
        game=SequenceNumbersCreateGameGame.SEQUENCE_NUMBERS,
        options=SequenceNumbersOptions(
            sequences_to_win=SequenceNumbersOptionsSequencesToWin.VALUE_1,
            stalemate_decks=SequenceNumbersOptionsStalemateDecks.VALUE_1,
        ),
    ),
    "halves": HalvesCreateGame(game=HalvesCreateGameGame.HALVES, options=HalvesOptions()),
    "solitaire-frenzy": SolitaireFrenzyCreateGame(
        game=SolitaireFrenzyCreateGameGame.SOLITAIRE_FRENZY,
        options=SolitaireFrenzyOptions(rounds=SolitaireFrenzyOptionsRounds.VALUE_1),
    ),
}
# action types in the order a quick game prefers them
PREFERENCE = [
    "declare",
    "play",
    "place",
    "refill",
    "remove-chip",
    "exchange-dead-card",
    "draw",
    "discard",
    "move",
    "penalty-discard",
    "pass",
    "turn",
]


def clients(created: CreatedGame, transport: httpx.BaseTransport) -> dict[str, AuthenticatedClient]:
    """A client per seat and one for the referee, on ``transport``."""
    tokens: dict[str, str] = {}
    for seat, entry in created.seats.additional_properties.items():
        if not isinstance(entry.token, str):  # created with invitations: no token yet
            raise AssertionError(f"seat {seat} has no token")
        tokens[seat] = entry.token
    tokens["referee"] = created.referee_token
    return {
        who: AuthenticatedClient(
            base_url="http://testserver", token=token, httpx_args={"transport": transport}
        )
        for who, token in tokens.items()
    }


def _score(
    action_type: str, cell: list[int] | None, mine: set[tuple[int, int]], rng: random.Random
) -> float:
    """Lower is better: the type's rank, then (a placement) closeness to own cells."""
    rank = PREFERENCE.index(action_type) if action_type in PREFERENCE else len(PREFERENCE)
    near = 0
    if cell is not None:
        near = sum(1 for r, c in mine if r == cell[0] and abs(c - cell[1]) < 5)
    return rank * 100 - near * 10 + rng.random()


def step(
    players: dict[str, AuthenticatedClient],
    game_id: str,
    rng: random.Random,
    mine: dict[str, set[tuple[int, int]]],
    referee_too: bool,
) -> ActionResult | None:
    """One listed action by the first actor that has one; None when nobody has."""
    order = (
        sorted(players, key=lambda who: who != "referee")
        if referee_too
        else [who for who in players if who != "referee"]
    )
    for who in order:
        client = players[who]
        legal = get_legal_actions.sync(game_id, client=client)
        if legal is None or isinstance(legal, Problem):
            raise AssertionError(f"legal actions of {who}: {legal}")
        if not legal.actions:
            continue
        own = mine.setdefault(who, set())
        action = min(
            legal.actions, key=lambda a: _score(a.type_.value, getattr(a, "cell", None), own, rng)
        )
        response = post_action.sync_detailed(
            game_id, client=client, body=action, if_match=f'"{legal.version}"'
        )
        if not isinstance(response.parsed, ActionResult):
            raise AssertionError(f"{who} posted {action.to_dict()}: {response.parsed}")
        cell = getattr(action, "cell", None)
        if isinstance(cell, list):
            own.add((cell[0], cell[1]))
        return response.parsed
    return None


def play(
    game: str, transport: httpx.BaseTransport, patience: int = 150, limit: int = 2000
) -> tuple[GameView, int, str]:
    """Create a game of ``game`` and play it to its end: (the referee's final view of
    it, the number of actions posted, the referee token)."""
    opener = AuthenticatedClient(
        base_url="http://testserver", token="", httpx_args={"transport": transport}
    )
    created = create_game.sync(client=opener, body=BODIES[game])
    if not isinstance(created, CreatedGame):
        raise AssertionError(f"create {game}: {created}")
    players = clients(created, transport)
    rng = random.Random(game)
    mine: dict[str, set[tuple[int, int]]] = {}
    for count in range(1, limit + 1):
        result = step(players, created.id, rng, mine, referee_too=count > patience)
        if result is None:
            result = step(players, created.id, rng, mine, referee_too=True)
        if result is None:
            raise AssertionError(f"{game}: nobody can act, and the game is not over")
        if result.status == "finished":
            assert "game-ended" in [event.type_ for event in result.events]
            final = get_game.sync(created.id, client=players["referee"])
            if not isinstance(final, GameView):
                raise AssertionError(f"get {game}: {final}")
            return final, count, created.referee_token
    raise AssertionError(f"{game}: not finished after {limit} actions")

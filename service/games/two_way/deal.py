"""2-Way Cards deal (RULES.md TW-T1, G-M1): a new game's setup events and the
server's draws from the seed."""

from __future__ import annotations

from service.games import RuleViolation
from service.games.rng import Stream
from service.games.two_way.flow import fold, other_seat
from service.games.two_way.options import normalise_options
from service.games.two_way.state import Event, TwoWayState
from service.games.two_way.tiles import GAME, HAND_SIZE, SEATS, game_manifest
from service.messages import Message


def new_game(game: str, options: object, seed: str) -> list[Event]:
    """TW-T1 setup events: ``game-created`` (fold(None, it) is the initial state), then
    in server mode one ``dealt`` of 5 tiles per seat (first player first) drawn with the
    seed; in table mode the referee reports the deals (``draw`` actions with 5 ids).

    Raises RuleViolation ``invalid-option`` (422) naming a bad option, or
    ``unknown-game`` (422).
    """
    if game != GAME:
        raise RuleViolation(
            "unknown-game",
            Message(
                "this engine plays %(engine)s, not %(game)s", engine=repr(GAME), game=repr(game)
            ),
            422,
            rule="G-O1",
        )
    if not isinstance(seed, str) or not seed:
        raise ValueError("seed must be a non-empty string")
    chosen, manifest = normalise_options(options)
    custom = manifest is not None
    if not custom:
        manifest = game_manifest(chosen["dealing"], seed)
    created: Event = {
        "type": "game-created",
        "seat": None,
        "game": GAME,
        "options": chosen,
        "seats": list(SEATS),
        "custom_manifest": custom,
        "manifest": manifest,
        "seed": seed,
    }
    events: list[Event] = [created]
    if chosen["dealing"] == "server":
        state = fold(None, created)
        first = chosen["first_seat"]
        for seat in (first, other_seat(first)):
            deal: Event = {
                "type": "dealt",
                "seat": seat,
                "by": None,
                "tiles": server_draw(state, HAND_SIZE),
            }
            events.append(deal)
            state = fold(state, deal)
    return events


def server_draw(state: TwoWayState, count: int) -> list[int]:
    """``count`` tiles picked uniformly from the sorted bag with the seed's stream
    ``draw:<n>`` (n = draws so far), so draws replay from the seed."""
    bag = list(state["bag"])
    stream = Stream(state["seed"], f"draw:{state['draws']}")
    return [bag.pop(stream.randbelow(len(bag))) for _ in range(min(count, len(bag)))]

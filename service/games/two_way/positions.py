"""2-Way Cards positions (RULES.md G-P1): start a game from a stated position.

The notation is in ``notation``, the checks of what a position states in
``positions_check``. Rulings (README "Positions", "Rulings"):
- A tile is an id of the game's manifest or a face pair ``"AS/KH"`` (the first tile
  of the manifest with those faces not yet named; ids are resolved first). A server
  game without a manifest (stated or option ``tile_manifest``) names its tiles by
  pairs only: its own pairing is secret; the pairs stated become tiles and the faces
  left out are paired from the seed (``pair_faces``, label ``manifest``).
- What a position leaves out is dealt from the seed: an omitted hand takes the tiles
  it must hold (stream ``position:<seat>``), an omitted bag is the rest.
- Reachable (else 422 ``invalid-position`` naming the field and the rule): every tile
  exactly once (G-P1); hands of the size the phase implies: 5 off turn, 5 - placed
  while placing or drawing, 7 before the discard (TW-T2); the first seat on the odd
  turns, and turns enough to have placed the tiles on the grid and in the bases, 2 a
  turn (TW-T2); no missed turn owed by a seat that has had no turn (TW-T5); removed
  sequences correct on their owner's faces (TW-D4), within the slots (TW-D3), scores
  their sum (TW-E3); a seat holding every slot only in a finished game, on turn
  (TW-E1); a full grid only after a placement this turn (TW-E2); ``draw`` with fewer
  than 2 placements only on a full grid (TW-T4), ``discard`` alike unless G-T1 is on.
  A valid line left on the grid is reachable: declaring is a choice (TW-T3), so it is
  never refused.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any

from service.cards import DECK, JOKER
from service.games import RuleViolation
from service.games.rng import Stream
from service.games.two_way.deal import server_draw
from service.games.two_way.flow import end_event, fold, other_seat
from service.games.two_way.lines import GRID_SIZE
from service.games.two_way.notation import pair_name, parse_pair
from service.games.two_way.options import SLOTS, normalise_options, validate_manifest
from service.games.two_way.positions_check import (
    check_bases,
    check_flow,
    check_hand,
    hand_sizes,
    refuse,
    turn_fields,
)
from service.games.two_way.state import Board, Event, Faces, Grid, PositionFields
from service.games.two_way.tiles import (
    FACE_COUNTS,
    GAME,
    HAND_SIZE,
    SEATS,
    TILE_COUNT,
    default_manifest,
    pair_faces,
)
from service.messages import Message

FIELDS = {
    "game",
    "grid",
    "hands",
    "bag",
    "bag_count",
    "bases",
    "scores",
    "turn",
    "phase",
    "placed",
    "turn_number",
    "pending_skips",
    "dealt",
    "manifest",
    "custom_manifest",
}


def _list(value: object, field: str) -> list[object]:
    if not isinstance(value, list):
        raise refuse(field, "G-P1", Message("must be a list"))
    return value


# ----- tiles: the manifest and the names -----


def _stated_manifest(position: Mapping[str, Any], custom: list[Faces] | None) -> list[Faces] | None:
    """The position's ``manifest`` (108 ``"AS/KH"`` or ``{"blue", "green"}``), checked
    like the option tile_manifest (TW-C2); it must equal the option when both are given."""
    if position.get("manifest") is None:
        return custom
    tiles: list[object] = []
    for _i, tile in enumerate(_list(position["manifest"], "manifest")):
        pair = parse_pair(tile)
        tiles.append({"blue": pair[0], "green": pair[1]} if pair else tile)
    try:
        manifest = validate_manifest(tiles)
    except RuleViolation as error:
        detail = error.detail  # invalid_option's "option %(name)s: %(detail)s"
        if isinstance(detail, Message):
            detail = detail.params["detail"]  # the detail alone
        raise refuse("manifest", "TW-C2", detail) from None
    if custom is not None and custom != manifest:
        raise refuse("manifest", "TW-C2", Message("differs from the option tile_manifest"))
    return manifest


def _references(position: Mapping[str, Any]) -> list[tuple[str, object]]:
    """(field, tile name) of every tile the position states, shapes checked: grid,
    hands, bases, bag."""
    refs: list[tuple[str, object]] = []
    grid = position.get("grid")
    if (
        not isinstance(grid, list)
        or len(grid) != GRID_SIZE
        or not all(isinstance(row, list) and len(row) == GRID_SIZE for row in grid)
    ):
        raise refuse("grid", "TW-C1", Message("must be 7 rows of 7 cells (a tile or null)"))
    refs += [
        (f"grid[{r}][{c}]", t)
        for r, row in enumerate(grid)
        for c, t in enumerate(row)
        if t is not None
    ]
    for key in ("hands", "bases"):
        value = position.get(key, {})
        if not isinstance(value, dict) or set(value) - set(SEATS):
            raise refuse(key, "G-P1", Message("must be an object by seat (blue, green)"))
    for seat, hand in position.get("hands", {}).items():
        refs += [(f"hands.{seat}[{i}]", t) for i, t in enumerate(_list(hand, f"hands.{seat}"))]
    for seat, entries in position.get("bases", {}).items():
        for j, entry in enumerate(_list(entries, f"bases.{seat}")):
            field = f"bases.{seat}[{j}]"
            if not isinstance(entry, dict) or set(entry) - {"cells", "tiles"}:
                raise refuse(field, "G-P1", Message('must be {"cells": [...], "tiles": [...]}'))
            tiles = _list(entry.get("tiles"), f"{field}.tiles")
            refs += [(f"{field}.tiles[{k}]", t) for k, t in enumerate(tiles)]
    if position.get("bag") is not None:
        refs += [(f"bag[{i}]", t) for i, t in enumerate(_list(position["bag"], "bag"))]
    return refs


def _bad_tile(field: str, value: object) -> RuleViolation:
    return refuse(
        field,
        "TW-C2",
        Message(
            'a tile is a manifest id 0..%(last)s or its faces "AS/KH" (blue/green), not %(value)s',
            last=TILE_COUNT - 1,
            value=json.dumps(value),
        ),
    )


def _build_manifest(refs: list[tuple[str, object]], seed: str) -> list[Faces]:
    """A server game without a manifest: the stated pairs are tiles 0..k-1 in order,
    the faces left out are paired from the seed (TW-C2, G-M1)."""
    counts: dict[str, Counter[str]] = {seat: Counter() for seat in SEATS}
    manifest: list[Faces] = []
    for field, value in refs:
        if isinstance(value, int) and not isinstance(value, bool):
            raise refuse(
                field,
                "G-M1",
                Message(
                    'a server game without a manifest names its tiles by their faces ("AS/KH"): '
                    "its tile ids are secret"
                ),
            )
        pair = parse_pair(value)
        if pair is None or pair[0] == pair[1]:
            raise _bad_tile(field, value)
        for seat, face in zip(SEATS, pair):
            counts[seat][face] += 1
            if counts[seat][face] > FACE_COUNTS[face]:
                raise refuse(
                    field,
                    "TW-C2",
                    Message("the set has no more %(seat)s faces %(card)s", seat=seat, card=face),
                )
        manifest.append({"blue": pair[0], "green": pair[1]})
    rest = {
        seat: [c for c in (*DECK, JOKER) for _ in range(FACE_COUNTS[c] - counts[seat][c])]
        for seat in SEATS
    }
    tail = pair_faces(rest["blue"], rest["green"], seed, "manifest")
    if any(t["blue"] == t["green"] for t in tail):
        raise refuse(
            "manifest",
            "TW-C2",
            Message(
                "the faces left out cannot be paired without a tile showing one card on both "
                "faces: state the manifest"
            ),
        )
    return manifest + tail


def _resolve(refs: list[tuple[str, object]], manifest: list[Faces]) -> list[int]:
    """The tile id of each reference: ids first, then each pair the first tile with
    those faces not yet named (TW-C2); a tile named twice breaks G-P1."""
    ids: list[int | None] = [None] * len(refs)
    where: dict[int, str] = {}

    def take(i: int, tile: int) -> None:
        field = refs[i][0]
        if tile in where:
            raise refuse(
                field,
                "G-P1",
                Message(
                    "tile %(tile)s is already at %(other)s",
                    tile=pair_name(manifest[tile]),
                    other=where[tile],
                ),
            )
        where[tile] = field
        ids[i] = tile

    for i, (field, value) in enumerate(refs):
        if isinstance(value, int) and not isinstance(value, bool):
            if not 0 <= value < TILE_COUNT:
                raise _bad_tile(field, value)
            take(i, value)
    for i, (field, value) in enumerate(refs):
        if ids[i] is None:
            pair = parse_pair(value)
            if pair is None:
                raise _bad_tile(field, value)
            tile = next(
                (
                    t
                    for t, f in enumerate(manifest)
                    if (f["blue"], f["green"]) == pair and t not in where
                ),
                None,
            )
            if tile is None:
                raise refuse(
                    field,
                    "TW-C2",
                    Message(
                        "no (more) tile %(tile)s in the game's manifest",
                        tile=f"{pair[0]}/{pair[1]}",
                    ),
                )
            take(i, tile)
    return [t for t in ids if t is not None]


# ----- the state a position describes -----


def _deal_missing(
    unplaced: list[int], sizes: dict[str, int], position: Mapping[str, Any], seed: str
) -> dict[str, list[int]]:
    hands: dict[str, list[int]] = {}
    for seat in SEATS:
        if seat not in position.get("hands", {}):
            stream = Stream(seed, f"position:{seat}")
            if sizes[seat] > len(unplaced):
                raise refuse(
                    f"hands.{seat}", "G-P1", Message("too few tiles are left to deal this hand")
                )
            hands[seat] = [
                unplaced.pop(stream.randbelow(len(unplaced))) for _ in range(sizes[seat])
            ]
    return hands


def _stated(
    position: Mapping[str, Any],
    refs: list[tuple[str, object]],
    ids: list[int],
    manifest: list[Faces],
) -> dict[str, Any]:
    """The position as stated, every tile named by its face pair."""
    names = {field: pair_name(manifest[t]) for (field, _), t in zip(refs, ids)}
    stated: dict[str, Any] = json.loads(json.dumps(position))
    stated.pop("manifest", None)
    stated["grid"] = [
        [names.get(f"grid[{r}][{c}]") for c in range(GRID_SIZE)] for r in range(GRID_SIZE)
    ]
    for seat, hand in stated.get("hands", {}).items():
        stated["hands"][seat] = [names[f"hands.{seat}[{i}]"] for i in range(len(hand))]
    for seat, entries in stated.get("bases", {}).items():
        for j, entry in enumerate(entries):
            entry["tiles"] = [
                names[f"bases.{seat}[{j}].tiles[{k}]"] for k in range(len(entry["tiles"]))
            ]
    if stated.get("bag") is not None:
        stated["bag"] = [names[f"bag[{i}]"] for i in range(len(stated["bag"]))]
    return stated


def start_from_position(game: str, options: object, seed: str, position: object) -> list[Event]:
    """G-P1: the setup events of a game starting at ``position`` (notation: module
    ``notation``): ``game-created`` {..., "from_position": true}, ``position-set``
    {"position": the position as stated, tiles as face pairs; "state": the grid,
    hands, bag, bases, scores, turn, phase... fold sets}, then in server dealing the
    deals still due (phase "deal"), and ``game-ended`` for a finished position.

    Raises RuleViolation ``unknown-game``/``invalid-option`` as ``new_game``, and
    ``invalid-position`` (422, ``extra={"field": dotted path}``, the rule broken) for
    a position the rules cannot reach (rulings: module docstring).
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
    chosen, custom = normalise_options(options)
    if not isinstance(position, dict) or position.get("game") != GAME:
        raise refuse("game", "G-P1", Message('a position is an object with "game": "two-way"'))
    for key in position:
        if key not in FIELDS:
            raise refuse(
                key,
                "G-P1",
                Message("unknown field (known: %(known)s)", known=", ".join(sorted(FIELDS))),
            )
    slots = SLOTS[(chosen["variant"], chosen["easy_extra_threes"])]
    turn = turn_fields(position, chosen)
    manifest = _stated_manifest(position, custom)
    refs = _references(position)
    if manifest is None and chosen["dealing"] == "server":
        manifest = _build_manifest(refs, seed)
    elif manifest is None:
        manifest = default_manifest()
    ids = _resolve(refs, manifest)
    by_field = {field: t for (field, _), t in zip(refs, ids)}
    grid: Grid = [
        [by_field.get(f"grid[{r}][{c}]") for c in range(GRID_SIZE)] for r in range(GRID_SIZE)
    ]
    hands: dict[str, list[int]] = {
        s: [by_field[f"hands.{s}[{i}]"] for i in range(len(h))]
        for s, h in position.get("hands", {}).items()
    }
    base_tiles = {
        f"bases.{s}[{j}]": [by_field[f"bases.{s}[{j}].tiles[{k}]"] for k in range(len(e["tiles"]))]
        for s, entries in position.get("bases", {}).items()
        for j, e in enumerate(entries)
    }
    bases = check_bases(position, base_tiles, manifest, slots)
    scores = {s: sum(e["points"] for e in bases[s]) for s in SEATS}
    if "scores" in position and position["scores"] != scores:
        raise refuse(
            "scores",
            "TW-E3",
            Message(
                "must be the sum of each seat's removed sequences: %(scores)s",
                scores=json.dumps(scores),
            ),
        )
    board: Board = {"grid": grid, "bases": bases}
    idle = chosen["idle_seconds"] is not None
    completer = check_flow(board, turn, slots, hands.get(turn["turn"]) == [], idle)
    sizes = hand_sizes(turn["phase"], turn["turn"], turn["placed"], turn["dealt"])
    for seat, hand in hands.items():
        check_hand(seat, hand, sizes[seat], turn, idle)
    unplaced = sorted(set(range(TILE_COUNT)) - set(ids))
    hands.update(_deal_missing(unplaced, sizes, position, seed))
    hands = {s: hands[s] for s in SEATS}
    if turn["phase"] == "place" and not hands[turn["turn"]]:
        raise refuse("phase", "TW-T4", Message('no placement is due: the phase is "draw"'))
    if position.get("bag") is not None:
        if unplaced:
            raise refuse(
                "bag",
                "G-P1",
                Message(
                    "every tile is in exactly one place: %(count)s missing (%(tiles)s)",
                    count=len(unplaced),
                    tiles=" ".join(pair_name(manifest[t]) for t in unplaced[:6]),
                ),
            )
        bag = sorted(by_field[f"bag[{i}]"] for i in range(len(position["bag"])))
    else:
        bag = unplaced
    if "bag_count" in position and position["bag_count"] != len(bag):
        raise refuse(
            "bag_count",
            "G-P1",
            Message("must be %(count)s, the tiles left", count=len(bag)),
        )
    data: PositionFields = {
        "grid": grid,
        **turn,
        "bases": bases,
        "scores": scores,
        "hands": hands,
        "bag": bag,
    }
    stated_custom = position.get("custom_manifest", position.get("manifest") is not None)
    created: Event = {
        "type": "game-created",
        "seat": None,
        "game": GAME,
        "options": chosen,
        "seats": list(SEATS),
        "custom_manifest": custom is not None or bool(stated_custom),
        "manifest": manifest,
        "seed": seed,
        "from_position": True,
    }
    setup: Event = {
        "type": "position-set",
        "seat": None,
        "position": _stated(position, refs, ids, manifest),
        "state": json.loads(json.dumps(data)),
    }
    events: list[Event] = [created, setup]
    state = fold(fold(None, created), setup)
    if turn["phase"] == "deal" and chosen["dealing"] == "server":
        for seat in (chosen["first_seat"], other_seat(chosen["first_seat"])):
            if seat not in state["dealt"]:
                deal: Event = {
                    "type": "dealt",
                    "seat": seat,
                    "by": None,
                    "tiles": server_draw(state, HAND_SIZE),
                }
                events.append(deal)
                state = fold(state, deal)
    if turn["phase"] == "over":
        events.append(end_event(state, "set-complete" if completer else "grid-full", completer))
    return events

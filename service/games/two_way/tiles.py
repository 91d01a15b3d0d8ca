"""2-Way Cards tiles (RULES.md TW-C2): the game's constants and the manifest of
face pairs (tile id = index in the manifest)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any

from service.data import seed_file

from service.cards import DECK, JOKER
from service.games.rng import shuffle
from service.games.two_way.state import Faces

GAME = "two-way"
SEATS = ("blue", "green")
REFEREE = "referee"
TILE_COUNT = 108  # TW-C2, TW-E4
HAND_SIZE = 5  # TW-T1; TW-T2: the discard brings the hand down to it
PLACEMENTS = 2  # TW-T2
DRAW_COUNT = 4  # TW-T2, TW-E4 (not two)
DRAWN_HAND = 7  # TW-T2: the draw brings the hand up to it
MANIFEST_PATH = seed_file("two-way-tiles.json")
FACE_COUNTS = {**{card: 2 for card in DECK}, JOKER: 4}  # TW-C2: per colour


@lru_cache(maxsize=1)
def _shipped_tiles() -> tuple[tuple[str, str], ...]:
    """seeds/two-way-tiles.json as (blue, green) pairs, read once (immutable)."""
    with MANIFEST_PATH.open(encoding="utf-8") as handle:
        return tuple((t["blue"], t["green"]) for t in json.load(handle)["tiles"])


def default_manifest() -> list[Faces]:
    """The shipped manifest (seeds/two-way-tiles.json): a fresh list of 108 tiles."""
    return [{"blue": blue, "green": green} for blue, green in _shipped_tiles()]


def manifest_text(tiles: Iterable[Faces]) -> str:
    """A manifest as a game's state keeps it (TW-C2): each tile's faces ``blue/green``,
    comma-separated, the tile id its place: ``"AS/KH,2C/JD,..."``.

    One string, not 108 objects: a 2-Way Cards action reads its game's state from JSON
    and writes it back, and the manifest was three quarters of it (issue 23: reading
    and writing the state took 43 us as objects, 10 us as one string).

    >>> manifest_text([{"blue": "AS", "green": "KH"}, {"blue": "JK", "green": "2C"}])
    'AS/KH,JK/2C'
    """
    return ",".join(f"{t['blue']}/{t['green']}" for t in tiles)


# a face pair "AS/KH" -> its tile's faces, one object for every manifest showing it
# (at most 53 x 53 pairs: the card codes and the joker, TW-C2)
_PAIRS: dict[str, Faces] = {}


def _faces(pair: str) -> Faces:
    faces = _PAIRS.get(pair)
    if faces is None:
        blue, green = pair.split("/")
        faces = _PAIRS[pair] = {"blue": blue, "green": green}
    return faces


@lru_cache(maxsize=4096)
def read_manifest(text: str) -> tuple[Faces, ...]:
    """The tiles of a :func:`manifest_text`, tile id = index; built once per manifest
    in a process, from face objects every manifest shares (so a manifest kept costs
    about 1 KB: a worker keeps those of 4,096 games in play), so none may be changed.

    >>> read_manifest("AS/KH,JK/2C")[1]
    {'blue': 'JK', 'green': '2C'}
    """
    return tuple(map(_faces, text.split(",")))


def manifest_of(state: Mapping[str, Any]) -> tuple[Faces, ...]:
    """The manifest of a 2-Way Cards ``state`` (its ``"manifest"`` text, read by
    :func:`read_manifest`): ``manifest_of(state)[tile]["blue"]`` is a tile's blue face."""
    return read_manifest(state["manifest"])


def pair_faces(blue: list[str], green_pool: list[str], seed: str, label: str) -> list[Faces]:
    """Tiles pairing ``blue[i]`` with a green face drawn from ``green_pool`` (TW-C2).

    The pool is shuffled with ``service.games.rng.shuffle(pool, seed, label)``; then each
    tile whose two faces are equal swaps its green face with the first later tile
    (wrapping) where the swap leaves both tiles with different faces. Deterministic.
    seeds/make_two_way_tiles.py builds the default manifest with it.
    """
    green = shuffle(green_pool, seed, label)
    n = len(blue)
    for i in range(n):
        if green[i] != blue[i]:
            continue
        for step in range(1, n):
            j = (i + step) % n
            if green[j] != blue[i] and green[i] != blue[j]:
                green[i], green[j] = green[j], green[i]
                break
    return [{"blue": b, "green": g} for b, g in zip(blue, green)]


def game_manifest(dealing: str, seed: str) -> list[Faces]:
    """The manifest of a game without a custom ``tile_manifest``.

    Ruling (TW-C2, TW-C3): a table game uses the shipped default manifest as it is. A
    server game re-pairs it secretly from the game's seed (``pair_faces`` with label
    ``manifest``; blue faces keep their ids): the shipped pairing is public, and with
    it a seat could read the other colour of every tile it sees, which the physical
    game's unpublished pairing does not allow. The pairing is revealed with the seed.
    """
    tiles = default_manifest()
    if dealing != "server":
        return tiles
    return pair_faces([t["blue"] for t in tiles], [t["green"] for t in tiles], seed, "manifest")

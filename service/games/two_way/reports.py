"""2-Way Cards table reports (RULES.md G-M2, TW-C2): how the referee of a table game
names a tile: by manifest id, by its faces, or by one face.

Ruling (G-M2; README "Actions"): wherever the referee reports a tile (``place``'s
``tile``, ``discard``'s and ``draw``'s ``tiles``, the deal) it may give
- the manifest id (0..107);
- the face pair ``"AS/KH"`` (blue face / green face): one tile of the manifest; of
  identical tiles, the first in the hand (or bag) concerned;
- one face ``"AS"``: the tile of the hand (or bag) concerned showing that card on
  either face; when tiles with different faces show it, the report is ambiguous.
A name that is no tile (not a card, a pair no tile of the manifest shows) is 422
``invalid-tile``; an ambiguous face 422 ``ambiguous-tile`` listing the candidates (the
referee sees every face); both name the body field. A real tile absent from the hand
or bag is 409 ``tile-not-in-hand`` / ``tile-not-in-bag``.
"""

from __future__ import annotations

from service.cards import CardError, parse_card
from service.games import RuleViolation
from service.games.two_way.notation import pair_name, parse_pair
from service.games.two_way.state import TwoWayState
from service.games.two_way.tiles import TILE_COUNT, manifest_of
from service.messages import Message


def _invalid(field: str, value: object) -> RuleViolation:
    return RuleViolation(
        "invalid-tile",
        Message(
            "%(field)s: a referee names a tile by manifest id 0..%(last)s, by its faces "
            '"AS/KH" (blue/green) or by one face "AS", not %(value)s',
            field=field,
            last=TILE_COUNT - 1,
            value=repr(value),
        ),
        422,
        rule="TW-C2",
        extra={"field": field},
    )


def _absent(where: str, field: str, name: str, seat: str | None) -> RuleViolation:
    if where == "bag":
        return RuleViolation(
            "tile-not-in-bag",
            Message("%(field)s: tile %(tile)s is not in the bag", field=field, tile=name),
            rule="G-M2",
            extra={"field": field},
        )
    return RuleViolation(
        "tile-not-in-hand",
        Message(
            "%(field)s: tile %(tile)s is not in %(seat)s's hand", field=field, tile=name, seat=seat
        ),
        rule="TW-T2",
        extra={"field": field},
    )


def referee_tile(
    state: TwoWayState,
    value: object,
    place: list[int],
    taken: list[int],
    field: str,
    where: str,
    seat: str | None = None,
) -> int:
    """The tile id the referee's ``value`` names among ``place`` (a hand, or the bag
    when ``where`` is "bag"), leaving out the tiles already ``taken`` by the same
    report. Refusals: module docstring (``field`` is the body field, e.g. tiles[1])."""
    manifest = manifest_of(state)
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value < TILE_COUNT:
            raise _invalid(field, value)
        if value in taken:
            raise RuleViolation(
                "invalid-action",
                Message("%(field)s: tile %(tile)s named twice", field=field, tile=value),
                422,
                rule="G-M2",
                extra={"field": field},
            )
        if value not in place:
            raise _absent(where, field, str(value), seat)
        return value
    free = [t for t in place if t not in taken]
    pair = parse_pair(value)
    if pair is not None:
        if not any((f["blue"], f["green"]) == pair for f in manifest):
            raise _invalid(field, value)
        tile = next((t for t in free if (manifest[t]["blue"], manifest[t]["green"]) == pair), None)
        if tile is None:
            raise _absent(where, field, f"{pair[0]}/{pair[1]}", seat)
        return tile
    try:
        face = parse_card(value)
    except CardError:
        raise _invalid(field, value) from None
    shown = [t for t in free if face in (manifest[t]["blue"], manifest[t]["green"])]
    if not shown:
        raise _absent(where, field, face, seat)
    pairs = sorted({pair_name(manifest[t]) for t in shown})
    if len(pairs) > 1:
        raise RuleViolation(
            "ambiguous-tile",
            Message(
                "%(field)s: %(card)s shows on several tiles (%(tiles)s): name it by its faces",
                field=field,
                card=face,
                tiles=", ".join(pairs),
            ),
            422,
            rule="G-M2",
            extra={"field": field, "candidates": pairs},
        )
    return shown[0]

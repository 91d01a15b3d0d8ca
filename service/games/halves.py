"""Halves (RULES.md §4, HV-*): the real-time two-halves matching race. Pure engine.

Plain JSON-able data in and out; no Flask, no SQLAlchemy, no I/O except reading
``seeds/halves-deck.json`` once at import.

Cards (HV-C1). A half is a colour and a symbol, written colour letter then symbol
letter: colours ``R`` red, ``G`` green, ``B`` blue, ``Y`` yellow; symbols ``C``
circle, ``S`` square, ``T`` triangle, ``X`` cross (``RC`` = red circle). A card is two
halves joined by ``-``, first half first: ``RC-GS``. Input is case-insensitive, takes
``-``, ``/`` or nothing between the halves and either letter order inside a half
(``cr/sg``); output is always ``RC-GS``. The default deck (``seeds/halves-deck.json``,
made by ``seeds/make_halves_deck.py``) is the 72 cards whose halves differ in colour
and symbol, each written in its upright orientation (the half of the earlier colour
first). A custom deck (option ``deck``) lists its cards upright.

Orientation (HV-T1 ruling). A card lies with one half first: the "laid" halves.
A code as written IS an orientation, and ``turned: true`` swaps it: ``{"card":
"RC-GS", "turned": true}`` and ``{"card": "GS-RC"}`` lay the same card the same way.
The service never turns a card by itself. Events and views name a card by its
upright code plus ``turned`` (relative to upright) and show the laid ``halves``.

Matching (HV-T1). Each half of the laid card is judged against the same half of the
top card: option ``match: "per_half"`` (default) takes colour OR symbol per half
(one half may match by colour, the other by symbol); ``"whole_card"`` wants both
halves by colour or both by symbol. ``allow_turning: false`` refuses a card laid
other than upright.

Seats ``p1``..``pN`` (HV-P1: 2 to 14, at least 5 cards each). Dealing (option
``dealing``):

* ``server`` (G-M1): the deck is shuffled from the seed (``service.games.rng``,
  label ``deal``) and dealt in equal blocks (``dealt``: a seat's cards, top first;
  the first 4 go to its hand, the rest is its face-down pile); the leftovers stay in
  the box and never count. ``first_seat`` (G-O1) turns its pile's top card onto the
  centre (``pile-turned``, HV-P2). Seats ``play`` and ``draw``; the service detects a
  block itself (HV-T4, HV-T5). The referee may only ``retire`` a seat (HV-T6).
* ``table`` (G-M2, HV-M1): physical cards. The referee reports the deal (``deal``
  with the starting card), every draw (``draw`` with ``seat``; the card stays
  unknown), every play in the order it reached the pile (``play`` with ``seat``),
  a block (``blocked``; with ``card`` when a pile turn is due) and retirements. Seats
  report nothing (403): the race is decided at the table. The service checks each
  report against the counts and the public cards (a card already in the centre
  cannot be played again: G-M2) and applies the same rules.

Actions: ``play`` ``{"card", "turned"?, "based_on"}`` (HV-T1, HV-T3: ``based_on``
names the top card aimed at; optional only in a referee's table report),
``draw`` (HV-T2), ``retire`` ``{"seat"}`` (referee, HV-T6), and in table mode
``deal`` ``{"card", "turned"?}`` and ``blocked`` ``{"card"?, "turned"?}``.

Events (the shared vocabulary of :mod:`service.games`, plus two of Halves):
``game-created``, ``dealt`` ``{seat, cards | count}``, ``pile-turned`` ``{seat, card,
turned, rule}`` (a seat's pile top turned face up onto the centre: the start, HV-P2,
or a block's pile turn, HV-T5), ``drawn`` ``{seat, card, top_up}`` (``card`` null in
table mode; ``top_up`` true for HV-T4's automatic draws), ``played`` ``{seat, card,
turned, based_on}``, ``bottom-card-moved`` ``{card}`` (HV-T4), ``seat-retired``
``{seat, cards}``, ``game-ended`` ``{result}``.

Blocked (HV-T4, HV-T5), in server mode after every action, in the same transaction
(so in the same ``apply``): while no hand card of an active seat matches the top (in
either orientation when turning is allowed): top up every active hand below 4 from
its own pile; if that does not help, move the bottom card of the centre to the top,
while bottom moves can help; else the next seat in the pile-turn rotation turns its
pile's top card onto the centre; when every pile is empty the game ends.
Ruling: bottom moves "cannot help" once the moves in a row since the hands last
changed (bottom moves and pile turns) reach N-1, N = the cards in the centre: by
then every card of the centre has been the top for the same hands. A play or a draw
changes the hands and starts the count again; a retirement does not (the hands left
are the ones that failed). Ruling: the pile-turn rotation (the seat after
``first_seat`` first, then round) carries on from one block to the next.

Results (HV-E1, HV-T5, HV-T6): ``reason`` ``out`` (a seat has one card left),
``no-legal-play`` (every pile empty and nothing helps: fewest hand cards win, equal
counts share) or ``last-seat``; ``scores`` = cards left per seat (pile + hand; fewer
is better; a retired seat's count when it retired); detail under ``halves``.
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from service.data import data_dir
from service.games import RuleViolation
from service.games.rng import commitment, shuffle
from service.messages import Message

REALTIME = True
GAME = "halves"
REFEREE = "referee"
HAND = 4  # HV-P1 / HV-T2: cards taken in hand, and the most a hand holds
MIN_CARDS = 5  # HV-P1: each player gets at least 5 cards
PLAYERS = tuple(range(2, 15))  # HV-P1 ruling
PER_HALF, WHOLE_CARD = "per_half", "whole_card"
_SEEDS = data_dir("seeds")

_DATA = json.loads((_SEEDS / "halves-deck.json").read_text(encoding="utf-8"))
COLOURS: dict[str, str] = _DATA["colours"]
SYMBOLS: dict[str, str] = _DATA["symbols"]
DEFAULT_DECK: tuple[str, ...] = tuple(_DATA["cards"])
MAX_DECK = len(COLOURS) * len(SYMBOLS) * (len(COLOURS) * len(SYMBOLS) - 1) // 2


# ===== cards: notation and matching (HV-C1, HV-T1) =====


class CardCodeError(ValueError):
    """Not a card code of the notation (see the module docstring); ``message`` says
    why."""

    def __init__(self, message: Message):
        super().__init__(message)
        self.message = message


def _unknown_code(raw: str) -> CardCodeError:
    return CardCodeError(Message("unknown card code %(code)s: a card is two halves, each a "
                                 "colour (R G B Y) and a symbol (C S T X), e.g. RC-GS",
                                 code=repr(raw)))
_CODE = re.compile(r"([A-Za-z]{2})[-/]?([A-Za-z]{2})")


def _half(text: str, raw: str) -> str:
    a, b = text
    if a in COLOURS and b in SYMBOLS:
        return a + b
    if b in COLOURS and a in SYMBOLS:
        return b + a
    raise _unknown_code(raw)


def parse_card(raw: Any) -> tuple[str, str]:
    """The halves of a card code AS WRITTEN (first, second): ``"cr/sg"`` ->
    ``("RC", "GS")``. Raises :class:`CardCodeError`."""
    if not isinstance(raw, str):
        raise CardCodeError(Message("a card code is a string such as 'RC-GS', not "
                                    "%(type)s", type=type(raw).__name__))
    match = _CODE.fullmatch(raw)
    if match is None:
        raise _unknown_code(raw)
    return _half(match.group(1).upper(), raw), _half(match.group(2).upper(), raw)


def card_code(halves: tuple[str, str] | list[str]) -> str:
    """``("RC", "GS")`` -> ``"RC-GS"``."""
    return f"{halves[0]}-{halves[1]}"


def halves_of(code: str) -> tuple[str, str]:
    """The halves of a canonical code: ``"RC-GS"`` -> ``("RC", "GS")``."""
    return code[:2], code[3:]


def laid(card: str, turned: bool) -> tuple[str, str]:
    """The halves of upright ``card`` as it lies: swapped when ``turned``."""
    first, second = halves_of(card)
    return (second, first) if turned else (first, second)


def judge(top: tuple[str, str] | list[str], card: tuple[str, str] | list[str],
          match: str = PER_HALF) -> dict:
    """HV-T1: does ``card`` (its halves as laid) go on ``top`` (its halves as laid)?

    Each half is compared with the top's half in the same place. Returns
    ``{"matches": bool, "halves": [{"by", "colour", "symbol"} x 2]}``: ``colour`` /
    ``symbol`` say what the two halves share; ``by`` is what the half counts by
    under ``match`` (``"colour"``, ``"symbol"``, or None when it does not count):
    ``per_half``: each half by colour, else by symbol; ``whole_card``: both halves
    by colour, else both by symbol, else neither counts.
    """
    facts = [{"colour": t[0] == h[0], "symbol": t[1] == h[1]} for t, h in zip(top, card)]
    if match == PER_HALF:
        by = ["colour" if f["colour"] else "symbol" if f["symbol"] else None for f in facts]
        ok = all(by)
    else:
        common = next((k for k in ("colour", "symbol") if all(f[k] for f in facts)), None)
        by, ok = [common, common], common is not None
    return {"matches": ok, "halves": [{"by": b, **f} for b, f in zip(by, facts)]}


def matches(top: tuple[str, str] | list[str], card: tuple[str, str] | list[str],
            match: str = PER_HALF) -> bool:
    """HV-T1 verdict only (the hot path of the block detection)."""
    (tc1, ts1), (tc2, ts2) = top
    (c1, s1), (c2, s2) = card
    if match == PER_HALF:
        return (tc1 == c1 or ts1 == s1) and (tc2 == c2 or ts2 == s2)
    return (tc1 == c1 and tc2 == c2) or (ts1 == s1 and ts2 == s2)


def check_play(top: Any, card: Any, turned: bool = False, match: str = PER_HALF) -> dict:
    """The stateless check (``POST /v1/halves/plays/check``, HV-T1).

    ``top`` and ``card`` are codes as written (the top as it lies, the card as held);
    ``turned`` swaps the card's halves. Returns ``{"matches", "code", "halves",
    "matches_turned", "top", "card", "laid", "turned", "match", "rule": "HV-T1",
    "detail"}``: ``code`` null when it matches, else ``no-match`` (as a play), ``laid``
    the card's halves as it would lie, ``matches_turned`` the verdict the other way
    round. Raises :class:`CardCodeError`.
    """
    top_halves, held = parse_card(top), parse_card(card)
    way = held[::-1] if turned else held
    verdict = judge(top_halves, way, match)
    other = matches(top_halves, way[::-1], match)
    if verdict["matches"]:
        detail = Message("%(card)s goes on %(top)s", card=card_code(way),
                         top=card_code(top_halves))
    elif other:
        detail = Message("%(card)s does not go on %(top)s, but %(turned)s (the card turned "
                         "round) does", card=card_code(way), top=card_code(top_halves),
                         turned=card_code(way[::-1]))
    else:
        detail = Message("%(card)s does not go on %(top)s either way round",
                         card=card_code(held), top=card_code(top_halves))
    return {"matches": verdict["matches"], "code": None if verdict["matches"] else "no-match",
            "halves": verdict["halves"],
            "matches_turned": other, "top": card_code(top_halves),
            "card": card_code(held), "turned": bool(turned), "laid": card_code(way),
            "match": match, "rule": "HV-T1", "detail": detail}


def _key(halves: tuple[str, str] | list[str]) -> tuple[str, str]:
    """A card's identity: its halves in sorted order (orientation left out)."""
    return tuple(sorted(halves))  # type: ignore[return-value]


@lru_cache(maxsize=64)
def _index(deck: tuple[str, ...]) -> dict[tuple[str, str], str]:
    """identity -> upright code, for a deck."""
    return {_key(halves_of(card)): card for card in deck}


# ===== options and setup (HV-C1, HV-P1, HV-P2, G-O1) =====


def _option(name: str, type_: str, default: Any, description: str,
            choices: list | None = None) -> dict:
    entry = {"name": name, "type": type_, "default": default, "description": description}
    if choices is not None:
        entry["choices"] = choices
    return entry


CATALOG: dict[str, dict] = {
    GAME: {
        "title": "Halves",
        "rules": "RULES.md §4 (HV-*)",
        "players": list(PLAYERS),
        "options": [
            _option("players", "integer", 2, "player count, 2 to 14, at least 5 cards "
                    "each (HV-P1)", list(PLAYERS)),
            _option("dealing", "string", "server", "server: the service shuffles, deals, "
                    "draws and detects blocks (G-M1); table: a referee reports the deal, "
                    "draws, plays and blocks of a physical game (G-M2, HV-M1)",
                    ["server", "table"]),
            _option("first_seat", "string", "p1", "the seat that turns the starting card "
                    "(HV-P2, G-O1); pile turns (HV-T5) start with the seat after it"),
            _option("match", "string", PER_HALF, "HV-T1: per_half: each half matches the "
                    "top's by colour or by symbol; whole_card: both halves by colour, or "
                    "both by symbol", [PER_HALF, WHOLE_CARD]),
            _option("allow_turning", "boolean", True, "HV-T1: a card may be laid turned "
                    "round (halves swapped)"),
            _option("deck", "array", None, "custom deck: card codes ('RC-GS'), each "
                    "upright, two different halves, no card twice, at least 5 per "
                    "player; null: the default 72 cards (HV-C1)"),
        ],
    },
}


def _invalid_option(detail: Message, rule: str, path: tuple[str, ...] = (),
                    message: Message | None = None) -> RuleViolation:
    """422 invalid-option; with ``path`` (``("deck", "3")``) also the per-field
    ``errors`` of a body validation: ``{"json": {"options": {"deck": {"3": [...]}}}}``."""
    extra = None
    if path:
        errors: Any = [message or detail]
        for part in reversed(("options", *path)):
            errors = {part: errors}
        extra = {"errors": {"json": errors}}
    return RuleViolation("invalid-option", detail, 422, rule=rule, extra=extra)


def _choice(options: dict, name: str, allowed: list, default: Any, rule: str) -> Any:
    value = options.get(name, default)
    if value is None:
        return default
    if type(value) is not type(default) or value not in allowed:
        raise _invalid_option(Message("option %(name)s must be one of %(allowed)s, not "
                                      "%(value)s (%(rule)s)", name=repr(name),
                                      allowed=allowed, value=repr(value), rule=rule),
                              rule, (name,))
    return value


def _custom_deck(raw: Any) -> list[str]:
    """A custom deck (HV-C1): card codes, upright as listed; 422 naming the bad card."""
    if not isinstance(raw, list) or not raw or len(raw) > MAX_DECK:
        raise _invalid_option(Message("option 'deck' must be a list of 1 to %(most)s card "
                                      "codes (HV-C1)", most=MAX_DECK), "HV-C1", ("deck",))
    seen: dict[tuple[str, str], int] = {}
    cards = []
    for i, value in enumerate(raw):
        try:
            halves = parse_card(value)
        except CardCodeError as exc:
            raise _invalid_option(Message("deck[%(index)s]: %(error)s", index=i,
                                          error=exc.message), "HV-C1", ("deck", str(i)),
                                  exc.message) from exc
        code = card_code(halves)
        if halves[0] == halves[1]:
            message = Message("%(card)s: its two halves are the same (HV-C1)", card=code)
            raise _invalid_option(Message("deck[%(index)s] %(error)s", index=i,
                                          error=message), "HV-C1", ("deck", str(i)), message)
        if _key(halves) in seen:
            message = Message("%(card)s is the same card as deck[%(first)s] (turned round or "
                              "repeated): every card once (HV-C1)", card=code,
                              first=seen[_key(halves)])
            raise _invalid_option(Message("deck[%(index)s] %(error)s", index=i,
                                          error=message), "HV-C1", ("deck", str(i)), message)
        seen[_key(halves)] = i
        cards.append(code)
    return cards


def normalise_options(options: Any) -> dict:
    """Validated options with every default filled in: players, dealing, first_seat,
    match, allow_turning, deck (null = the default deck). RuleViolation
    ``invalid-option`` (422) otherwise."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise _invalid_option(Message("options must be an object"), "HV-P1")
    known = {o["name"] for o in CATALOG[GAME]["options"]}
    unknown = sorted(set(options) - known)
    if unknown:
        raise _invalid_option(Message("unknown option %(name)s (known: %(known)s)",
                                      name=repr(unknown[0]), known=sorted(known)),
                              "HV-P1", (unknown[0],), Message("unknown option"))
    players = _choice(options, "players", list(PLAYERS), 2, "HV-P1")
    deck = None if options.get("deck") is None else _custom_deck(options["deck"])
    if len(deck or DEFAULT_DECK) < MIN_CARDS * players:
        raise _invalid_option(Message("%(players)s players need at least %(least)s cards, "
                                      "the deck has %(count)s (HV-P1)", players=players,
                                      least=MIN_CARDS * players,
                                      count=len(deck or DEFAULT_DECK)),
                              "HV-P1", ("deck",) if deck else ("players",))
    seats = [f"p{i}" for i in range(1, players + 1)]
    return {
        "players": players,
        "dealing": _choice(options, "dealing", ["server", "table"], "server", "G-M1"),
        "first_seat": _choice(options, "first_seat", seats, "p1", "G-O1"),
        "match": _choice(options, "match", [PER_HALF, WHOLE_CARD], PER_HALF, "HV-T1"),
        "allow_turning": _choice(options, "allow_turning", [True, False], True, "HV-T1"),
        "deck": deck,
    }


def new_game(game: str, options: Any, seed: str) -> list[dict]:
    """The setup events of a new game of Halves.

    ``game-created`` (options, seats, deck, seed); in server mode then one ``dealt``
    per seat (HV-P1: equal blocks of the shuffled deck, leftovers stay in the box),
    the starting ``pile-turned`` of ``first_seat`` (HV-P2) and, if nobody can play on
    it, the block's events (HV-T4, HV-T5). In table mode the referee reports the deal
    (``deal``). Raises RuleViolation ``invalid-option`` (422).
    """
    if game != GAME:
        raise _invalid_option(Message("unknown game %(game)s", game=repr(game)), "HV-P1")
    normal = normalise_options(options)
    created = {"type": "game-created", "seat": None, "game": GAME, "options": normal,
               "seats": [f"p{i}" for i in range(1, normal["players"] + 1)],
               "deck": list(normal["deck"] or DEFAULT_DECK), "seed": seed}
    events = [created]
    state = fold(None, created)
    if normal["dealing"] == "server":
        share = len(state["box"]) // len(state["seats"])
        for seat in state["seats"]:
            state = _emit(events, state, {"type": "dealt", "seat": seat,
                                          "cards": state["box"][:share]})
        first = normal["first_seat"]
        state = _emit(events, state, _pile_turn(state, first, state["piles"][first][0],
                                                False, "HV-P2"))
        _resolve_block(events, state)
    return events


# ===== fold: events -> state =====


def _created_state(event: dict) -> dict:
    options, seats, deck = event["options"], list(event["seats"]), list(event["deck"])
    server = options["dealing"] == "server"
    first = seats.index(options["first_seat"])
    return {
        "game": GAME, "options": options, "seed": event["seed"], "status": "active",
        "phase": "deal", "result": None, "seats": seats, "retired": {}, "deck": deck,
        "box": shuffle(deck, event["seed"], "deal") if server else [None] * len(deck),
        "hands": {s: [] for s in seats}, "piles": {s: [] for s in seats},
        "centre": [], "streak": 0, "turner": seats[(first + 1) % len(seats)],
        "counts": {"plays": 0, "draws": 0, "top_up_draws": 0, "bottom_card_moves": 0,
                   "pile_turns": 0},
    }


def _copy(state: dict, *keys: str) -> dict:
    """A shallow copy with fresh containers for ``keys`` (one level deep)."""
    out = dict(state)
    for key in keys:
        value = state[key]
        out[key] = ({k: (v[:] if isinstance(v, list) else v) for k, v in value.items()}
                    if isinstance(value, dict) else value[:])
    return out


def _take(cards: list, card: str | None) -> None:
    """Remove the front card of ``cards`` (a pile, the box), which must be ``card``;
    in table mode the front is an unknown card (None) and any report fits it."""
    if not cards or cards[0] not in (None, card):
        raise ValueError(f"event takes {card!r} but the top is {cards[:1]!r}")
    del cards[0]


def _fold_dealt(s: dict, e: dict) -> dict:
    s = _copy(s, "box", "hands", "piles")
    cards = e.get("cards") or [None] * e["count"]
    for card in cards:
        _take(s["box"], card)
    s["hands"][e["seat"]] = cards[:HAND]
    s["piles"][e["seat"]] = cards[HAND:]
    return s


def _fold_pile_turned(s: dict, e: dict) -> dict:
    s = _copy(s, "piles", "centre", "counts")
    seats = s["seats"]
    _take(s["piles"][e["seat"]], e["card"])
    s["centre"].append({"card": e["card"], "turned": e["turned"]})
    if e["rule"] == "HV-T5":
        s["streak"] += 1
        s["counts"]["pile_turns"] += 1
        s["turner"] = seats[(seats.index(e["seat"]) + 1) % len(seats)]
    else:
        s["phase"] = "play"
    return s


def _fold_drawn(s: dict, e: dict) -> dict:
    s = _copy(s, "hands", "piles", "counts")
    _take(s["piles"][e["seat"]], e["card"])
    s["hands"][e["seat"]].append(e["card"])
    s["streak"] = 0
    s["counts"]["top_up_draws" if e["top_up"] else "draws"] += 1
    return s


def _fold_played(s: dict, e: dict) -> dict:
    s = _copy(s, "hands", "centre", "counts")
    hand = s["hands"][e["seat"]]
    hand.remove(e["card"] if e["card"] in hand else None)
    s["centre"].append({"card": e["card"], "turned": e["turned"]})
    s["streak"] = 0
    s["counts"]["plays"] += 1
    return s


def _fold_bottom_moved(s: dict, e: dict) -> dict:
    s = _copy(s, "centre", "counts")
    bottom = s["centre"].pop(0)
    if bottom["card"] != e["card"]:
        raise ValueError(f"event moves {e['card']!r} but the bottom is {bottom['card']!r}")
    s["centre"].append(bottom)
    s["streak"] += 1
    s["counts"]["bottom_card_moves"] += 1
    return s


def _fold_retired(s: dict, e: dict) -> dict:
    s = _copy(s, "hands", "piles", "box", "retired")
    seat = e["seat"]
    s["box"] += s["hands"][seat] + s["piles"][seat]
    s["hands"][seat], s["piles"][seat] = [], []
    s["retired"][seat] = e["cards"]
    return s


def _fold_ended(s: dict, e: dict) -> dict:
    return {**s, "status": "finished", "result": e["result"]}


_FOLDS = {
    "dealt": _fold_dealt, "pile-turned": _fold_pile_turned, "drawn": _fold_drawn,
    "played": _fold_played, "bottom-card-moved": _fold_bottom_moved,
    "seat-retired": _fold_retired, "game-ended": _fold_ended,
}


def fold(state: dict | None, event: dict) -> dict:
    """The state after ``event`` (never mutates ``state``); ``fold(None, created)`` is
    the initial state. Raises ValueError for an event that does not fit."""
    if event["type"] == "game-created":
        return _created_state(event)
    if state is None:
        raise ValueError("the first event must be game-created")
    return _FOLDS[event["type"]](state, event)


def _emit(events: list[dict], state: dict, event: dict) -> dict:
    events.append(event)
    return fold(state, event)


# ===== state queries =====


def active_seats(state: dict) -> list[str]:
    """Seats still in the game (not retired, HV-T6), in seat order."""
    return [s for s in state["seats"] if s not in state["retired"]]


def top(state: dict) -> dict | None:
    """The central pile's top ``{"card", "turned"}``, or None before the start."""
    return state["centre"][-1] if state["centre"] else None


def _top_halves(state: dict) -> tuple[str, str]:
    entry = state["centre"][-1]
    return laid(entry["card"], entry["turned"])


def cards_left(state: dict, seat: str) -> int:
    """A seat's cards: pile + hand (HV-E1); for a retired seat, when it retired."""
    if seat in state["retired"]:
        return state["retired"][seat]
    return len(state["hands"][seat]) + len(state["piles"][seat])


def _orientations(state: dict) -> tuple[bool, ...]:
    return (False, True) if state["options"]["allow_turning"] else (False,)


def can_play(state: dict, seat: str) -> bool:
    """HV-T4: a hand card of ``seat`` matches the top in an allowed orientation
    (server mode: the hands are known)."""
    top_halves, rule = _top_halves(state), state["options"]["match"]
    return any(matches(top_halves, laid(card, turned), rule)
               for card in state["hands"][seat] for turned in _orientations(state))


def _public_cards(state: dict) -> set[str]:
    """Cards known to be out of every hand and pile: the centre (G-M2)."""
    return {entry["card"] for entry in state["centre"]}


# ===== blocks, pile turns and the end (HV-T4, HV-T5, HV-E1) =====


def bottom_moves_can_help(state: dict) -> bool:
    """HV-T5 ruling: a bottom move can still help while the centre has 2+ cards and
    fewer than N-1 moves in a row (bottom moves and pile turns since the hands last
    changed) have left it blocked, N = the cards in the centre."""
    size = len(state["centre"])
    return size > 1 and state["streak"] < size - 1


def next_pile_turner(state: dict) -> str | None:
    """HV-T5: the seat that turns its pile next: from the rotation's seat round,
    the first active seat with a non-empty pile; None when every pile is empty."""
    seats = state["seats"]
    start = seats.index(state["turner"])
    for seat in seats[start:] + seats[:start]:
        if seat not in state["retired"] and state["piles"][seat]:
            return seat
    return None


def _top_ups(state: dict) -> list[dict]:
    """HV-T4: the draws topping up every active hand below 4 from its own pile."""
    out = []
    for seat in active_seats(state):
        hand, pile = state["hands"][seat], state["piles"][seat]
        out += [{"type": "drawn", "seat": seat, "card": card, "top_up": True}
                for card in pile[:max(0, HAND - len(hand))]]
    return out


def _pile_turn(state: dict, seat: str, card: str | None, turned: bool, rule: str) -> dict:
    return {"type": "pile-turned", "seat": seat, "card": card, "turned": turned,
            "rule": rule}


def _result(state: dict, reason: str, winners: list[str]) -> dict:
    seats = state["seats"]
    return {
        "winners": winners,
        "scores": {s: cards_left(state, s) for s in seats},
        "reason": reason,
        "halves": {
            "hands": {s: len(state["hands"][s]) for s in seats},
            "piles": {s: len(state["piles"][s]) for s in seats},
            "retired": [s for s in seats if s in state["retired"]],
            "central_pile": len(state["centre"]),
        },
    }


def _end(events: list[dict], state: dict, reason: str, winners: list[str]) -> dict:
    return _emit(events, state, {"type": "game-ended", "seat": None,
                                 "result": _result(state, reason, winners)})


def _check_out(events: list[dict], state: dict, seat: str) -> dict:
    """HV-E1: ``seat`` has exactly one card left (pile + hand): it wins at once.
    Ruling: the one card may still be in its pile (it would just draw it)."""
    if state["status"] == "active" and cards_left(state, seat) == 1:
        state = _end(events, state, "out", [seat])
    return state


def _block_step(events: list[dict], state: dict, card: str | None = None,
                turned: bool = False) -> dict:
    """One step of HV-T4/HV-T5 once nobody can play: top up the short hands; else
    move the bottom card to the top while that can help; else the next seat turns
    its pile top (``card``: the server's pile top, or the referee's report); else
    (every pile empty) the game ends, fewest hand cards winning."""
    top_ups = _top_ups(state)
    if top_ups:
        for event in top_ups:
            state = _emit(events, state, event)
        return state
    if bottom_moves_can_help(state):
        return _emit(events, state, {"type": "bottom-card-moved", "seat": None,
                                     "card": state["centre"][0]["card"]})
    seat = next_pile_turner(state)
    if seat is None:
        hands = {s: len(state["hands"][s]) for s in active_seats(state)}
        fewest = min(hands.values())
        return _end(events, state, "no-legal-play", [s for s, n in hands.items() if n == fewest])
    if state["piles"][seat][0] is not None:
        card, turned = state["piles"][seat][0], False
    # (never a win, HV-E1: after the top-ups a seat with a pile holds 4 in hand)
    return _emit(events, state, _pile_turn(state, seat, card, turned, "HV-T5"))


def _resolve_block(events: list[dict], state: dict) -> dict:
    """Server mode: repeat :func:`_block_step` while the game runs and no active
    seat can play on the top (HV-T4). Terminates: each step draws or turns a pile
    card (piles are finite) or moves a bottom card (at most N-1 in a row)."""
    while state["status"] == "active" and not any(
            can_play(state, s) for s in active_seats(state)):
        state = _block_step(events, state)
    return state


# ===== apply: actions and their refusals =====

_ACTION_KEYS = {
    "play": {"card", "turned", "based_on"},
    "draw": set(),
    "retire": set(),
    "deal": {"card", "turned"},
    "blocked": {"card", "turned"},
}
# G-R1: the rule a malformed action of each type names (an unknown type: G-R1 itself)
_ACTION_RULES = {"play": "HV-T1", "draw": "HV-T2", "retire": "HV-T6", "deal": "HV-M1",
                 "blocked": "HV-T4"}
_ALWAYS = {"type", "seat", "expected_version"}
_TABLE_ONLY = {"deal", "blocked"}
_SEAT_ACTIONS = {"play", "draw"}


def _malformed(detail: Message, code: str = "invalid-action", rule: str = "G-R1"
               ) -> RuleViolation:
    return RuleViolation(code, detail, 422, rule=rule)


def _refuse(code: str, detail: Message, rule: str, extra: dict | None = None
            ) -> RuleViolation:
    return RuleViolation(code, detail, 409, rule=rule, extra=extra)


def _forbid(code: str, detail: Message, rule: str) -> RuleViolation:
    return RuleViolation(code, detail, 403, rule=rule)


def _game_card(state: dict, raw: Any, field: str) -> tuple[str, bool]:
    """(upright code, written the other way round) of a card of this game's deck.
    422 ``invalid-card`` naming ``field``."""
    if raw is None:
        raise _malformed(Message("the action needs %(field)s: a card code such as 'RC-GS'",
                                 field=repr(field)), "invalid-card", "HV-C1")
    try:
        halves = parse_card(raw)
    except CardCodeError as exc:
        raise _malformed(Message("%(field)s: %(error)s", field=field, error=exc.message),
                         "invalid-card", "HV-C1") from exc
    upright = _index(tuple(state["deck"])).get(_key(halves))
    if upright is None:
        raise _malformed(Message("%(field)s: %(card)s is not a card of this game's deck "
                                 "(HV-C1)", field=field, card=card_code(halves)),
                         "invalid-card", "HV-C1")
    return upright, halves != halves_of(upright)


def _turned(state: dict, action: dict, reversed_: bool) -> bool:
    """The orientation relative to upright: the code as written, swapped when
    ``turned``; 422 when ``turned`` is not a boolean."""
    turned = action.get("turned", False)
    if not isinstance(turned, bool):
        raise _malformed(Message("'turned' is true or false"), rule="HV-T1")
    return turned != reversed_


def _parse(state: dict, kind: str, action: dict) -> dict:
    """The action's card fields, checked and canonical (422 otherwise)."""
    out: dict[str, Any] = {}
    if kind in ("play", "deal") or (kind == "blocked" and "card" in action):
        card, reversed_ = _game_card(state, action.get("card"), "card")
        out["card"], out["turned"] = card, _turned(state, action, reversed_)
    elif "turned" in action:
        raise _malformed(Message("'turned' goes with a 'card' (%(type)s)", type=kind),
                         rule=_ACTION_RULES[kind])
    if kind == "play" and action.get("based_on") is not None:
        out["based_on"] = _game_card(state, action["based_on"], "based_on")[0]
    return out


def _acting_seat(state: dict, actor: str, action: dict, kind: str) -> str | None:
    """The seat an action is by or for; 403/422 for who may send what (HV-M1, HV-T6)."""
    named = action.get("seat")
    table = state["options"]["dealing"] == "table"
    if actor == REFEREE:
        if kind in ("deal", "blocked"):
            if named is not None:
                raise _malformed(Message("a %(type)s report names no seat", type=kind),
                                 rule="HV-M1")
            return None
        if kind in _SEAT_ACTIONS and not table:
            raise _forbid("referee-not-allowed", Message(
                "in server mode the seats play and draw for themselves; the referee only "
                "retires a seat (HV-T6)"), "HV-T6")
        if named is None:
            raise _malformed(Message('the referee names the seat: "seat" (%(type)s)',
                                     type=kind), "seat-required", "HV-M1")
        if named not in state["seats"]:
            raise _malformed(Message("unknown seat %(seat)s", seat=repr(named)),
                             "invalid-seat", "HV-M1")
        return named
    if actor not in state["seats"]:
        raise _forbid("unknown-actor", Message("%(actor)s is not a seat of this game",
                                               actor=repr(actor)), "G-M1")
    if named is not None and named != actor:
        raise _forbid("not-your-seat", Message("%(seat)s may not act for %(other)s",
                                               seat=actor, other=repr(named)), "G-M1")
    if kind not in _SEAT_ACTIONS:
        rule = "HV-T6" if kind == "retire" else "HV-M1"
        raise _forbid("referee-only", Message("only the referee may %(type)s (%(rule)s)",
                                              type=kind, rule=rule), rule)
    if table:
        raise _forbid("referee-reports", Message("in table mode the referee reports the "
                                                 "table's plays and draws (HV-M1)"),
                      "HV-M1")
    return actor


def _stale(state: dict, based_on: str) -> RuleViolation:
    entry = top(state)
    shown = card_code(laid(entry["card"], entry["turned"]))
    return _refuse("stale-top-card", Message(
        "the top card is now %(top)s (lying as %(shown)s), not %(based_on)s: the first play "
        "recorded won (HV-T3)", top=entry["card"], shown=shown, based_on=based_on),
                   "HV-T3", {"top": {"card": entry["card"], "turned": entry["turned"],
                                     "halves": list(laid(entry["card"], entry["turned"]))}})


def _do_play(state: dict, seat: str, action: dict, fields: dict) -> list[dict]:
    """HV-T1/HV-T3: one hand card onto the top it aimed at (``based_on``)."""
    card, turned = fields["card"], fields["turned"]
    based_on = fields.get("based_on")
    table = state["options"]["dealing"] == "table"
    if table:
        if not state["hands"][seat]:
            raise _refuse("hand-empty", Message("%(seat)s holds no card (report its draw "
                                                "first, HV-T2)", seat=seat), "HV-M1")
        if card in _public_cards(state):
            raise _refuse("card-not-available", Message(
                "%(card)s is already in the central pile: it cannot be played again (G-M2)",
                card=card), "G-M2")
    elif card not in state["hands"][seat]:
        raise _refuse("not-in-hand", Message("%(card)s is not in %(seat)s's hand",
                                             card=card, seat=seat), "HV-T1")
    if based_on is None and not table:
        raise _malformed(Message('a play names the top card it aims at: "based_on" '
                                 "(HV-T3)"), rule="HV-T3")
    if based_on is not None and based_on != top(state)["card"]:
        raise _stale(state, based_on)
    if turned and not state["options"]["allow_turning"]:
        raise _refuse("turning-not-allowed", Message(
            "%(card)s must be laid upright: this game does not allow turning cards "
            "(allow_turning: false, HV-T1)", card=card), "HV-T1")
    top_halves, rule = _top_halves(state), state["options"]["match"]
    if not matches(top_halves, laid(card, turned), rule):
        params = {"card": card_code(laid(card, turned)), "top": card_code(top_halves),
                  "match": rule}
        if state["options"]["allow_turning"] and matches(top_halves, laid(card, not turned),
                                                         rule):
            raise _refuse("no-match", Message(
                "%(card)s does not match the top card %(top)s, but would the other way "
                "round (HV-T1, match: %(match)s)", **params), "HV-T1")
        raise _refuse("no-match", Message("%(card)s does not match the top card %(top)s "
                                          "(HV-T1, match: %(match)s)", **params), "HV-T1")
    events: list[dict] = []
    state = _emit(events, state, {"type": "played", "seat": seat, "card": card,
                                  "turned": turned, "based_on": top(state)["card"]})
    state = _check_out(events, state, seat)
    if not table:
        _resolve_block(events, state)
    return events


def _do_draw(state: dict, seat: str, action: dict, fields: dict) -> list[dict]:
    """HV-T2: one card from the seat's own pile into its hand, at most 4 in hand."""
    if len(state["hands"][seat]) >= HAND:
        raise _refuse("hand-full", Message("%(seat)s already holds %(count)s cards (HV-T2)",
                                           seat=seat, count=HAND), "HV-T2")
    if not state["piles"][seat]:
        raise _refuse("pile-empty", Message("%(seat)s's pile is empty (HV-T2)", seat=seat),
                      "HV-T2")
    return [{"type": "drawn", "seat": seat, "card": state["piles"][seat][0],
             "top_up": False}]


def _do_retire(state: dict, seat: str, action: dict, fields: dict) -> list[dict]:
    """HV-T6: the seat's cards leave play; it cannot win; one seat left wins."""
    events: list[dict] = []
    state = _emit(events, state, {"type": "seat-retired", "seat": seat,
                                  "cards": cards_left(state, seat)})
    left = active_seats(state)
    if len(left) == 1:
        _end(events, state, "last-seat", left)
    elif state["options"]["dealing"] == "server" and state["phase"] == "play":
        _resolve_block(events, state)
    return events


def _do_deal(state: dict, seat: None, action: dict, fields: dict) -> list[dict]:
    """HV-M1/HV-P1/HV-P2 (table mode): the deal (equal counts, leftovers in the box)
    and the starting card first_seat turned from its pile, as the referee saw it."""
    events: list[dict] = []
    share = len(state["box"]) // len(state["seats"])
    for each in state["seats"]:
        state = _emit(events, state, {"type": "dealt", "seat": each, "count": share})
    _emit(events, state, _pile_turn(state, state["options"]["first_seat"], fields["card"],
                                    fields["turned"], "HV-P2"))
    return events


def _do_blocked(state: dict, seat: None, action: dict, fields: dict) -> list[dict]:
    """HV-T4/HV-T5 (table mode): the referee reports that nobody can play; the
    service records the step the rules prescribe (see :func:`_block_step`). A pile
    turn needs the card the seat turned (``card``); no other step takes one."""
    turner = None if _top_ups(state) or bottom_moves_can_help(state) \
        else next_pile_turner(state)
    if turner is not None and "card" not in fields:
        raise _malformed(Message('a pile turn is due: report the card %(seat)s turned from '
                                 'its pile: "card" (HV-T5)', seat=turner),
                         "card-required", "HV-T5")
    if turner is None and "card" in fields:
        raise _malformed(Message("no pile turn is due now (top-ups, a bottom-card move or "
                                 "the end come first): send no card (HV-T4)"), rule="HV-T4")
    if "card" in fields and fields["card"] in _public_cards(state):
        raise _refuse("card-not-available", Message("%(card)s is already in the central "
                                                    "pile (G-M2)", card=fields["card"]),
                      "G-M2")
    events: list[dict] = []
    _block_step(events, state, fields.get("card"), fields.get("turned", False))
    return events


_HANDLERS = {"play": _do_play, "draw": _do_draw, "retire": _do_retire,
             "deal": _do_deal, "blocked": _do_blocked}


def _check_phase(state: dict, kind: str, seat: str | None) -> None:
    """409s that depend on the phase and the seat (after game-over)."""
    table = state["options"]["dealing"] == "table"
    if kind in _TABLE_ONLY and not table:
        raise _refuse("not-table-mode", Message("in server mode the service itself deals "
                                                "(HV-M1)") if kind == "deal" else
                      Message("in server mode the service itself detects a block (HV-M1)"),
                      "HV-M1")
    if kind == "deal" and state["phase"] != "deal":
        raise _refuse("already-dealt", Message("the deal has been reported (HV-M1)"),
                      "HV-M1")
    if kind != "deal" and state["phase"] == "deal":
        raise _refuse("deal-not-reported", Message("report the deal and the starting card "
                                                   "first (HV-M1, HV-P2)"), "HV-M1")
    if seat is not None and seat in state["retired"]:
        raise _refuse("seat-retired", Message("%(seat)s has left the game (HV-T6)",
                                              seat=seat), "HV-T6")


def apply(state: dict, actor: str, action: Any) -> list[dict]:
    """The events ``action`` by ``actor`` (a seat ``p1``.. or ``"referee"``) causes;
    never mutates ``state``.

    Refusals (RuleViolation, each naming its rule): 422 for malformed actions
    (``invalid-action``, ``invalid-card``, ``invalid-seat``, ``seat-required``,
    ``card-required``); 403 for who may send what (``referee-only``,
    ``referee-not-allowed``, ``referee-reports``, ``not-your-seat``); 409 from the
    state, ``game-over`` first (so it wins over ``stale-top-card``, HV-T3), then
    ``not-table-mode``, ``already-dealt``, ``deal-not-reported``, ``seat-retired``,
    ``not-in-hand``, ``hand-empty``, ``card-not-available``, ``stale-top-card`` (with
    the current ``top``), ``turning-not-allowed``, ``no-match``, ``hand-full``,
    ``pile-empty``. A seat's refusal depends only on what the seat can see.
    """
    if not isinstance(action, dict):
        raise _malformed(Message("an action is a JSON object with a 'type'"))
    kind = action.get("type")
    if kind not in _HANDLERS:
        raise _malformed(Message("unknown action type %(type)s (one of %(types)s)",
                                 type=repr(kind), types=", ".join(sorted(_HANDLERS))))
    extra = sorted(set(action) - _ALWAYS - _ACTION_KEYS[kind])
    if extra:
        raise _malformed(Message("unknown field %(field)s in a %(type)s action",
                                 field=repr(extra[0]), type=kind), rule=_ACTION_RULES[kind])
    fields = _parse(state, kind, action)
    seat = _acting_seat(state, actor, action, kind)
    if state["status"] != "active":
        raise _refuse("game-over", Message("the game is over"), "HV-E1")
    _check_phase(state, kind, seat)
    return _HANDLERS[kind](state, seat, action, fields)


# ===== legal actions =====


def _plays(state: dict, cards: list[str]) -> list[dict]:
    """Every play of ``cards`` (distinct, upright) that matches the top, in each
    allowed orientation, with ``based_on``."""
    top_entry = top(state)
    top_halves, rule = _top_halves(state), state["options"]["match"]
    return [{"type": "play", "card": card, "turned": turned, "based_on": top_entry["card"]}
            for card in cards for turned in _orientations(state)
            if matches(top_halves, laid(card, turned), rule)]


def _seat_actions(state: dict, seat: str) -> list[dict]:
    if seat in state["retired"] or state["options"]["dealing"] == "table":
        return []
    out = _plays(state, list(dict.fromkeys(state["hands"][seat])))
    if len(state["hands"][seat]) < HAND and state["piles"][seat]:
        out.append({"type": "draw"})
    return out


def _referee_actions(state: dict) -> list[dict]:
    active = active_seats(state)
    retire = [{"type": "retire", "seat": s} for s in active] if len(active) > 1 else []
    if state["options"]["dealing"] == "server":
        return retire
    if state["phase"] == "deal":
        return [{"type": "deal", "card": c, "turned": False} for c in state["deck"]]
    public = _public_cards(state)
    unseen = [c for c in state["deck"] if c not in public]
    out = []
    for seat in active:
        if state["hands"][seat]:
            out += [{**a, "seat": seat} for a in _plays(state, unseen)]
        if len(state["hands"][seat]) < HAND and state["piles"][seat]:
            out.append({"type": "draw", "seat": seat})
    if _top_ups(state) or bottom_moves_can_help(state) or next_pile_turner(state) is None:
        out.append({"type": "blocked"})
    else:
        out += [{"type": "blocked", "card": c, "turned": False} for c in unseen]
    return out + retire


def legal_actions(state: dict, viewer: str | None) -> list[dict]:
    """Complete action bodies ``apply(state, viewer, body)`` accepts now.

    A seat (server mode): every matching play of its hand cards in each allowed
    orientation, with ``based_on`` = the top card (HV-T1, HV-T3), and ``draw`` while
    it holds fewer than 4 and its pile is not empty (HV-T2). The referee: ``retire``
    per active seat while 2+ remain (HV-T6); in table mode also the reports (HV-M1):
    ``deal`` with each possible starting card; then per active seat with cards in
    hand every play of a card not yet in the centre that matches, ``draw`` per seat
    that may draw, and ``blocked`` (with each possible card when a pile turn is due,
    upright). Nobody else, or a finished game: none.
    """
    if state["status"] != "active":
        return []
    if viewer == REFEREE:
        return _referee_actions(state)
    if viewer in state["seats"]:
        return _seat_actions(state, viewer)
    return []


# ===== views =====


def _top_view(state: dict) -> dict | None:
    entry = top(state)
    if entry is None:
        return None
    return {"card": entry["card"], "turned": entry["turned"],
            "halves": list(laid(entry["card"], entry["turned"]))}


def view(state: dict, viewer: str | None) -> dict:
    """The state as ``viewer`` (a seat, ``"referee"``, None) may see it.

    Everyone: the top card (``{"card", "turned", "halves"}``), the central pile's
    size, every seat's hand and pile counts, the box count, the retired seats, the
    blocked moves so far (``blocked``: ``top_up_draws``, ``bottom_card_moves``,
    ``pile_turns``, ``in_a_row``), the next seat to turn its pile (HV-T5), the
    counts of plays and draws, the result. A seat: its own hand (server mode). The
    referee: every hand (server mode) and the central pile bottom first. Nobody: a
    pile's order or the box; the seed before the game is over.
    """
    seats = state["seats"]
    out = {
        "game": GAME, "status": state["status"], "phase": state["phase"],
        "options": state["options"], "seats": list(seats),
        "retired": [s for s in seats if s in state["retired"]],
        "top": _top_view(state), "central_pile": len(state["centre"]),
        "hand_counts": {s: len(state["hands"][s]) for s in seats},
        "pile_counts": {s: len(state["piles"][s]) for s in seats},
        "box": len(state["box"]),
        "blocked": {"top_up_draws": state["counts"]["top_up_draws"],
                    "bottom_card_moves": state["counts"]["bottom_card_moves"],
                    "pile_turns": state["counts"]["pile_turns"],
                    "in_a_row": state["streak"]},
        "next_pile_turn": next_pile_turner(state) if state["phase"] == "play" else None,
        "plays": state["counts"]["plays"], "draws": state["counts"]["draws"],
        "result": state["result"], "seed_commitment": commitment(state["seed"]),
    }
    if state["status"] == "finished":
        out["seed"] = state["seed"]
    server = state["options"]["dealing"] == "server"
    if viewer == REFEREE:
        if server:
            out["hands"] = {s: list(state["hands"][s]) for s in seats}
        out["centre"] = [dict(entry) for entry in state["centre"]]
    elif viewer in seats:
        out["seat"] = viewer
        if server:
            out["hand"] = list(state["hands"][viewer])
    return out


def view_event(state: dict, event: dict, viewer: str | None) -> dict | None:
    """One log event as ``viewer`` may see it. ``dealt``: the count, plus the hand
    (its first 4 cards) to its seat and the referee (a pile's order to nobody);
    ``drawn``: the card only to its seat and the referee; ``game-created``: the seed
    only once the game is over (``seed_commitment`` before); everything else whole
    (plays, pile turns and bottom-card moves are public)."""
    kind = event["type"]
    if kind == "game-created":
        out = {k: v for k, v in event.items() if k != "seed"}
        out["seed_commitment"] = commitment(event["seed"])
        if state["status"] == "finished":
            out["seed"] = event["seed"]
        return json.loads(json.dumps(out))
    own = viewer is not None and viewer in (event.get("seat"), REFEREE)
    if kind == "dealt":
        cards = event.get("cards")
        out = {"type": kind, "seat": event["seat"],
               "count": len(cards) if cards is not None else event["count"]}
        if own and cards is not None:
            out["hand"] = cards[:HAND]
        return out
    if kind == "drawn" and not own:
        return {k: v for k, v in event.items() if k != "card"}
    return json.loads(json.dumps(event))

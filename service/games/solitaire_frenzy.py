"""Solitaire Frenzy (RULES.md §5, SF-*; Nertz/Pounce): the shared-foundation race.

Pure: plain JSON-able data in and out; no Flask, no SQLAlchemy, no I/O. The card rules
(what goes on a foundation or a column) are shared with the stateless check endpoint
(:func:`check_play`).

Seats are ``p1``..``pN`` (2 to 6, SF-P0), each with its own 52-card deck (no jokers): a
card is named by its code (``"7H"``) and its owner is the seat, so ``"7H"`` of ``p1``
and ``"7H"`` of ``p2`` are different cards. A real-time game (``REALTIME``): no turn
order; a foundation play names the pile top it aimed at (``based_on``, SF-T1).

Layout of a seat (SF-P1), in the state (``layouts[seat]``; ``None`` once retired):
``pile`` (the 13-pile, top LAST, only the top face up), ``columns`` (4 lists, first
laid first, the exposed card LAST), ``hand`` (face down, the next card to turn FIRST),
``waste`` (turned cards, top LAST; only the top is seen, SF-H1), and the SF-E1 record
``pass`` / ``reach`` (below). Foundations (SF-F1): ``[{"id", "suit", "cards": [{"card",
"seat"}, ...]}]``, ids 1, 2, 3... per round in the order the Aces were played.

Dealing (option ``dealing``):

* ``server``: each round the service shuffles every active seat's deck (rng label
  ``round-R-SEAT``) and deals it: 13-pile, 4 columns, 35 in hand. Every card is
  refereed.
* ``table`` (SF-M1): physical cards; nobody reports single cards. The referee records
  each round's result per seat (``record-round``); the service checks what it can and
  keeps the score sheet.

Actions (``apply``; complete bodies in ``legal_actions``). Every seat action names the
``round`` it is meant for: one naming a round that has ended is refused ``round-over``
(SF-E1), so a late play can never land in the next round's deal.

* ``turn`` ``{"round"}``: the next 3 hand cards onto the waste; with an empty hand the
  waste is picked up unshuffled first (SF-H1).
* ``play`` ``{"round", "card", "to": "foundation", "pile": id, "based_on": top}``, or
  ``"based_on": "new"`` (no ``pile``) for an Ace starting a pile (SF-F1, SF-F2, SF-T1);
  ``{"round", "card", "to": "column", "column": 0-3}`` onto that column's exposed card
  (SF-R1). The card is the 13-pile top (SF-P2), the waste top (SF-H1) or a column's
  exposed card (SF-R3; to another column only as a whole one-card column, SF-R2).
  A play into an empty column is a refill; a one-card column onto another is a move.
* ``move`` ``{"round", "from_column", "to_column"}``: a whole column onto another
  column's exposed card (SF-R2); never into an empty column.
* ``refill`` ``{"round", "card", "column"}``: an empty column takes the 13-pile top or
  the waste top (SF-R4).
* ``retire`` ``{"seat"}`` (referee): the seat left the table (SF-E3).
* ``record-round`` ``{"round", "results": {seat: {"board", "pile", "out"}},
  "board_total"?, "foundation_piles"?}`` (referee, table mode, SF-M1).

Events (the record; ``seat`` is the seat concerned or null): ``game-created``,
``round-started`` ``{"round", "seats"}``, ``dealt`` ``{"round", "pile_top",
"pile_size", "columns", "hand_size"}`` (only what is face up; the hidden order comes from
the seed), ``turned`` ``{"top", "count", "recycled"}``, ``played`` ``{"card", "from":
"pile"|"waste"|"column", "from_column"?, "to": "foundation"|"column", "pile"?,
"based_on"?, "column"?, "exposed"?}`` (``exposed``: the card the play turned face up on
the 13-pile or the waste, null when none), ``column-moved`` ``{"from_column",
"to_column", "cards"}``, ``refilled`` ``{"card", "from", "column", "exposed"?}``,
``seat-retired`` ``{"pile"}``, ``round-ended`` ``{"round", "reason": "out" | "stuck" |
"last-seat", "out", "board", "pile", "scores", "totals"}``, ``game-ended``
``{"result"}``. Every event is public: none carries a face-down card.

SF-E1, "nobody can move", decided without revealing anyone's hidden order. After every
action the engine asks, for each active seat, whether it has a productive move:
a play of its 13-pile top, waste top or a column's exposed card, a whole-column move,
a refill, or a card that turning the hand would bring to the top of the waste (turning
alone is never productive). Which cards turning reaches depends on the hand's hidden
order, and the end of a round is public: deciding it from the order would tell every
seat something about another seat's face-down cards (G-M1). So the engine counts as
"reachable" only what the table can know:

* ``reach``: once a seat has turned through its whole cycle (from a fresh deal or a
  pick-up of the waste to the last hand card) without playing from the waste, the tops
  it showed are exactly the cards turning can ever reach (the cycle repeats unchanged
  until a waste card leaves it); ``pass`` collects them while the pass is under way.
  A waste play or refill changes the cycle: both are forgotten until the next pass.
* while ``reach`` is unknown, every card of the seat not face up (13-pile below the top,
  hand, waste below the top) counts as reachable: that set is public (the seat's 52
  cards minus those face up or on the board), its order is not.

Ruling: a seat whose unseen cards could be productive therefore holds the round open
until it has turned through its hand once, as a player at the table goes through their
hand before saying they are stuck; nobody declares anything. The decision is a function
of public information only (tested: states differing only in hidden cards give every
seat byte-identical answers), and every round ends: each productive move raises a
bounded measure (cards on the board, cards out of pile/hand/waste, fewer non-empty
columns), so only turning can go on, and a seat that turns completes its pass.

Rulings (RULES.md is silent; also in the README):

* Every seat action names its ``round`` (required): the next round is dealt in the
  transaction that ends the previous one, and a late action must not land in it.
* A card that is not face up is refused with one detail whatever its hidden place
  (13-pile, hand or waste): the refusal must not tell where it is.
* ``based_on`` that never was that pile's top is ``not-pile-top``; one that was but has
  been covered since is ``stale-top-card`` naming the new top (SF-T1).
* Going out (SF-E1) is playing the last 13-pile card anywhere: to the board, onto a
  column or into an empty column.
* SF-O1 strict: a waste play (to the board, a column or a refill) is refused while the
  seat could play its 13-pile top anywhere or a column's exposed card to the board;
  turning is always allowed.
* SF-E3: a retired seat's board cards stay and count for it, its 13-pile penalty is
  taken as it stood when it left; it has no score in later rounds and cannot win (as
  HV-T6). When fewer than two seats remain, the round ends and the game ends
  (``last-seat``): the remaining seat wins.
* G-O1: ``first_seat`` is accepted like in every game (the seat that calls "¡Vamos!");
  everyone starts at the same time, so it changes nothing in play.
* Views: every seat sees the same thing (its own face-down cards are hidden from it
  too): foundations with owners, every seat's 13-pile top and size, columns, waste top,
  waste and hand sizes, own cards on the board, ``can_move`` (the SF-E1 verdict for
  that seat, from public information). The referee sees the same. The seed is shown once
  the game is over.
"""
from __future__ import annotations

from typing import Any, NamedTuple

from service.cards import DECK, RANKS, CardError, colour, parse_card, rank_value, suit
from service.games import RuleViolation
from service.games.rng import commitment, shuffle
from service.messages import Message

GAME = "solitaire-frenzy"
REALTIME = True
REFEREE = "referee"
PLAYERS = (2, 3, 4, 5, 6)  # SF-P0
PILE_SIZE, COLUMNS, TURN_SIZE = 13, 4, 3  # SF-P1, SF-H1
NEW = "new"  # based_on of an Ace starting a pile (SF-F1)
FOUNDATION, COLUMN = "foundation", "column"


def _option(name: str, type_: str, default: Any, description: str,
            choices: list | None = None) -> dict:
    entry = {"name": name, "type": type_, "default": default, "description": description}
    if choices is not None:
        entry["choices"] = choices
    return entry


CATALOG: dict[str, dict] = {
    GAME: {
        "title": "Solitaire Frenzy",
        "rules": "RULES.md §5 (SF-*)",
        "players": list(PLAYERS),
        "options": [
            _option("players", "integer", 2, "player count, each with a 52-card deck "
                    "(SF-P0); seats p1..pN", list(PLAYERS)),
            _option("dealing", "string", "server", "server: the service deals every "
                    "round and referees every card; table: physical cards, the referee "
                    "records each round's result per seat (SF-M1)", ["server", "table"]),
            _option("rounds", "integer", 3, "rounds in a game (SF-E2)", list(range(1, 11))),
            _option("pile_penalty", "integer", 1, "points lost per card left in a "
                    "seat's 13-pile at the end of a round (SF-E2; the sheet: 1, Nertz: 2)",
                    list(range(0, 6))),
            _option("one_pile_per_suit", "boolean", False, "SF-F1: at most one open "
                    "foundation pile per suit; a completed pile (up to the King) frees "
                    "its suit"),
            _option("play_order", "string", "free", "SF-O1: strict refuses a waste play "
                    "while the same seat could play its 13-pile top or a column card",
                    ["free", "strict"]),
            _option("first_seat", "string", "p1", "G-O1: the seat that calls \"¡Vamos!\" "
                    "(p1..pN); everyone then starts at the same time, so it changes "
                    "nothing in play"),
        ],
    },
}


# ===== the card rules: foundations (SF-F1) and columns (SF-R1) ======================


class Refusal(NamedTuple):
    """Why a card does not go where it was aimed: stable ``code``, a sentence, the rule."""

    code: str
    detail: Message
    rule: str


_VALUE = {card: rank_value(card) for card in DECK}  # A 1 .. K 13
_RED = {card: colour(card) == "red" for card in DECK}
_NEXT = {card: (RANKS[_VALUE[card]] + suit(card) if _VALUE[card] < len(RANKS) else None)
         for card in DECK}


def ace(card: str) -> bool:
    return _VALUE[card] == 1


def next_card(card: str) -> str | None:
    """The card that follows ``card`` on a foundation pile (same suit, one rank up);
    None after a King (the pile is complete). SF-F1."""
    return _NEXT[card]


def builds_on(card: str, onto: str) -> bool:
    """SF-R1: ``card`` goes onto the column card ``onto``: one rank lower, the other
    colour (suit does not matter)."""
    return _RED[card] != _RED[onto] and _VALUE[card] == _VALUE[onto] - 1


def foundation_refusal(card: str, onto: str | None) -> Refusal | None:
    """SF-F1: why ``card`` may not go onto the foundation top ``onto`` (None: start a
    new pile); None when it may. An Ace only starts a pile and is never redirected."""
    if onto is None:
        if ace(card):
            return None
        return Refusal("new-pile-needs-ace", Message("only an Ace starts a foundation "
                                                     "pile, not %(card)s", card=card),
                       "SF-F1")
    if ace(card):
        return Refusal("ace-needs-new-pile", Message(
            '%(card)s is an Ace: it starts a new pile (based_on "new") and is never played '
            "onto %(onto)s", card=card, onto=onto), "SF-F1")
    following = next_card(onto)
    if following is None:
        return Refusal("pile-complete", Message("the pile is complete up to %(onto)s: "
                                                "nothing goes on a King", onto=onto), "SF-F1")
    if suit(card) != suit(onto):
        return Refusal("wrong-suit", Message("%(card)s is not of %(onto)s's suit: a pile "
                                             "holds one suit", card=card, onto=onto), "SF-F1")
    if card != following:
        return Refusal("wrong-rank", Message("%(onto)s takes %(next)s next, not %(card)s: a "
                                             "pile grows one rank at a time", onto=onto,
                                             next=following, card=card), "SF-F1")
    return None


def column_refusal(card: str, onto: str) -> Refusal | None:
    """SF-R1: why ``card`` may not go onto the exposed column card ``onto``; None when
    it may (one rank lower, the other colour)."""
    if _RED[card] == _RED[onto]:
        both = (Message("%(card)s and %(onto)s are both red: columns alternate colours",
                        card=card, onto=onto) if _RED[card] else
                Message("%(card)s and %(onto)s are both black: columns alternate colours",
                        card=card, onto=onto))
        return Refusal("wrong-colour", both, "SF-R1")
    if _VALUE[card] != _VALUE[onto] - 1:
        if ace(onto):
            return Refusal("wrong-rank", Message(
                "%(onto)s takes nothing (an Ace ends a column), not %(card)s: columns build "
                "down one rank at a time", onto=onto, card=card), "SF-R1")
        return Refusal("wrong-rank", Message(
            "%(onto)s takes a %(rank)s of the other colour, not %(card)s: columns build down "
            "one rank at a time", onto=onto, rank=RANKS[_VALUE[onto] - 2], card=card),
            "SF-R1")
    return None


# ===== options and setup (SF-P0, SF-P1) ==============================================


# the rule each option belongs to (G-R1: an invalid option names it)
_OPTION_RULES = {"players": "SF-P0", "dealing": "SF-M1", "rounds": "SF-E2",
                 "pile_penalty": "SF-E2", "one_pile_per_suit": "SF-F1",
                 "play_order": "SF-O1", "first_seat": "G-O1"}


def _invalid_option(detail: Message, name: str = "players") -> RuleViolation:
    return RuleViolation("invalid-option", detail, 422, _OPTION_RULES[name])


def normalise_options(options: Any) -> dict:
    """Every option of the catalog with its default filled in; RuleViolation
    ``invalid-option`` (422) for an unknown option or a value outside its choices."""
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise _invalid_option(Message("options must be an object"))
    specs = CATALOG[GAME]["options"]
    unknown = sorted(set(options) - {spec["name"] for spec in specs})
    if unknown:
        raise _invalid_option(Message("unknown option %(name)s (known: %(known)s)",
                                      name=repr(unknown[0]),
                                      known=sorted(spec["name"] for spec in specs)))
    out = {}
    for spec in specs:
        name, value = spec["name"], options.get(spec["name"])
        if value is None:
            value = spec["default"]
        elif type(value) is not type(spec["default"]):  # 2.0 or true is no player count
            raise _invalid_option(Message("%(name)s must be of type %(type)s, not %(value)s",
                                          name=name, type=spec["type"], value=repr(value)),
                                  name)
        elif "choices" in spec and value not in spec["choices"]:
            raise _invalid_option(Message("%(name)s must be one of %(allowed)s, not "
                                          "%(value)s", name=name, allowed=spec["choices"],
                                          value=repr(value)), name)
        out[name] = value
    if out["first_seat"] not in _seats(out["players"]):
        raise _invalid_option(Message("%(name)s must be one of %(allowed)s, not %(value)s",
                                      name="first_seat", allowed=_seats(out["players"]),
                                      value=repr(out["first_seat"])), "first_seat")
    return out


def _seats(players: int) -> list[str]:
    return [f"p{i}" for i in range(1, players + 1)]


def deal(seed: str, number: int, seat: str) -> dict:
    """SF-P1: the seat's layout for round ``number``: its deck shuffled (label
    ``round-N-SEAT``), 13 cards to the pile (the 13th on top), 4 columns of one card,
    the other 35 face down in hand (next to turn first), an empty waste."""
    deck = shuffle(DECK, seed, f"round-{number}-{seat}")
    return {"pile": deck[:PILE_SIZE],
            "columns": [[card] for card in deck[PILE_SIZE:PILE_SIZE + COLUMNS]],
            "hand": deck[PILE_SIZE + COLUMNS:], "waste": [], "pass": [], "reach": None}


def new_game(game: str, options: Any, seed: str) -> list[dict]:
    """The setup events: ``game-created`` (options, seats p1..pN, seed), then round 1
    (``round-started`` and, in server mode, one ``dealt`` per seat).
    Raises RuleViolation ``invalid-option`` (422)."""
    if game != GAME:
        raise _invalid_option(Message("unknown game %(game)s", game=repr(game)))
    normal = normalise_options(options)
    created = {"type": "game-created", "seat": None, "game": GAME, "options": normal,
               "seats": _seats(normal["players"]), "seed": seed}
    events = [created]
    _start_round(events, fold(None, created))
    return events


# ===== fold: events -> state ==========================================================


def _created_state(event: dict) -> dict:
    seats = list(event["seats"])
    return {"game": GAME, "options": event["options"], "seed": event["seed"],
            "status": "active", "seats": seats, "active": list(seats), "round": 0,
            "round_seats": [], "foundations": [], "layouts": {s: None for s in seats},
            "retired": {}, "history": [], "totals": {s: 0 for s in seats}, "result": None}


def _copy_layout(state: dict, seat: str) -> tuple[dict, dict]:
    """A copy of ``state`` whose ``seat`` layout (lists included) is fresh."""
    layout = state["layouts"][seat]
    fresh = {"pile": layout["pile"][:], "columns": [c[:] for c in layout["columns"]],
             "hand": layout["hand"][:], "waste": layout["waste"][:],
             "pass": None if layout["pass"] is None else layout["pass"][:],
             "reach": layout["reach"]}
    return {**state, "layouts": {**state["layouts"], seat: fresh}}, fresh


def _fold_round_started(s: dict, e: dict) -> dict:
    return {**s, "round": e["round"], "round_seats": list(e["seats"]), "foundations": [],
            "layouts": {seat: None for seat in s["seats"]}}


def _fold_dealt(s: dict, e: dict) -> dict:
    return {**s, "layouts": {**s["layouts"], e["seat"]: deal(s["seed"], e["round"],
                                                              e["seat"])}}


def _fold_turned(s: dict, e: dict) -> dict:
    s, layout = _copy_layout(s, e["seat"])
    if not layout["hand"]:  # SF-H1: pick the waste up unshuffled; a fresh pass starts
        layout["hand"], layout["waste"], layout["pass"] = layout["waste"], [], []
    group, layout["hand"] = layout["hand"][:TURN_SIZE], layout["hand"][TURN_SIZE:]
    layout["waste"] += group
    if group[-1] != e["top"]:
        raise ValueError(f"turned shows {e['top']} but the hand turns up {group[-1]}")
    if layout["pass"] is not None:
        layout["pass"].append(group[-1])
        if not layout["hand"]:
            layout["reach"] = sorted(set(layout["pass"]))
    return s


def _take(layout: dict, source: str, column: int | None) -> str:
    """Remove the card a play takes from its source; a waste card changes the turning
    cycle, so what the table had seen of it is forgotten (SF-E1)."""
    if source == "pile":
        return layout["pile"].pop()
    if source == "waste":
        layout["pass"], layout["reach"] = None, None
        return layout["waste"].pop()
    return layout["columns"][column].pop()


def _fold_played(s: dict, e: dict) -> dict:
    s, layout = _copy_layout(s, e["seat"])
    card = _take(layout, e["from"], e.get("from_column"))
    if card != e["card"]:
        raise ValueError(f"played {e['card']} but the source holds {card}")
    if e["to"] == COLUMN:
        layout["columns"][e["column"]].append(card)
        return s
    entry = {"card": card, "seat": e["seat"]}
    if e["based_on"] == NEW:
        piles = s["foundations"] + [{"id": e["pile"], "suit": card[-1], "cards": [entry]}]
    else:
        piles = [{**p, "cards": p["cards"] + [entry]} if p["id"] == e["pile"] else p
                 for p in s["foundations"]]
    return {**s, "foundations": piles}


def _fold_column_moved(s: dict, e: dict) -> dict:
    s, layout = _copy_layout(s, e["seat"])
    columns = layout["columns"]
    columns[e["to_column"]] += columns[e["from_column"]]
    columns[e["from_column"]] = []
    return s


def _fold_refilled(s: dict, e: dict) -> dict:
    s, layout = _copy_layout(s, e["seat"])
    layout["columns"][e["column"]] = [_take(layout, e["from"], None)]
    return s


def _fold_retired(s: dict, e: dict) -> dict:
    seat = e["seat"]
    return {**s, "active": [x for x in s["active"] if x != seat],
            "retired": {**s["retired"], seat: {"round": s["round"], "pile": e["pile"]}},
            "layouts": {**s["layouts"], seat: None}}


def _fold_round_ended(s: dict, e: dict) -> dict:
    record = {k: e[k] for k in ("round", "reason", "out", "board", "pile", "scores")}
    return {**s, "history": s["history"] + [record], "totals": dict(e["totals"])}


def _fold_game_ended(s: dict, e: dict) -> dict:
    return {**s, "status": "finished", "result": e["result"]}


_FOLDS = {
    "round-started": _fold_round_started, "dealt": _fold_dealt, "turned": _fold_turned,
    "played": _fold_played, "column-moved": _fold_column_moved,
    "refilled": _fold_refilled, "seat-retired": _fold_retired,
    "round-ended": _fold_round_ended, "game-ended": _fold_game_ended,
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


# ===== rounds, scores, the end (SF-E1, SF-E2, SF-E3) ==================================


def board_counts(state: dict) -> dict[str, int]:
    """SF-E2: each seat's own cards on the board this round (by deck, i.e. owner)."""
    counts = {seat: 0 for seat in state["seats"]}
    for pile in state["foundations"]:
        for entry in pile["cards"]:
            counts[entry["seat"]] += 1
    return counts


def _pile_left(state: dict, seat: str) -> int:
    layout = state["layouts"][seat]
    return len(layout["pile"]) if layout is not None else state["retired"][seat]["pile"]


def _start_round(events: list[dict], state: dict) -> dict:
    """The next round: ``round-started`` for the active seats, and in server mode a
    fresh deal for each (SF-E2: empty board, new shuffles)."""
    number = state["round"] + 1
    state = _emit(events, state, {"type": "round-started", "seat": None, "round": number,
                                  "seats": list(state["active"])})
    if state["options"]["dealing"] == "server":
        for seat in state["active"]:
            layout = deal(state["seed"], number, seat)
            state = _emit(events, state, {
                "type": "dealt", "seat": seat, "round": number,
                "pile_top": layout["pile"][-1], "pile_size": PILE_SIZE,
                "columns": layout["columns"], "hand_size": len(layout["hand"])})
    return state


def _end_game(events: list[dict], state: dict, reason: str) -> dict:
    """``game-ended`` with the common result: the highest total among the seats still
    playing wins, equal totals share (SF-E2); retired seats cannot win (SF-E3)."""
    totals = state["totals"]
    best = max(totals[s] for s in state["active"])
    winners = [s for s in state["active"] if totals[s] == best]
    result = {"winners": winners, "scores": dict(totals), "reason": reason,
              "solitaire_frenzy": {"rounds": state["history"],
                                   "retired": sorted(state["retired"])}}
    return _emit(events, state, {"type": "game-ended", "seat": None, "result": result})


def _close_round(events: list[dict], state: dict, reason: str, out: str | None,
                 board: dict[str, int], pile: dict[str, int]) -> dict:
    """``round-ended`` with the round's scores (SF-E2: +1 per own card on the board,
    ``-pile_penalty`` per card left in the 13-pile) and the running totals; then the
    next round, or the end of the game after the last one (or with one seat left)."""
    penalty = state["options"]["pile_penalty"]
    scores = {s: board[s] - penalty * pile[s] for s in board}
    totals = {s: state["totals"][s] + scores.get(s, 0) for s in state["seats"]}
    state = _emit(events, state, {"type": "round-ended", "seat": None,
                                  "round": state["round"], "reason": reason, "out": out,
                                  "board": board, "pile": pile, "scores": scores,
                                  "totals": totals})
    if len(state["active"]) < 2:
        return _end_game(events, state, "last-seat")
    if state["round"] >= state["options"]["rounds"]:
        return _end_game(events, state, "rounds-played")
    return _start_round(events, state)


def _end_round(events: list[dict], state: dict, reason: str, out: str | None = None) -> dict:
    """Server mode: score the round as the board and the 13-piles stand."""
    counts = board_counts(state)
    seats = state["round_seats"]
    return _close_round(events, state, reason, out, {s: counts[s] for s in seats},
                        {s: _pile_left(state, s) for s in seats})


def _needs(state: dict) -> tuple[set[str], set[str]]:
    """What the board takes now: the next card of every open foundation pile, and the
    suits an Ace may open a pile in (all, or with ``one_pile_per_suit`` those without
    an open pile)."""
    wanted, open_suits = set(), set()
    for pile in state["foundations"]:
        following = next_card(pile["cards"][-1]["card"])
        if following is not None:
            wanted.add(following)
            open_suits.add(pile["suit"])
    suits = {"S", "H", "D", "C"}
    return wanted, suits - open_suits if state["options"]["one_pile_per_suit"] else suits


def _to_board(card: str, needs: tuple[set[str], set[str]]) -> bool:
    wanted, ace_suits = needs
    return card in wanted or (ace(card) and card[-1] in ace_suits)


def hidden_cards(layout: dict) -> list[str]:
    """The seat's cards that are not face up: the 13-pile below its top, the hand, the
    waste below its top. Their set is public (the deck minus what is face up or on the
    board); their places and order are not."""
    return layout["pile"][:-1] + layout["hand"] + layout["waste"][:-1]


def can_move(state: dict, seat: str, needs: tuple[set[str], set[str]] | None = None) -> bool:
    """SF-E1: does the active ``seat`` have a productive move, judged on public
    information only (see the module docstring)? Productive: its 13-pile top, waste
    top or a card turning can reach goes to the board, onto a column or into an empty
    column; a column's exposed card goes to the board; a whole column moves onto
    another. Turning alone is not productive."""
    layout = state["layouts"][seat]
    needs = needs or _needs(state)
    columns = layout["columns"]
    exposed = [column[-1] for column in columns if column]
    gap = len(exposed) < COLUMNS

    def productive(card: str) -> bool:
        return gap or _to_board(card, needs) or any(builds_on(card, e) for e in exposed)

    if layout["pile"] and productive(layout["pile"][-1]):
        return True
    if any(_to_board(card, needs) for card in exposed):
        return True
    if any(builds_on(a[0], b[-1]) for a in columns for b in columns if a and b and a is not b):
        return True
    if not layout["hand"] and not layout["waste"]:
        return False
    if layout["waste"] and productive(layout["waste"][-1]):
        return True
    reach = layout["reach"] if layout["reach"] is not None else hidden_cards(layout)
    return any(productive(card) for card in reach)


def _settle(events: list[dict], state: dict) -> dict:
    """After an action in server mode: the round ends when a seat has gone out (its
    13-pile is empty), when fewer than two seats remain, or when no active seat can
    move (SF-E1); each end is followed by the next round or the end of the game."""
    while state["status"] == "active":
        out = next((s for s in state["active"] if not state["layouts"][s]["pile"]), None)
        if out is not None:
            state = _end_round(events, state, "out", out)
        elif len(state["active"]) < 2:
            state = _end_round(events, state, "last-seat")
        else:
            needs = _needs(state)
            if any(can_move(state, s, needs) for s in state["active"]):
                break
            state = _end_round(events, state, "stuck")
    return state


# ===== apply: actions and their refusals ==============================================

_FIELDS = {
    "turn": set(),
    "play": {"card", "to", "pile", "based_on", "column"},
    "move": {"from_column", "to_column"},
    "refill": {"card", "column"},
    "retire": {"seat"},
    "record-round": {"results", "board_total", "foundation_piles"},
}
_SEAT_ACTIONS = {"turn", "play", "move", "refill"}
_REFEREE_ACTIONS = {"retire", "record-round"}
_ROUND_ACTIONS = _SEAT_ACTIONS | {"record-round"}
# the rule a malformed action of each type is refused under (G-R1)
_RULE_OF = {"turn": "SF-H1", "play": "SF-P2", "move": "SF-R2", "refill": "SF-R4",
            "retire": "SF-E3", "record-round": "SF-M1"}


def _malformed(detail: Message, code: str = "invalid-action", rule: str | None = None
               ) -> RuleViolation:
    return RuleViolation(code, detail, 422, rule)


def _refuse(code: str, detail: Message, rule: str) -> RuleViolation:
    return RuleViolation(code, detail, 409, rule)


def _mode_rule(state: dict) -> str:
    """G-M1 (server dealing) or G-M2 (table dealing): who may act, and how."""
    return "G-M2" if state["options"]["dealing"] == "table" else "G-M1"


def _raise(refusal: Refusal) -> None:
    raise _refuse(refusal.code, refusal.detail, refusal.rule)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _card(action: dict, field: str = "card") -> str:
    raw = action.get(field)
    if raw is None:
        raise _malformed(Message("name the card: %(field)s", field=repr(field)))
    try:
        card = parse_card(raw)
    except CardError as error:
        raise _malformed(Message("%(field)s: %(error)s", field=field, error=error.message),
                         "invalid-card") from error
    if card == "JK":
        raise _malformed(Message("%(field)s: Solitaire Frenzy decks have no joker",
                                 field=field), "invalid-card")
    return card


def _column(action: dict, field: str) -> int:
    value = action.get(field)
    if not _is_int(value) or not 0 <= value < COLUMNS:
        raise _malformed(Message("%(field)s must be a column number 0 to %(last)s",
                                 field=field, last=COLUMNS - 1), "invalid-column")
    return value


def _check_round(state: dict, action: dict) -> None:
    """The action's ``round``: required; an ended round is ``round-over`` (SF-E1, before
    anything else, so a late play is never judged against a new deal)."""
    number = action.get("round")
    if not _is_int(number):
        raise _malformed(Message('name the round the action is for: "round" (an integer)'),
                         rule="SF-E1")
    if number < state["round"] or (number == state["round"] and state["status"] != "active"):
        raise _refuse("round-over", Message("round %(round)s is over: nothing more can be "
                                            "played in it", round=number), "SF-E1")
    if number > state["round"] and state["status"] == "active":
        raise _malformed(Message("round %(round)s has not started; this is round "
                                 "%(current)s", round=number, current=state["round"]),
                         "invalid-round", "SF-E2")


def _acting_seat(state: dict, actor: str, action: dict) -> str:
    """The seat a seat action is for. 403 when the referee plays, or a seat names
    another; 409 in table mode or for a retired seat."""
    if actor == REFEREE:
        raise RuleViolation("referee-not-allowed", Message(
            "the referee does not play a seat's cards; seats make their own moves"), 403,
            _mode_rule(state))
    if actor not in state["seats"]:
        raise RuleViolation("unknown-actor", Message("%(actor)s is not a seat of this game",
                                                     actor=repr(actor)), 403,
                            _mode_rule(state))
    if action.get("seat", actor) != actor:
        raise RuleViolation("not-your-seat", Message("%(seat)s may not act for %(other)s",
                                                     seat=actor, other=repr(action["seat"])),
                            403, _mode_rule(state))
    if state["options"]["dealing"] == "table":
        raise _refuse("table-mode", Message("in table mode the cards are physical: the "
                                            "referee records each round's result "
                                            "(record-round)"), "SF-M1")
    if actor not in state["active"]:
        raise _refuse("seat-retired", Message("%(seat)s has left the table", seat=actor),
                      "SF-E3")
    return actor


def apply(state: dict, actor: str, action: Any) -> list[dict]:
    """The events ``action`` by ``actor`` (a seat ``p1``.. or ``"referee"``) causes,
    including what follows from it in the same transaction: going out, nobody able to
    move (SF-E1), the next round's deal, the end of the game.

    Never mutates ``state``. Raises RuleViolation (with its rule ID; a malformed
    action names the rule of its type, e.g. SF-H1 for ``turn``): 422 for a
    malformed action (``invalid-action``, ``invalid-card``, ``invalid-column``,
    ``invalid-round``, ``invalid-seat``, ``invalid-report``...), 403 for acting
    for another seat or a referee/seat mix-up, 409 for what the state refuses
    (``round-over``, ``game-over``, ``card-not-on-top``, ``card-on-board``,
    ``not-whole-column``, ``move-to-empty``, ``wrong-suit``, ``wrong-rank``,
    ``wrong-colour``, ``ace-needs-new-pile``, ``new-pile-needs-ace``,
    ``suit-pile-open``, ``pile-complete``, ``unknown-pile``, ``stale-top-card``,
    ``not-pile-top``, ``nothing-to-turn``, ``play-order``, ``seat-retired``...).
    """
    if not isinstance(action, dict):
        raise _malformed(Message("an action is a JSON object with a 'type'"), rule="G-R1")
    kind = action.get("type")
    if kind not in _FIELDS:
        raise _malformed(Message("unknown action type %(type)s (one of %(types)s)",
                                 type=repr(kind), types=", ".join(sorted(_FIELDS))),
                         rule="G-R1")
    try:
        return _apply(state, actor, action, kind)
    except RuleViolation as error:
        if error.status == 422 and error.rule is None:
            error.rule = _RULE_OF[kind]
        raise


def _apply(state: dict, actor: str, action: dict, kind: str) -> list[dict]:
    allowed = _FIELDS[kind] | {"type", "expected_version"}
    allowed |= {"round"} if kind in _ROUND_ACTIONS else set()
    allowed |= {"seat"} if kind in _SEAT_ACTIONS else set()
    extra = sorted(set(action) - allowed)
    if extra:
        raise _malformed(Message("unknown field %(field)s in a %(type)s action",
                                 field=repr(extra[0]), type=kind))
    if kind in _ROUND_ACTIONS:
        _check_round(state, action)
    if state["status"] != "active":
        raise _refuse("game-over", Message("the game is over"), "SF-E2")
    if kind in _REFEREE_ACTIONS:
        if actor != REFEREE:
            raise RuleViolation("referee-only", Message("only the referee may %(type)s "
                                                        "(%(rule)s)", type=kind,
                                                        rule=_RULE_OF[kind]), 403,
                                _RULE_OF[kind])
        return _REFEREE_HANDLERS[kind](state, action)
    seat = _acting_seat(state, actor, action)
    events: list[dict] = []
    _SEAT_HANDLERS[kind](events, state, seat, action)
    _settle(events, fold_all(state, events))
    return events


def fold_all(state: dict, events: list[dict]) -> dict:
    """``state`` after every event of ``events`` in order."""
    for event in events:
        state = fold(state, event)
    return state


# ----- a seat's cards: where a named card is ---------------------------------------


def _locate(state: dict, seat: str, card: str) -> tuple[str, int | None]:
    """Where the seat's ``card`` can be played from: ``("pile", None)``, ``("waste",
    None)`` or ``("column", i)`` for a column's exposed card. Refused otherwise, with a
    detail that never depends on hidden places."""
    layout = state["layouts"][seat]
    if layout["pile"] and layout["pile"][-1] == card:
        return "pile", None
    if layout["waste"] and layout["waste"][-1] == card:
        return "waste", None
    for i, column in enumerate(layout["columns"]):
        if column and column[-1] == card:
            return COLUMN, i
        if card in column:
            above = column[column.index(card) + 1]
            raise _refuse("card-not-on-top", Message(
                "%(card)s is covered by %(above)s in your column %(column)s: only a "
                "column's exposed card plays (SF-R3)", card=card, above=above, column=i),
                "SF-R3")
    for pile in state["foundations"]:
        if any(e["card"] == card and e["seat"] == seat for e in pile["cards"]):
            raise _refuse("card-on-board", Message("your %(card)s is on foundation pile "
                                                   "%(pile)s: cards on the board never move "
                                                   "again", card=card, pile=pile["id"]),
                          "SF-F1")
    raise _refuse("card-not-on-top", Message(
        "%(card)s is not face up on top of your 13-pile or your waste or exposed in a "
        "column: only those cards play (SF-P2, SF-H1, SF-R3)", card=card), "SF-H1")


def _order_blocks(state: dict, seat: str) -> bool:
    """SF-O1 strict: the seat could play its 13-pile top (anywhere) or a column's
    exposed card to the board, so it may not play from the waste."""
    layout, needs = state["layouts"][seat], _needs(state)
    exposed = [c[-1] for c in layout["columns"] if c]
    if layout["pile"]:
        top = layout["pile"][-1]
        if len(exposed) < COLUMNS or _to_board(top, needs) or \
                any(builds_on(top, e) for e in exposed):
            return True
    return any(_to_board(card, needs) for card in exposed)


def _check_order(state: dict, seat: str, source: str) -> None:
    if source == "waste" and state["options"]["play_order"] == "strict" \
            and _order_blocks(state, seat):
        raise _refuse("play-order", Message("play order is strict: play your 13-pile top "
                                            "or a column card before your waste (SF-O1)"),
                      "SF-O1")


def _exposed_after(state: dict, seat: str, source: str) -> str | None:
    """The card a play from ``source`` turns face up: the next 13-pile card (SF-P2) or
    the waste card below (SF-H1); None when none is left."""
    if source not in ("pile", "waste"):
        return None
    cards = state["layouts"][seat][source]
    return cards[-2] if len(cards) > 1 else None


# ----- turn (SF-H1) -------------------------------------------------------------------


def _do_turn(events: list[dict], state: dict, seat: str, action: dict) -> None:
    """SF-H1: turn the next three hand cards (fewer when fewer remain) onto the waste;
    with an empty hand, pick the waste up unshuffled first (one event)."""
    layout = state["layouts"][seat]
    if not layout["hand"] and not layout["waste"]:
        raise _refuse("nothing-to-turn", Message("your hand and waste are empty: nothing "
                                                 "to turn"), "SF-H1")
    recycled = not layout["hand"]
    cards = layout["waste"] if recycled else layout["hand"]
    group = cards[:TURN_SIZE]
    events.append({"type": "turned", "seat": seat, "top": group[-1], "count": len(group),
                   "recycled": recycled})


# ----- play (SF-P2, SF-F1, SF-F2, SF-R1..R4, SF-T1, SF-O1) ------------------------


def _do_play(events: list[dict], state: dict, seat: str, action: dict) -> None:
    card = _card(action)
    target = action.get("to")
    if target not in (FOUNDATION, COLUMN):
        raise _malformed(Message('"to" is "foundation" or "column"'))
    if target == FOUNDATION:
        if "column" in action:
            raise _malformed(Message('a foundation play names "pile" and "based_on", not a '
                                     "column"))
        _play_to_foundation(events, state, seat, card, action)
        return
    if "pile" in action or "based_on" in action:
        raise _malformed(Message('a column play names "column", not a pile or based_on'))
    column = _column(action, "column")
    layout = state["layouts"][seat]
    for i, cards in enumerate(layout["columns"]):
        if card in cards:  # a column card goes to another column only as the whole column
            if len(cards) > 1:
                raise _refuse("not-whole-column", Message(
                    "%(card)s is in your column %(column)s of %(count)s cards: a column "
                    "moves only as a whole (move), never a card by itself (SF-R2)",
                    card=card, column=i, count=len(cards)), "SF-R2")
            _do_move(events, state, seat, {"from_column": i, "to_column": column})
            return
    if not layout["columns"][column]:
        _do_refill(events, state, seat, {"card": card, "column": column})
        return
    source, _ = _locate(state, seat, card)
    refusal = column_refusal(card, layout["columns"][column][-1])
    if refusal is not None:
        _raise(refusal)
    _check_order(state, seat, source)
    events.append({"type": "played", "seat": seat, "card": card, "from": source,
                   "to": COLUMN, "column": column,
                   "exposed": _exposed_after(state, seat, source)})


def _based_on(action: dict) -> str:
    raw = action.get("based_on")
    if raw is None:
        raise _malformed(Message('a foundation play names the top card it aims at: '
                                 '"based_on" (or "new" for an Ace starting a pile)'),
                         rule="SF-T1")
    return NEW if raw == NEW else _card(action, "based_on")


def _play_to_foundation(events: list[dict], state: dict, seat: str, card: str,
                        action: dict) -> None:
    """SF-F1/F2/T1: one card onto the named pile whose top is ``based_on``, or an Ace
    onto a new pile (``based_on: "new"``; never redirected)."""
    aim, number = _based_on(action), action.get("pile")
    if aim == NEW and number is not None:
        raise _malformed(Message('a new pile has no id yet: leave "pile" out with '
                                 '"based_on": "new"'), rule="SF-F1")
    if aim != NEW and not _is_int(number):
        raise _malformed(Message('name the foundation pile: "pile" (its id)'), rule="SF-F1")
    source, column = _locate(state, seat, card)
    if aim == NEW:
        _check_new_pile(state, card)
        number = max((p["id"] for p in state["foundations"]), default=0) + 1
    else:
        if ace(card):
            _raise(foundation_refusal(card, aim))
        pile = next((p for p in state["foundations"] if p["id"] == number), None)
        if pile is None:
            raise _refuse("unknown-pile", Message("there is no foundation pile %(pile)s in "
                                                  "this round", pile=number), "SF-F1")
        _check_aim(pile, aim)
        refusal = foundation_refusal(card, aim)
        if refusal is not None:
            _raise(refusal)
    _check_order(state, seat, source)
    event = {"type": "played", "seat": seat, "card": card, "from": source}
    if source == COLUMN:
        event["from_column"] = column
    event.update({"to": FOUNDATION, "pile": number, "based_on": aim,
                  "exposed": _exposed_after(state, seat, source)})
    events.append(event)


def _check_new_pile(state: dict, card: str) -> None:
    """SF-F1: only an Ace starts a pile; with ``one_pile_per_suit`` only while no pile
    of its suit is open."""
    refusal = foundation_refusal(card, None)
    if refusal is not None:
        _raise(refusal)
    if not state["options"]["one_pile_per_suit"]:
        return
    for pile in state["foundations"]:
        if pile["suit"] == card[-1] and next_card(pile["cards"][-1]["card"]) is not None:
            raise _refuse("suit-pile-open", Message(
                "pile %(pile)s of %(suit)s is still open: one pile per suit until it is "
                "complete (SF-F1)", pile=pile["id"], suit=card[-1]), "SF-F1")


def _check_aim(pile: dict, aim: str) -> None:
    """SF-T1: the pile's top must still be the card the play aimed at."""
    top = pile["cards"][-1]
    if top["card"] == aim:
        return
    if any(entry["card"] == aim for entry in pile["cards"]):
        raise RuleViolation("stale-top-card", Message(
            "pile %(pile)s has moved on: its top is now %(top)s (%(seat)s), not %(aim)s; "
            "your card stays where it was", pile=pile["id"], top=top["card"],
            seat=top["seat"], aim=aim), 409, "SF-T1",
            extra={"top": {"pile": pile["id"], **top}})
    raise _refuse("not-pile-top", Message("pile %(pile)s never showed %(aim)s: its top is "
                                          "%(top)s", pile=pile["id"], aim=aim,
                                          top=top["card"]), "SF-T1")


# ----- move, refill (SF-R2, SF-R4) ----------------------------------------------------


def _do_move(events: list[dict], state: dict, seat: str, action: dict) -> None:
    """SF-R2: a whole column onto another column's exposed card, continuing the build;
    never into an empty column."""
    source, target = _column(action, "from_column"), _column(action, "to_column")
    if source == target:
        raise _malformed(Message("from_column and to_column are the same column"),
                         "same-column")
    columns = state["layouts"][seat]["columns"]
    if not columns[source]:
        raise _refuse("column-empty", Message("your column %(column)s is empty: nothing to "
                                              "move", column=source), "SF-R2")
    if not columns[target]:
        raise _refuse("move-to-empty", Message(
            "your column %(column)s is empty: a column never moves into an empty spot; "
            "refill it from your 13-pile or waste (SF-R2, SF-R4)", column=target), "SF-R2")
    refusal = column_refusal(columns[source][0], columns[target][-1])
    if refusal is not None:
        _raise(Refusal(refusal.code, Message("column %(column)s starts with %(card)s: "
                                             "%(why)s", column=source,
                                             card=columns[source][0], why=refusal.detail),
                       "SF-R2"))
    events.append({"type": "column-moved", "seat": seat, "from_column": source,
                   "to_column": target, "cards": list(columns[source])})


def _do_refill(events: list[dict], state: dict, seat: str, action: dict) -> None:
    """SF-R4: an empty column takes the 13-pile top or the waste top."""
    card, column = _card(action), _column(action, "column")
    layout = state["layouts"][seat]
    if layout["columns"][column]:
        raise _refuse("column-not-empty", Message("your column %(column)s is not empty "
                                                  "(%(card)s is exposed)", column=column,
                                                  card=layout["columns"][column][-1]),
                      "SF-R4")
    source, _ = _locate(state, seat, card)
    if source == COLUMN:
        raise _refuse("move-to-empty", Message(
            "%(card)s is a column card: a column never moves into an empty spot; refill "
            "from your 13-pile or waste (SF-R4)", card=card), "SF-R2")
    _check_order(state, seat, source)
    events.append({"type": "refilled", "seat": seat, "card": card, "from": source,
                   "column": column, "exposed": _exposed_after(state, seat, source)})


_SEAT_HANDLERS = {"turn": _do_turn, "play": _do_play, "move": _do_move,
                  "refill": _do_refill}


# ----- the referee: retire (SF-E3), record a table round (SF-M1) ------------------


def _do_retire(state: dict, action: dict) -> list[dict]:
    """SF-E3: the seat left the table: its board cards stay, its pile, row and hand
    leave play (its penalty counts as the 13-pile stands now), SF-E1 ignores it and it
    plays no later round. With one seat left the round and the game end."""
    seat = action.get("seat")
    if seat not in state["seats"]:
        raise _malformed(Message("seat must be one of %(seats)s", seats=state["seats"]),
                         "invalid-seat", "SF-E3")
    if seat not in state["active"]:
        raise _refuse("seat-retired", Message("%(seat)s has already left the table",
                                              seat=seat), "SF-E3")
    layout = state["layouts"][seat]
    events: list[dict] = []
    state = _emit(events, state, {"type": "seat-retired", "seat": seat,
                                  "pile": len(layout["pile"]) if layout else None})
    if state["options"]["dealing"] == "server":
        _settle(events, state)
    elif len(state["active"]) < 2:  # table mode: the unrecorded round is not scored
        _end_game(events, state, "last-seat")
    return events


def _report_value(seat: str, entry: dict, name: str, top: int) -> int:
    value = entry.get(name)
    if not _is_int(value) or not 0 <= value <= top:
        where = f"results.{seat}.{name}"
        raise _malformed(Message("%(field)s must be an integer 0 to %(most)s", field=where,
                                 most=top), "invalid-report", "SF-M1")
    return value


def _do_record(state: dict, action: dict) -> list[dict]:
    """SF-M1 (table mode): the referee's record of the round, per seat that started it:
    ``{"board": own cards on the board, "pile": cards left in the 13-pile, "out":
    went out}``. Checked: ranges (board 0-52, pile 0-13, together at most 52), at most
    one seat out, the seat out has 0 left and nobody else has 0 (the round ends as the
    last 13-pile card is played), and the optional ``board_total`` (cards on the board)
    and ``foundation_piles`` against the seats' boards (each pile holds 1 to 13 cards
    and starts with an Ace: at most 4 per deck)."""
    if state["options"]["dealing"] != "table":
        raise _refuse("not-table-mode", Message("in server mode the service referees every "
                                                "card and ends the rounds itself (SF-E1)"),
                      "SF-M1")
    results = action.get("results")
    seats = state["round_seats"]
    if not isinstance(results, dict) or set(results) != set(seats):
        raise _malformed(Message("results: one entry per seat of round %(round)s: "
                                 "%(seats)s", round=state["round"], seats=seats),
                         "invalid-report", "SF-M1")
    board, pile, out = {}, {}, []
    for seat in seats:
        entry = results[seat]
        where = f"results.{seat}"
        if not isinstance(entry, dict) or set(entry) - {"board", "pile", "out"}:
            raise _malformed(Message('%(field)s: {"board", "pile", "out"}', field=where),
                             "invalid-report", "SF-M1")
        board[seat] = _report_value(seat, entry, "board", 52)
        pile[seat] = _report_value(seat, entry, "pile", PILE_SIZE)
        if board[seat] + pile[seat] > 52:
            raise _malformed(Message("%(seat)s: %(board)s on the board and %(pile)s in the "
                                     "13-pile are more than a deck's 52 cards", seat=seat,
                                     board=board[seat], pile=pile[seat]),
                             "invalid-report", "SF-M1")
        if not isinstance(entry.get("out", False), bool):
            raise _malformed(Message("%(field)s is true or false", field=where + ".out"),
                             "invalid-report", "SF-M1")
        if entry.get("out", False):
            out.append(seat)
    _check_report(state, board, pile, out, action)
    events: list[dict] = []
    _close_round(events, state, "out" if out else "stuck", out[0] if out else None,
                 board, pile)
    return events


def _check_report(state: dict, board: dict, pile: dict, out: list, action: dict) -> None:
    def bad(code: str, detail: Message) -> RuleViolation:
        return _malformed(detail, code, "SF-M1")

    if len(out) > 1:
        raise bad("several-out", Message("%(seats)s cannot all have gone out: the round ends "
                                         "when the first player plays their last 13-pile "
                                         "card (SF-E1)", seats=", ".join(out)))
    emptied = [s for s in pile if pile[s] == 0]
    if out and pile[out[0]]:
        raise bad("out-with-cards", Message("%(seat)s went out, so its 13-pile is empty, not "
                                            "%(count)s", seat=out[0], count=pile[out[0]]))
    if emptied and emptied != out:
        raise bad("empty-pile-not-out", Message('%(seat)s has no 13-pile card left, so it '
                                                'went out: mark it "out" (only one player '
                                                "can)", seat=emptied[0]))
    total = sum(board.values())
    reported = action.get("board_total")
    if reported is not None and (not _is_int(reported) or reported != total):
        raise bad("board-total-mismatch", Message("the seats' boards add up to %(total)s, "
                                                  "not %(reported)s", total=total,
                                                  reported=repr(reported)))
    piles = action.get("foundation_piles")
    if piles is not None:
        decks = len(state["round_seats"])
        if not _is_int(piles) or not 0 <= piles <= 4 * decks:
            raise bad("invalid-report", Message("foundation_piles is 0 to %(most)s (one per "
                                                "Ace)", most=4 * decks))
        if not piles <= total <= 13 * piles:
            raise bad("board-total-mismatch", Message("%(piles)s foundation piles hold 1 to "
                                                      "13 cards each, so not %(total)s cards "
                                                      "in all", piles=piles, total=total))


_REFEREE_HANDLERS = {"retire": _do_retire, "record-round": _do_record}


# ===== legal actions ==================================================================


def _foundation_plays(state: dict, card: str, needs: tuple[set[str], set[str]]) -> list[dict]:
    """Foundation targets of ``card``: a new pile for an Ace, else every pile it follows."""
    if ace(card):
        return [{"to": FOUNDATION, "based_on": NEW}] if card[-1] in needs[1] else []
    return [{"to": FOUNDATION, "pile": p["id"], "based_on": p["cards"][-1]["card"]}
            for p in state["foundations"] if next_card(p["cards"][-1]["card"]) == card]


def _seat_actions(state: dict, seat: str) -> list[dict]:
    layout, needs, number = state["layouts"][seat], _needs(state), state["round"]
    columns = layout["columns"]
    plays: list[dict] = []
    for source in ("pile", "waste"):
        if not layout[source]:
            continue
        card = layout[source][-1]
        moves = [{"type": "play", "round": number, "card": card, **target}
                 for target in _foundation_plays(state, card, needs)]
        moves += [{"type": "play", "round": number, "card": card, "to": COLUMN, "column": j}
                  for j, c in enumerate(columns) if c and builds_on(card, c[-1])]
        moves += [{"type": "refill", "round": number, "card": card, "column": j}
                  for j, c in enumerate(columns) if not c]
        if source == "waste" and moves and state["options"]["play_order"] == "strict" \
                and _order_blocks(state, seat):
            moves = []
        plays += moves
    for i, column in enumerate(columns):
        if not column:
            continue
        plays += [{"type": "play", "round": number, "card": column[-1], **target}
                  for target in _foundation_plays(state, column[-1], needs)]
        plays += [{"type": "move", "round": number, "from_column": i, "to_column": j}
                  for j, other in enumerate(columns)
                  if j != i and other and builds_on(column[0], other[-1])]
    if layout["hand"] or layout["waste"]:
        plays.append({"type": "turn", "round": number})
    return plays


def legal_actions(state: dict, viewer: str | None) -> list[dict]:
    """Complete action bodies ``apply(state, viewer, body)`` accepts now.

    A seat (server mode, still playing): every play, move and refill of its face-up
    cards, and ``turn`` while its hand or waste holds a card. The referee: ``retire``
    for each seat still playing (the table-mode ``record-round`` takes the referee's
    figures, so it is not listed). A finished game, or anyone else: none.
    """
    if state["status"] != "active":
        return []
    if viewer == REFEREE:
        return [{"type": "retire", "seat": seat} for seat in state["active"]]
    if viewer in state["active"] and state["options"]["dealing"] == "server":
        return _seat_actions(state, viewer)
    return []


# ===== views ==========================================================================


def _public_layout(state: dict, seat: str, board: int, needs: tuple) -> dict:
    out: dict[str, Any] = {"active": seat in state["active"], "board": board}
    layout = state["layouts"][seat]
    if layout is None:
        if seat in state["retired"]:
            out["pile_size"] = state["retired"][seat]["pile"]
        return out
    out.update({
        "pile_top": layout["pile"][-1] if layout["pile"] else None,
        "pile_size": len(layout["pile"]),
        "columns": [list(c) for c in layout["columns"]],
        "waste_top": layout["waste"][-1] if layout["waste"] else None,
        "waste_size": len(layout["waste"]), "hand_size": len(layout["hand"]),
    })
    if state["status"] == "active" and seat in state["active"]:
        out["can_move"] = can_move(state, seat, needs)
    return out


def view(state: dict, viewer: str | None) -> dict:
    """The game as ``viewer`` (a seat, ``"referee"`` or None) may see it; every viewer
    sees the same, since nobody (the seat itself included) sees face-down cards.

    ``round`` and ``rounds``, ``totals`` and ``history`` (each ended round's board,
    pile, scores, reason, who went out), ``foundations`` (id, suit, cards with their
    owners), per seat in ``players``: ``active``, ``board`` (own cards on the board
    this round), ``pile_top``, ``pile_size``, ``columns``, ``waste_top``,
    ``waste_size``, ``hand_size``, ``can_move`` (SF-E1, from public information);
    ``result`` once finished, the seed commitment (the seed itself once finished);
    ``seat`` for a seat viewer.
    """
    board, needs = board_counts(state), _needs(state)
    out: dict[str, Any] = {
        "game": GAME, "status": state["status"], "options": state["options"],
        "seats": list(state["seats"]), "active": list(state["active"]),
        "round": state["round"], "rounds": state["options"]["rounds"],
        "totals": dict(state["totals"]), "history": list(state["history"]),
        "foundations": [{"id": p["id"], "suit": p["suit"], "top": p["cards"][-1]["card"],
                         "cards": [dict(e) for e in p["cards"]]}
                        for p in state["foundations"]],
        "players": {seat: _public_layout(state, seat, board[seat], needs)
                    for seat in state["seats"]},
        "result": state["result"], "seed_commitment": commitment(state["seed"]),
    }
    if state["status"] == "finished":
        out["seed"] = state["seed"]
    if viewer in state["seats"]:
        out["seat"] = viewer
    return out


def view_event(state: dict, event: dict, viewer: str | None) -> dict | None:
    """One log event as ``viewer`` may see it: every event is public (none carries a
    face-down card), except the seed of ``game-created``, shown once the game is over
    (``seed_commitment`` before)."""
    if event["type"] != "game-created":
        return dict(event)
    out = {k: v for k, v in event.items() if k != "seed"}
    out["seed_commitment"] = commitment(event["seed"])
    if state["status"] == "finished":
        out["seed"] = event["seed"]
    return out


# ===== the stateless check (POST /v1/solitaire-frenzy/plays/check) ==================


def check_play(card: Any, onto: Any, to: Any) -> dict:
    """Would ``card`` go ``onto`` a foundation top or a column card (``None``: a new
    pile / an empty column)? ``{"legal", "code", "rule", "detail"}`` (code null when
    legal). ``to``: ``"foundation"`` (SF-F1) or ``"column"`` (SF-R1, SF-R4).
    Raises RuleViolation ``invalid-card`` / ``invalid-action`` (422) for bad input."""
    body = {"card": card} if onto is None else {"card": card, "onto": onto}
    parsed = _card(body)
    target = None if onto is None else _card(body, "onto")
    if to == FOUNDATION:
        refusal = foundation_refusal(parsed, target)
        if refusal is None:
            detail = (Message("%(card)s starts a new pile", card=parsed) if target is None
                      else Message("%(card)s follows %(onto)s on its pile", card=parsed,
                                   onto=target))
            return {"legal": True, "code": None, "rule": "SF-F1", "detail": detail}
    elif to == COLUMN:
        if target is None:
            return {"legal": True, "code": None, "rule": "SF-R4",
                    "detail": Message("%(card)s may refill an empty column if it is your "
                                      "13-pile top or waste top (a column card never moves "
                                      "into an empty spot)", card=parsed)}
        refusal = column_refusal(parsed, target)
        if refusal is None:
            return {"legal": True, "code": None, "rule": "SF-R1",
                    "detail": Message("%(card)s builds down on %(onto)s in alternating "
                                      "colours", card=parsed, onto=target)}
    else:
        raise _malformed(Message('"to" is "foundation" or "column"'), rule="SF-P2")
    return {"legal": False, "code": refusal.code, "rule": refusal.rule,
            "detail": refusal.detail}

"""Halves actions: ``apply`` and its refusals (HV-T1..HV-T6, HV-M1, G-M1, G-M2)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypedDict

from service.games import RuleViolation
from service.games.halves.cards import (
    CardCodeError,
    card_code,
    deck_index,
    halves_of,
    identity,
    laid,
    matches,
    parse_card,
)
from service.games.halves.fold import (
    HAND,
    active_seats,
    cards_left,
    emit,
    public_cards,
    top_entry,
    top_halves,
)
from service.games.halves.race import (
    block_step,
    bottom_moves_can_help,
    check_out,
    end,
    next_pile_turner,
    pile_turn,
    resolve_block,
    top_ups,
)
from service.games.halves.state import Event, HalvesState
from service.messages import Message

REFEREE = "referee"


_ACTION_KEYS = {
    "play": {"card", "turned", "based_on"},
    "draw": set(),
    "retire": set(),
    "deal": {"card", "turned"},
    "blocked": {"card", "turned"},
}
# G-R1: the rule a malformed action of each type names (an unknown type: G-R1 itself)
_ACTION_RULES = {
    "play": "HV-T1",
    "draw": "HV-T2",
    "retire": "HV-T6",
    "deal": "HV-M1",
    "blocked": "HV-T4",
}
_ALWAYS = {"type", "seat", "expected_version"}
# G-R1: a game-over refusal cites the rule that ended that game (by the result's reason)
_ENDED_BY = {"out": "HV-E1", "no-legal-play": "HV-T5", "last-seat": "HV-T6"}
_TABLE_ONLY = {"deal", "blocked"}
_SEAT_ACTIONS = {"play", "draw"}


class _Fields(TypedDict, total=False):
    """An action's card fields, checked and canonical (:func:`_parse`)."""

    card: str  # upright
    turned: bool  # relative to upright
    based_on: str  # upright


def _malformed(detail: Message, code: str = "invalid-action", rule: str = "G-R1") -> RuleViolation:
    return RuleViolation(code, detail, 422, rule=rule)


def _refuse(
    code: str, detail: Message, rule: str, extra: dict[str, Any] | None = None
) -> RuleViolation:
    return RuleViolation(code, detail, 409, rule=rule, extra=extra)


def _forbid(code: str, detail: Message, rule: str) -> RuleViolation:
    return RuleViolation(code, detail, 403, rule=rule)


def _game_card(state: HalvesState, raw: Any, field: str) -> tuple[str, bool]:
    """(upright code, written the other way round) of a card of this game's deck.
    422 ``invalid-card`` naming ``field``."""
    if raw is None:
        raise _malformed(
            Message("the action needs %(field)s: a card code such as 'RC-GS'", field=repr(field)),
            "invalid-card",
            "HV-C1",
        )
    try:
        halves = parse_card(raw)
    except CardCodeError as exc:
        raise _malformed(
            Message("%(field)s: %(error)s", field=field, error=exc.message), "invalid-card", "HV-C1"
        ) from exc
    upright = deck_index(tuple(state["deck"])).get(identity(halves))
    if upright is None:
        raise _malformed(
            Message(
                "%(field)s: %(card)s is not a card of this game's deck (HV-C1)",
                field=field,
                card=card_code(halves),
            ),
            "invalid-card",
            "HV-C1",
        )
    return upright, halves != halves_of(upright)


def _turned(state: HalvesState, action: Mapping[str, Any], reversed_: bool) -> bool:
    """The orientation relative to upright: the code as written, swapped when
    ``turned``; 422 when ``turned`` is not a boolean."""
    turned = action.get("turned", False)
    if not isinstance(turned, bool):
        raise _malformed(Message("'turned' is true or false"), rule="HV-T1")
    return turned != reversed_


def _parse(state: HalvesState, kind: str, action: Mapping[str, Any]) -> _Fields:
    """The action's card fields, checked and canonical (422 otherwise)."""
    out: _Fields = {}
    if kind in ("play", "deal") or (kind == "blocked" and "card" in action):
        card, reversed_ = _game_card(state, action.get("card"), "card")
        out["card"], out["turned"] = card, _turned(state, action, reversed_)
    elif "turned" in action:
        raise _malformed(
            Message("'turned' goes with a 'card' (%(type)s)", type=kind), rule=_ACTION_RULES[kind]
        )
    if kind == "play" and action.get("based_on") is not None:
        out["based_on"] = _game_card(state, action["based_on"], "based_on")[0]
    return out


def _acting_seat(
    state: HalvesState, actor: str, action: Mapping[str, Any], kind: str
) -> str | None:
    """The seat an action is by or for; 403/422 for who may send what (HV-M1, HV-T6)."""
    named = action.get("seat")
    table = state["options"]["dealing"] == "table"
    if actor == REFEREE:
        if kind in ("deal", "blocked"):
            if named is not None:
                raise _malformed(
                    Message("a %(type)s report names no seat", type=kind), rule="HV-M1"
                )
            return None
        if kind in _SEAT_ACTIONS and not table:
            raise _forbid(
                "referee-not-allowed",
                Message(
                    "in server dealing the seats play and draw for themselves (G-M1); the "
                    "referee only retires a seat (HV-T6)"
                ),
                "G-M1",
            )
        if named is None:
            raise _malformed(
                Message('the referee names the seat: "seat" (%(type)s)', type=kind),
                "seat-required",
                "HV-M1",
            )
        if not isinstance(named, str) or named not in state["seats"]:
            raise _malformed(
                Message("unknown seat %(seat)s", seat=repr(named)), "invalid-seat", "HV-M1"
            )
        return named
    if actor not in state["seats"]:
        raise _forbid(
            "unknown-actor",
            Message("%(actor)s is not a seat of this game", actor=repr(actor)),
            "G-M1",
        )
    if named is not None and named != actor:
        raise _forbid(
            "not-your-seat",
            Message("%(seat)s may not act for %(other)s", seat=actor, other=repr(named)),
            "G-M1",
        )
    if kind not in _SEAT_ACTIONS:
        rule = "HV-T6" if kind == "retire" else "HV-M1"
        raise _forbid(
            "referee-only",
            Message("only the referee may %(type)s (%(rule)s)", type=kind, rule=rule),
            rule,
        )
    if table:
        raise _forbid(
            "referee-reports",
            Message("in table mode the referee reports the table's plays and draws (HV-M1)"),
            "HV-M1",
        )
    return actor


def _stale(state: HalvesState, based_on: str) -> RuleViolation:
    entry = top_entry(state)
    shown = card_code(laid(entry["card"], entry["turned"]))
    return _refuse(
        "stale-top-card",
        Message(
            "the top card is now %(top)s (lying as %(shown)s), not %(based_on)s: the first play "
            "recorded won (HV-T3)",
            top=entry["card"],
            shown=shown,
            based_on=based_on,
        ),
        "HV-T3",
        {
            "top": {
                "card": entry["card"],
                "turned": entry["turned"],
                "halves": list(laid(entry["card"], entry["turned"])),
            }
        },
    )


def _do_play(
    state: HalvesState, seat: str, action: Mapping[str, Any], fields: _Fields
) -> list[Event]:
    """HV-T1/HV-T3: one hand card onto the top it aimed at (``based_on``)."""
    card, turned = fields["card"], fields["turned"]
    based_on = fields.get("based_on")
    table = state["options"]["dealing"] == "table"
    if table:
        if not state["hands"][seat]:
            raise _refuse(
                "hand-empty",
                Message("%(seat)s holds no card (report its draw first, HV-T2)", seat=seat),
                "HV-M1",
            )
        if card in public_cards(state):
            raise _refuse(
                "card-not-available",
                Message(
                    "%(card)s is already in the central pile: it cannot be played again (G-M2)",
                    card=card,
                ),
                "G-M2",
            )
    elif card not in state["hands"][seat]:
        raise _refuse(
            "not-in-hand",
            Message("%(card)s is not in %(seat)s's hand", card=card, seat=seat),
            "HV-T1",
        )
    if based_on is None and not table:
        raise _malformed(
            Message('a play names the top card it aims at: "based_on" (HV-T3)'), rule="HV-T3"
        )
    if based_on is not None and based_on != top_entry(state)["card"]:
        raise _stale(state, based_on)
    if turned and not state["options"]["allow_turning"]:
        raise _refuse(
            "turning-not-allowed",
            Message(
                "%(card)s must be laid upright: this game does not allow turning cards "
                "(allow_turning: false, HV-T1)",
                card=card,
            ),
            "HV-T1",
        )
    top_laid, rule = top_halves(state), state["options"]["match"]
    if not matches(top_laid, laid(card, turned), rule):
        params = {"card": card_code(laid(card, turned)), "top": card_code(top_laid), "match": rule}
        if state["options"]["allow_turning"] and matches(top_laid, laid(card, not turned), rule):
            raise _refuse(
                "no-match",
                Message(
                    "%(card)s does not match the top card %(top)s, but would the other way "
                    "round (HV-T1, match: %(match)s)",
                    **params,
                ),
                "HV-T1",
            )
        raise _refuse(
            "no-match",
            Message(
                "%(card)s does not match the top card %(top)s (HV-T1, match: %(match)s)", **params
            ),
            "HV-T1",
        )
    events: list[Event] = []
    state = emit(
        events,
        state,
        {
            "type": "played",
            "seat": seat,
            "card": card,
            "turned": turned,
            "based_on": top_entry(state)["card"],
        },
    )
    state = check_out(events, state, seat)
    if not table:
        resolve_block(events, state)
    return events


def _do_draw(
    state: HalvesState, seat: str, action: Mapping[str, Any], fields: _Fields
) -> list[Event]:
    """HV-T2: one card from the seat's own pile into its hand, at most 4 in hand."""
    if len(state["hands"][seat]) >= HAND:
        raise _refuse(
            "hand-full",
            Message("%(seat)s already holds %(count)s cards (HV-T2)", seat=seat, count=HAND),
            "HV-T2",
        )
    if not state["piles"][seat]:
        raise _refuse("pile-empty", Message("%(seat)s's pile is empty (HV-T2)", seat=seat), "HV-T2")
    return [{"type": "drawn", "seat": seat, "card": state["piles"][seat][0], "top_up": False}]


def _do_retire(
    state: HalvesState, seat: str, action: Mapping[str, Any], fields: _Fields
) -> list[Event]:
    """HV-T6: the seat's cards leave play; it cannot win; one seat left wins."""
    events: list[Event] = []
    state = emit(
        events, state, {"type": "seat-retired", "seat": seat, "cards": cards_left(state, seat)}
    )
    left = active_seats(state)
    if len(left) == 1:
        end(events, state, "last-seat", left)
    elif state["options"]["dealing"] == "server" and state["phase"] == "play":
        resolve_block(events, state)
    return events


def _do_deal(state: HalvesState, action: Mapping[str, Any], fields: _Fields) -> list[Event]:
    """HV-M1/HV-P1/HV-P2 (table mode): the deal (equal counts, leftovers in the box)
    and the starting card first_seat turned from its pile, as the referee saw it."""
    events: list[Event] = []
    share = len(state["box"]) // len(state["seats"])
    for each in state["seats"]:
        state = emit(events, state, {"type": "dealt", "seat": each, "count": share})
    emit(
        events,
        state,
        pile_turn(state, state["options"]["first_seat"], fields["card"], fields["turned"], "HV-P2"),
    )
    return events


def _do_blocked(state: HalvesState, action: Mapping[str, Any], fields: _Fields) -> list[Event]:
    """HV-T4/HV-T5 (table mode): the referee reports that nobody can play; the
    service records the step the rules prescribe (see :func:`block_step`). A pile
    turn needs the card the seat turned (``card``); no other step takes one."""
    turner = None if top_ups(state) or bottom_moves_can_help(state) else next_pile_turner(state)
    if turner is not None and "card" not in fields:
        raise _malformed(
            Message(
                'a pile turn is due: report the card %(seat)s turned from its pile: "card" (HV-T5)',
                seat=turner,
            ),
            "card-required",
            "HV-T5",
        )
    if turner is None and "card" in fields:
        raise _malformed(
            Message(
                "no pile turn is due now (top-ups, a bottom-card move or "
                "the end come first): send no card (HV-T4)"
            ),
            rule="HV-T4",
        )
    if "card" in fields and fields["card"] in public_cards(state):
        raise _refuse(
            "card-not-available",
            Message("%(card)s is already in the central pile (G-M2)", card=fields["card"]),
            "G-M2",
        )
    events: list[Event] = []
    block_step(events, state, fields.get("card"), fields.get("turned", False))
    return events


# a seat's action (by the seat, or by the referee for it: HV-M1, HV-T6)
_SEAT_HANDLERS: dict[str, Callable[[HalvesState, str, Mapping[str, Any], _Fields], list[Event]]] = {
    "play": _do_play,
    "draw": _do_draw,
    "retire": _do_retire,
}
# a report of the referee that names no seat (table mode, HV-M1)
_REPORT_HANDLERS: dict[str, Callable[[HalvesState, Mapping[str, Any], _Fields], list[Event]]] = {
    "deal": _do_deal,
    "blocked": _do_blocked,
}
_HANDLERS = {*_SEAT_HANDLERS, *_REPORT_HANDLERS}  # every action type


def _check_phase(state: HalvesState, kind: str, seat: str | None) -> None:
    """409s that depend on the phase and the seat (after game-over)."""
    table = state["options"]["dealing"] == "table"
    if kind in _TABLE_ONLY and not table:
        raise _refuse(
            "not-table-mode",
            Message("in server mode the service itself deals (HV-M1)")
            if kind == "deal"
            else Message("in server mode the service itself detects a block (HV-M1)"),
            "HV-M1",
        )
    if kind == "deal" and state["phase"] != "deal":
        raise _refuse("already-dealt", Message("the deal has been reported (HV-M1)"), "HV-M1")
    if kind != "deal" and state["phase"] == "deal":
        raise _refuse(
            "deal-not-reported",
            Message("report the deal and the starting card first (HV-M1, HV-P2)"),
            "HV-M1",
        )
    if seat is not None and seat in state["retired"]:
        raise _refuse(
            "seat-retired", Message("%(seat)s has left the game (HV-T6)", seat=seat), "HV-T6"
        )


def apply(state: HalvesState, actor: str, action: Any) -> list[Event]:
    """The events ``action`` by ``actor`` (a seat ``p1``.. or ``"referee"``) causes;
    never mutates ``state``.

    Refusals (RuleViolation, each naming its rule): 422 for malformed actions
    (``invalid-action``, ``invalid-card``, ``invalid-seat``, ``seat-required``,
    ``card-required``); 403 for who may send what (``referee-only``,
    ``referee-not-allowed``, ``referee-reports``, ``not-your-seat``); 409 from the
    state, ``game-over`` first (so it wins over ``stale-top-card``, HV-T3; citing the
    rule that ended the game: HV-E1, HV-T5 or HV-T6), then
    ``not-table-mode``, ``already-dealt``, ``deal-not-reported``, ``seat-retired``,
    ``not-in-hand``, ``hand-empty``, ``card-not-available``, ``stale-top-card`` (with
    the current ``top``), ``turning-not-allowed``, ``no-match``, ``hand-full``,
    ``pile-empty``. A seat's refusal depends only on what the seat can see.
    """
    if not isinstance(action, dict):
        raise _malformed(Message("an action is a JSON object with a 'type'"))
    kind = action.get("type")
    if kind not in _HANDLERS:
        raise _malformed(
            Message(
                "unknown action type %(type)s (one of %(types)s)",
                type=repr(kind),
                types=", ".join(sorted(_HANDLERS)),
            )
        )
    if kind == "play" and ("cards" in action or isinstance(action.get("card"), list)):
        raise _malformed(
            Message("one card per play: send each card as a play of its own (HV-T2)"), rule="HV-T2"
        )
    extra = sorted(set(action) - _ALWAYS - _ACTION_KEYS[kind])
    if extra:
        raise _malformed(
            Message(
                "unknown field %(field)s in a %(type)s action", field=repr(extra[0]), type=kind
            ),
            rule=_ACTION_RULES[kind],
        )
    fields = _parse(state, kind, action)
    seat = _acting_seat(state, actor, action, kind)
    if state["status"] != "active":
        result = state["result"]
        raise _refuse(
            "game-over",
            Message("the game is over"),
            "HV-E1" if result is None else _ENDED_BY.get(result["reason"], "HV-E1"),
        )
    _check_phase(state, kind, seat)
    if seat is None:  # only a deal or block report names no seat (_acting_seat)
        return _REPORT_HANDLERS[kind](state, action, fields)
    return _SEAT_HANDLERS[kind](state, seat, action, fields)

"""The Solitaire Frenzy race (RULES.md §5): ``apply`` reads an action, checks who acts
and for which round (SF-E1, G-M1), hands it to the seat's or the referee's handler,
then settles what follows in the same transaction (going out, nobody able to move)."""

from __future__ import annotations

from typing import Any

from service.games import RuleViolation
from service.games.solitaire_frenzy.cards import REFEREE
from service.games.solitaire_frenzy.errors import is_int, malformed, refuse
from service.games.solitaire_frenzy.fold import fold_all
from service.games.solitaire_frenzy.hand import do_turn
from service.games.solitaire_frenzy.referee import REFEREE_HANDLERS
from service.games.solitaire_frenzy.rounds import settle
from service.games.solitaire_frenzy.state import Action, Event, FrenzyState
from service.games.solitaire_frenzy.tableau import do_move, do_play, do_refill
from service.messages import Message

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
_RULE_OF = {
    "turn": "SF-H1",
    "play": "SF-P2",
    "move": "SF-R2",
    "refill": "SF-R4",
    "retire": "SF-E3",
    "record-round": "SF-M1",
}
_SEAT_HANDLERS = {"turn": do_turn, "play": do_play, "move": do_move, "refill": do_refill}


def _mode_rule(state: FrenzyState) -> str:
    """G-M1 (server dealing) or G-M2 (table dealing): who may act, and how."""
    return "G-M2" if state["options"]["dealing"] == "table" else "G-M1"


def _check_round(state: FrenzyState, action: Action) -> None:
    """The action's ``round``: required, from 1 (else ``invalid-round``, SF-E2); an
    ended round is ``round-over`` (SF-E1, before anything else, so a late play is never
    judged against a new deal); a round not yet started is ``invalid-round``."""
    number = action.get("round")
    if not is_int(number):
        raise malformed(
            Message('name the round the action is for: "round" (an integer)'), rule="SF-E1"
        )
    if number < 1:  # no round was ever numbered so: not a late play, a wrong number
        raise malformed(
            Message(
                "rounds are numbered from 1; this is round %(current)s", current=state["round"]
            ),
            "invalid-round",
            "SF-E2",
        )
    if number < state["round"] or (number == state["round"] and state["status"] != "active"):
        # G-R1: the rule that ended the round: SF-E3 when the last seat left ended the
        # game with it, else SF-E1 (a seat went out, or no seat could move)
        result = state["result"]
        left = (
            number == state["round"] and result is not None and result.get("reason") == "last-seat"
        )
        raise refuse(
            "round-over",
            Message("round %(round)s is over: nothing more can be played in it", round=number),
            "SF-E3" if left else "SF-E1",
        )
    if number > state["round"] and state["status"] == "active":
        raise malformed(
            Message(
                "round %(round)s has not started; this is round %(current)s",
                round=number,
                current=state["round"],
            ),
            "invalid-round",
            "SF-E2",
        )


def _acting_seat(state: FrenzyState, actor: str, action: Action) -> str:
    """The seat a seat action is for. 403 when the referee plays, or a seat names
    another; 409 in table mode or for a retired seat."""
    if actor == REFEREE:
        raise RuleViolation(
            "referee-not-allowed",
            Message("the referee does not play a seat's cards; seats make their own moves"),
            403,
            _mode_rule(state),
        )
    if actor not in state["seats"]:
        raise RuleViolation(
            "unknown-actor",
            Message("%(actor)s is not a seat of this game", actor=repr(actor)),
            403,
            _mode_rule(state),
        )
    if action.get("seat", actor) != actor:
        raise RuleViolation(
            "not-your-seat",
            Message("%(seat)s may not act for %(other)s", seat=actor, other=repr(action["seat"])),
            403,
            _mode_rule(state),
        )
    if state["options"]["dealing"] == "table":
        raise refuse(
            "table-mode",
            Message(
                "in table mode the cards are physical: the "
                "referee records each round's result "
                "(record-round)"
            ),
            "SF-M1",
        )
    if actor not in state["active"]:
        raise refuse("seat-retired", Message("%(seat)s has left the table", seat=actor), "SF-E3")
    return actor


def apply(state: FrenzyState, actor: str, action: Any) -> list[Event]:
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
    ``pile-complete``, ``unknown-pile``, ``stale-top-card``,
    ``not-pile-top``, ``nothing-to-turn``, ``play-order``, ``seat-retired``...).
    """
    if not isinstance(action, dict):
        raise malformed(Message("an action is a JSON object with a 'type'"), rule="G-R1")
    kind = action.get("type")
    if kind not in _FIELDS:
        raise malformed(
            Message(
                "unknown action type %(type)s (one of %(types)s)",
                type=repr(kind),
                types=", ".join(sorted(_FIELDS)),
            ),
            rule="G-R1",
        )
    try:
        return _apply(state, actor, action, kind)
    except RuleViolation as error:
        if error.status == 422 and error.rule is None:
            error.rule = _RULE_OF[kind]
        raise


def _apply(state: FrenzyState, actor: str, action: Action, kind: str) -> list[Event]:
    allowed = _FIELDS[kind] | {"type", "expected_version"}
    allowed |= {"round"} if kind in _ROUND_ACTIONS else set()
    allowed |= {"seat"} if kind in _SEAT_ACTIONS else set()
    extra = sorted(set(action) - allowed)
    if extra:
        raise malformed(
            Message("unknown field %(field)s in a %(type)s action", field=repr(extra[0]), type=kind)
        )
    if kind in _ROUND_ACTIONS:
        _check_round(state, action)
    if state["status"] != "active":  # G-R1: the rule that ended this game
        result = state["result"]
        ended_by = "SF-E3" if result and result.get("reason") == "last-seat" else "SF-E2"
        raise refuse("game-over", Message("the game is over"), ended_by)
    if kind in _REFEREE_ACTIONS:
        if actor != REFEREE:
            raise RuleViolation(
                "referee-only",
                Message("only the referee may %(type)s (%(rule)s)", type=kind, rule=_RULE_OF[kind]),
                403,
                _RULE_OF[kind],
            )
        return REFEREE_HANDLERS[kind](state, action)
    seat = _acting_seat(state, actor, action)
    events: list[Event] = []
    _SEAT_HANDLERS[kind](events, state, seat, action)
    settle(events, fold_all(state, events))
    return events

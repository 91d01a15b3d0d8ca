"""Games in flight move to the one vocabulary: event names, end events, snapshots.

The release of issue 7 renamed the events that mean the same thing in every game
(2-Way Cards ``deal``/``place``/``draw``/``discard`` -> ``dealt``/``placed``/``drawn``/
``discarded``; Sequence ``cards-dealt``/``card-drawn``/``chip-placed``/
``game-finished`` -> ``dealt``/``drawn``/``placed``/``game-ended``, a deal card
reported at a table -> ``dealt`` ``{"cards": [card]}``), gave every game's end event
one payload (``game-ended`` ``{"result": RESULT}``, service/games/__init__.py), and
changed the snapshots (``result``; 2-Way Cards ``first_seat``; Sequence ``stalemate``,
``deck_cards``, ``conflicts``). So that every stored game goes on to its end:

upgrade
    For each 2-Way Cards, Sequence and Sequence Numbers game: its events are rewritten
    in place (the pure translation below, frozen here); the append-only trigger is
    dropped for the rewrite and created again in the same transaction. The options
    of ``game-created`` keep the rulings the game was created under: 2-Way Cards
    ``first_player`` is named ``first_seat`` (its ``win_condition``, stored since
    creation, stays); a Sequence game gets ``stalemate: most_sequences``, the ending
    it was created under (a stalemate then named the side with more sequences).
    Rulings without an option apply from now on (TW-T3: a wrong declaration uses up
    no length; SQ-E1 (b): a round of passes is counted on the public record; G-M2).
    Then the snapshot (and ``games.options``) is rebuilt by folding the rewritten
    events with the engines of the code being installed, so it is exactly what they
    derive (``GameStore.replay`` matches).

downgrade
    The reverse translation of the events, and the snapshots translated back to the
    previous release's shape. What that release cannot represent is lost: a
    Sequence ``drawn`` event's ``conflict`` mark (G-M2; its fold would then refuse the
    event, so a table game with a conflicting report cannot be downgraded and the
    downgrade stops with an error naming it), a 2-Way Cards game's TW-T3 lengths
    refused again by the previous release for the rest of the current turn (rebuilt
    from the turn's declarations), and the new Sequence option ``stalemate``.

Stop every worker of the previous release before upgrading (as ``make serve`` does).

Revision ID: 0003_one_vocabulary
Revises: 0002_games_last_seq
Create Date: 2025-12-08
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003_one_vocabulary"
down_revision: str | None = "0002_games_last_seq"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSONType = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
GAMES = ("two-way", "sequence", "sequence-numbers")
_games = sa.table("games", sa.column("id", sa.String), sa.column("game", sa.String),
                  sa.column("options", JSONType), sa.column("snapshot", JSONType),
                  sa.column("seed", sa.String))
_events = sa.table("events", sa.column("game_id", sa.String), sa.column("seq", sa.Integer),
                   sa.column("type", sa.String), sa.column("seat", sa.String),
                   sa.column("payload", JSONType))

# the append-only trigger of 0001 (its PostgreSQL function stays)
_SQLITE_TRIGGER = """
CREATE TRIGGER events_append_only BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END
"""
_PG_TRIGGER = """
CREATE TRIGGER events_append_only BEFORE UPDATE ON events
FOR EACH ROW EXECUTE FUNCTION events_append_only()
"""

Event = dict[str, Any]
TWO_WAY_NAMES = {"deal": "dealt", "place": "placed", "draw": "drawn", "discard": "discarded"}
SEQUENCE_NAMES = {"cards-dealt": "dealt", "card-drawn": "drawn", "chip-placed": "placed"}


# ----- the translation (pure; frozen with this revision) ---------------------------


def _renamed(event: Event, names: dict[str, str]) -> Event:
    return {**event, "type": names.get(event["type"], event["type"])}


def two_way_up(events: list[Event]) -> list[Event]:
    """2-Way Cards events of the previous release in the new vocabulary."""
    out = []
    for event in events:
        kind = event["type"]
        if kind == "game-created":
            options = dict(event["options"])
            options["first_seat"] = options.pop("first_player")
            event = {**event, "options": options}
        elif kind == "game-ended":
            winner = event["winner"]
            event = {"type": "game-ended", "seat": None, "result": {
                "winners": [] if winner is None else [winner], "scores": event["scores"],
                "reason": event["reason"], "two_way": {"completer": event["completer"]}}}
        out.append(_renamed(event, TWO_WAY_NAMES))
    return out


def two_way_down(events: list[Event]) -> list[Event]:
    """The reverse of :func:`two_way_up`."""
    back = {new: old for old, new in TWO_WAY_NAMES.items()}
    out = []
    for event in events:
        kind = event["type"]
        if kind == "game-created":
            options = dict(event["options"])
            options["first_player"] = options.pop("first_seat")
            event = {**event, "options": options}
        elif kind == "game-ended":
            result = event["result"]
            winner = result["winners"][0] if result["winners"] else None
            event = {"type": "game-ended", "seat": None, "by": None,
                     "reason": result["reason"], "scores": result["scores"],
                     "winner": winner, "result": "draw" if winner is None else "win",
                     "completer": result["two_way"]["completer"]}
        out.append(_renamed(event, back))
    return out


def sequence_up(events: list[Event]) -> list[Event]:
    """Sequence / Sequence Numbers events of the previous release in the new
    vocabulary (a card reported before the first turn was dealt)."""
    out: list[Event] = []
    teams = sides = None
    dealing = True
    for event in events:
        kind = event["type"]
        if kind == "game-created":
            teams, sides = event["teams"], event["sides"]
            event = {**event, "options": {**event["options"], "stalemate": "most_sequences"}}
        elif kind == "turn-started":
            dealing = False
        elif kind == "card-drawn" and dealing:
            event = {"type": "dealt", "seat": event["seat"], "cards": [event["card"]]}
        elif kind == "game-finished":
            side, counts = event["winner"], event["sequences"]
            event = {"type": "game-ended", "seat": None, "result": {
                "winners": list(teams[side]) if side else [],
                "scores": {seat: counts[sides[seat]] for seat in sides},
                "reason": event["reason"],
                "sequence": {"winning_side": side, "sequences": counts}}}
        out.append(_renamed(event, SEQUENCE_NAMES))
    return out


def sequence_down(events: list[Event], seed: str) -> list[Event]:
    """The reverse of :func:`sequence_up` (``seed``: the game's, which the previous
    release's end event carried). Raises ValueError for a conflicting report."""
    out: list[Event] = []
    table = False
    for event in events:
        kind = event["type"]
        if event.get("conflict"):
            raise ValueError("a table-mode report conflicting with the deck (G-M2)")
        if kind == "game-created":
            table = event["options"]["dealing"] == "table"
            options = {k: v for k, v in event["options"].items() if k != "stalemate"}
            event = {**event, "options": options}
        elif kind == "dealt" and table:
            event = {"type": "card-drawn", "seat": event["seat"], "card": event["cards"][0]}
        elif kind == "game-ended":
            result = event["result"]
            event = {"type": "game-finished", "seat": None,
                     "winner": result["sequence"]["winning_side"], "reason": result["reason"],
                     "sequences": result["sequence"]["sequences"], "seed": seed}
        out.append(_renamed(event, {new: old for old, new in SEQUENCE_NAMES.items()}))
    return out


def two_way_snapshot_down(state: dict, events: list[Event]) -> dict:
    """The previous release's 2-Way Cards snapshot (``events``: the game's, old names)."""
    old = {k: v for k, v in state.items() if k != "result"}
    options = dict(state["options"])
    options["first_player"] = options.pop("first_seat")
    result = state["result"]
    winner = result["winners"][0] if result and result["winners"] else None
    old.update(options=options, winner=winner,
               result=None if result is None else "draw" if winner is None else "win",
               end_reason=None if result is None else result["reason"],
               completer=None if result is None else result["two_way"]["completer"],
               declared_this_turn=_lengths_this_turn(events))
    return old


def _lengths_this_turn(events: list[Event]) -> list[int]:
    """The lengths declared (correctly or not) since the last turn began."""
    lengths: list[int] = []
    for event in reversed(events):
        if event["type"] in ("deal", "discard", "turn-skipped"):
            break
        if event["type"] in ("declared", "declaration-rejected"):
            lengths.insert(0, len(event["cells"]))
    return lengths


def sequence_snapshot_down(state: dict) -> dict:
    """The previous release's Sequence snapshot."""
    old = {k: v for k, v in state.items() if k not in ("deck_cards", "conflicts")}
    old["options"] = {k: v for k, v in state["options"].items() if k != "stalemate"}
    result = state["result"]
    if result is not None:
        old["result"] = {"winner": result["sequence"]["winning_side"],
                         "reason": result["reason"],
                         "sequences": result["sequence"]["sequences"]}
    return old


# ----- the rewrite -----------------------------------------------------------------


def _games_and_events(connection: sa.Connection) -> Iterable[tuple[Any, list[Event]]]:
    """Each game of the three kinds with its events ``{"seq", "type", "seat", ...}``."""
    games = connection.execute(sa.select(_games.c.id, _games.c.game, _games.c.seed)
                               .where(_games.c.game.in_(GAMES)).order_by(_games.c.id)).all()
    for game in games:
        rows = connection.execute(
            sa.select(_events.c.seq, _events.c.type, _events.c.seat, _events.c.payload)
            .where(_events.c.game_id == game.id).order_by(_events.c.seq))
        yield game, [{"seq": r.seq, "type": r.type, "seat": r.seat, **r.payload} for r in rows]


def _without_seq(events: list[Event]) -> list[Event]:
    return [{k: v for k, v in e.items() if k != "seq"} for e in events]


def _store_events(connection: sa.Connection, game_id: str, before: list[Event],
                  after: list[Event]) -> None:
    """UPDATE the rows whose type or payload changed (``before`` carries the seqs)."""
    for old, new in zip(before, after, strict=True):
        row = {k: v for k, v in old.items() if k != "seq"}
        if row != new:
            payload = {k: v for k, v in new.items() if k not in ("type", "seat")}
            connection.execute(sa.update(_events)
                               .where(_events.c.game_id == game_id,
                                      _events.c.seq == old["seq"])
                               .values(type=new["type"], payload=payload))


def _store_snapshot(connection: sa.Connection, game_id: str, state: dict) -> None:
    connection.execute(sa.update(_games).where(_games.c.id == game_id)
                       .values(snapshot=state, options=state["options"]))


def _drop_trigger(dialect: str) -> None:
    if dialect == "postgresql":
        op.execute("DROP TRIGGER events_append_only ON events")
    elif dialect == "sqlite":
        op.execute("DROP TRIGGER events_append_only")


def _create_trigger(dialect: str) -> None:
    if dialect == "postgresql":
        op.execute(_PG_TRIGGER)
    elif dialect == "sqlite":
        op.execute(_SQLITE_TRIGGER)


def upgrade() -> None:
    from service.games import engine  # the engines of the code being installed

    connection = op.get_bind()
    _drop_trigger(connection.dialect.name)
    for game, stored in _games_and_events(connection):
        events = _without_seq(stored)
        new = two_way_up(events) if game.game == "two-way" else sequence_up(events)
        _store_events(connection, game.id, stored, new)
        state = None
        for event in new:
            state = engine(game.game).fold(state, event)
        _store_snapshot(connection, game.id, state)
    _create_trigger(connection.dialect.name)


def downgrade() -> None:
    connection = op.get_bind()
    _drop_trigger(connection.dialect.name)
    for game, stored in _games_and_events(connection):
        events = _without_seq(stored)
        snapshot = connection.execute(sa.select(_games.c.snapshot)
                                      .where(_games.c.id == game.id)).scalar_one()
        if game.game == "two-way":
            old = two_way_down(events)
            state = two_way_snapshot_down(snapshot, old)
        else:
            try:
                old = sequence_down(events, game.seed)
            except ValueError as error:
                raise RuntimeError(f"game {game.id} cannot be downgraded: {error}") from None
            state = sequence_snapshot_down(snapshot)
        _store_events(connection, game.id, stored, old)
        _store_snapshot(connection, game.id, state)
    _create_trigger(connection.dialect.name)

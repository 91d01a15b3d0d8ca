"""SF-T1 over real HTTP: gunicorn with 4 workers on SQLite and on PostgreSQL, 4 seats'
clients racing Solitaire Frenzy games (two side by side, three rounds each) for at
least 2,000 play POSTs.

Besides the invariants of every raced game (tests/realtime.py: no 5xx, clean 409s with
their rule, nothing lost or doubled, the log gapless, replay equals snapshot), for
Solitaire Frenzy, checked at every version (after every stored event):

* no card is ever on two piles or twice on one: every foundation is an Ace-up run of
  its suit, and each seat's card is on the board at most once;
* each seat's 52 cards are conserved (layout + its cards on the board);
* every accepted foundation play was aimed at the top it landed on (``based_on``), and
  the accepted play replies are exactly the ``played`` events;
* every stale refusal names the current top of the pile, which is not the one aimed
  at; a late play of an ended round is ``round-over``;
* SF-E1: after every accepted action the round is over or some active seat can move.
"""

from __future__ import annotations

from collections import Counter

import pytest

from realtime import BACKENDS, check_race, check_served, race
from service.cards import DECK, RANKS
from service.games import solitaire_frenzy as sf

pytestmark = pytest.mark.slow

PLAYS = 2000
REFUSALS = {"stale-top-card", "round-over"}


def check_frenzy_log(events: list[dict], boundaries: set[int]) -> dict:
    """Fold the stored events one by one, asserting the module docstring's invariants;
    ``boundaries``: the seq of each accepted action's last event. Returns the state."""
    state = None
    for seq, event in enumerate(events, 1):
        if (
            event["type"] == "played"
            and event["to"] == "foundation"
            and event["based_on"] != sf.NEW
        ):
            pile = next(p for p in state["foundations"] if p["id"] == event["pile"])
            assert pile["cards"][-1]["card"] == event["based_on"], (seq, event)
        state = sf.fold(state, event)
        on_board = Counter()
        for pile in state["foundations"]:
            cards = [entry["card"] for entry in pile["cards"]]
            assert cards == [r + pile["suit"] for r in RANKS[: len(cards)]], (seq, pile)
            on_board.update((e["seat"], e["card"]) for e in pile["cards"])
        assert max(on_board.values(), default=1) == 1, (seq, "a card on the board twice")
        for seat in state["active"]:
            layout = state["layouts"][seat]
            if layout is None:  # between round-started and its dealt event
                continue
            held = (
                layout["pile"]
                + sum(layout["columns"], [])
                + layout["hand"]
                + layout["waste"]
                + [card for s, card in on_board if s == seat]
            )
            assert sorted(held) == sorted(DECK), (seq, seat)
        if seq in boundaries and state["status"] == "active":
            assert any(sf.can_move(state, s) for s in state["active"]), seq
    assert state["status"] == "finished"
    return state


@pytest.mark.parametrize("backend", BACKENDS)
def test_sf_t1_four_seats_race_over_four_workers(backend, gunicorn_server):
    options = {"players": 4}
    server = gunicorn_server(backend)
    start = server.log_end()
    log = race(server.base, sf.GAME, options, plays=PLAYS, at_once=2)
    logs = check_race(server.url, log, REFUSALS)
    server_log = server.log_since(start)
    stats = log.stats
    print(f"{backend}: {stats.summary()}")
    assert "Traceback" not in server_log and "database is locked" not in server_log
    check_served(server_log, log)
    assert stats.posts["play"] >= PLAYS
    assert stats.refused["stale-top-card"] >= 20, "the seats did race"
    for run in log.runs:
        accepted = log.accepted(run.id)
        check_frenzy_log(logs[run.id], {p.reply.body["events"][-1]["seq"] for p in accepted})
        played = [e for e in logs[run.id] if e["type"] == "played"]
        assert Counter(
            (p.seat, p.action["card"])
            for p in accepted
            if p.action["type"] == "play" and p.reply.body["events"][0]["type"] == "played"
        ) == Counter((e["seat"], e["card"]) for e in played)
        for post in log.posts:
            body = post.reply.body
            if post.game_id == run.id and post.reply.status == 409:
                if body["code"] == "stale-top-card":
                    assert body["rule"] == "SF-T1" and body["top"]["pile"] == post.action["pile"]
                    assert body["top"]["card"] != post.action["based_on"]
                else:
                    assert body["rule"] == "SF-E1"

"""HV-T3 over real HTTP: gunicorn with 4 workers on SQLite and on PostgreSQL, 6 seats'
clients racing on Halves games (two games side by side) for at least 2,000 play POSTs.

Besides the invariants of every raced game (tests/realtime.py: no 5xx, clean 409s,
nothing lost or doubled, the log gapless, replay equals snapshot), for Halves:

* exactly one accepted play per top card: every ``played`` event names as
  ``based_on`` the card on top when it was recorded, and no top (each time a card
  became the top) took two plays; the accepted play replies are exactly the
  ``played`` events;
* every stale refusal names a current top other than the one the play aimed at, and
  its card stayed in the seat's hand (it is played or still held later, never lost);
* card conservation at every version: centre + hands + piles + box = 72 after every
  stored event, and in every view a client got back;
* the HV-T4/HV-T5 invariant: after every accepted action, the game is over or some
  active seat can play.
"""

from __future__ import annotations

from collections import Counter

import pytest

from realtime import BACKENDS, check_race, check_served, race
from service.games import halves

pytestmark = pytest.mark.slow

PLAYS = 2000
REFUSALS = {"stale-top-card", "game-over", "hand-full", "pile-empty"}


def _conserved(view: dict) -> int:
    return (
        view["central_pile"]
        + sum(view["hand_counts"].values())
        + sum(view["pile_counts"].values())
        + view["box"]
    )


def check_halves_log(events: list[dict], boundaries: set[int]) -> dict:
    """Fold the stored events one by one, asserting conservation after each, one play
    per top, and at each accepted action's last event (``boundaries``) that the game
    is over or some active seat can play (HV-T4/HV-T5). Returns the final state."""
    state, became_top, covered = None, None, set()
    for seq, event in enumerate(events, 1):
        if event["type"] == "played":
            assert event["based_on"] == halves.top(state)["card"]
            assert became_top not in covered, f"two plays on the top of seq {became_top}"
            covered.add(became_top)
        state = halves.fold(state, event)
        if event["type"] in ("played", "pile-turned", "bottom-card-moved"):
            became_top = seq
        total = (
            len(state["centre"])
            + len(state["box"])
            + sum(len(h) for h in state["hands"].values())
            + sum(len(p) for p in state["piles"].values())
        )
        assert total == len(halves.DEFAULT_DECK) == 72, (seq, total)
        if seq in boundaries and state["status"] == "active":
            assert any(halves.can_play(state, s) for s in halves.active_seats(state)), seq
    assert state["status"] == "finished"
    return state


@pytest.mark.parametrize("backend", BACKENDS)
def test_hv_t3_six_seats_race_over_four_workers(backend, gunicorn_server):
    options = {"players": 6}
    server = gunicorn_server(backend)
    start = server.log_end()
    log = race(server.base, "halves", options, plays=PLAYS, at_once=2)
    logs = check_race(server.url, log, REFUSALS)
    server_log = server.log_since(start)
    stats = log.stats
    print(f"{backend}: {stats.summary()}")
    assert "Traceback" not in server_log and "database is locked" not in server_log
    check_served(server_log, log)
    assert stats.posts["play"] >= PLAYS
    assert stats.refused["stale-top-card"] >= 100, "the seats did race"
    for run in log.runs:
        accepted = log.accepted(run.id)
        final = check_halves_log(
            logs[run.id], {p.reply.body["events"][-1]["seq"] for p in accepted}
        )
        plays = [e for e in logs[run.id] if e["type"] == "played"]
        assert Counter(
            (p.seat, p.action["card"]) for p in accepted if p.action["type"] == "play"
        ) == Counter((e["seat"], e["card"]) for e in plays)
        assert all(_conserved(p.reply.body["view"]) == 72 for p in accepted)
        for post in log.posts:
            body = post.reply.body
            if (
                post.game_id == run.id
                and post.reply.status == 409
                and body["code"] == "stale-top-card"
            ):
                assert body["rule"] == "HV-T3"
                assert body["top"]["card"] != post.action["based_on"]
                # the refused card stayed with its seat: played later, or still held
                card = post.action["card"]
                assert card in final["hands"][post.seat] or {"seat": post.seat, "card": card} in [
                    {"seat": e["seat"], "card": e["card"]} for e in plays
                ]

"""Random Sequence / Sequence Numbers games driven through legal_actions (hypothesis).

Every game terminates (SQ-E1), and only for a reason SQ-E1 gives; every card is in
exactly one place (deck, a hand, a discard pile) after every event, and the deck or a
discard pile always holds one (SQ-E1 ruling); locked chips never change (SQ-S2, SN-S2);
no completed sequence is ever missed (the per-placement detection agrees with a full
rescan, SQ-S1/S4); apply never mutates its input; folding every event from None gives
the same state; views never show another seat's hand.
"""

import json
from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.games import sequence as sq
from service.games.sequence import turn

MAX_ACTIONS = 5000  # far above any game seen; the point is that the loop ends
SETUPS = [
    ("sequence", {}),
    ("sequence", {"players": 3}),
    ("sequence", {"players": 4}),
    ("sequence", {"players": 6, "sides": 3}),
    ("sequence", {"players": 12, "sides": 3}),
    ("sequence", {"players": 2, "dealing": "table"}),
    ("sequence", {"players": 4, "dealing": "table", "stalemate_decks": 1}),
    ("sequence-numbers", {}),
    ("sequence-numbers", {"players": 4}),
    ("sequence-numbers", {"players": 6, "sides": 3, "dealing": "table"}),
    ("sequence-numbers", {"players": 3, "stalemate": "most_sequences"}),
]


def composition(created):
    return Counter(created["deck"])


def cards_everywhere(state):
    total = Counter(state["deck"])
    for seat in state["seats"]:
        total.update(state["hands"][seat])
        total.update(state["discards"][seat])
    return total


def choose(state, rnd):
    """An (actor, action) from the legal actions; the referee's penalties rarely. In
    table mode the referee reports the cards drawn (a seat's own draw bodies list
    every card it cannot rule out, G-M2: tests/test_sequence_noninterference.py)."""
    seats = [
        (seat, [a for a in sq.legal_actions(state, seat) if a["type"] != "draw"])
        for seat in state["seats"]
    ]
    seats = [(seat, acts) for seat, acts in seats if acts]
    referee = sq.legal_actions(state, "referee")
    if referee and (not seats or rnd.random() < 0.08):
        return "referee", rnd.choice(referee)
    assert seats, "an active game where nobody can act"
    seat, acts = rnd.choice(seats)
    return seat, rnd.choice(acts)


def check_event_invariants(state, expected_cards, locked_before):
    """After every event: cards conserved, locked chips and sequences unchanged."""
    assert cards_everywhere(state) == expected_cards and state["conflicts"] == []
    assert sq.deck_count(state) + sum(map(len, state["discards"].values())) > 0
    chips = state["chips"]
    for seq in state["sequences"]:
        for r, c in seq["cells"]:
            assert chips[r][c] == seq["side"] or state["board"][r][c] == sq.FREE
    assert state["sequences"][: len(locked_before)] == locked_before


def check_nothing_missed(state):
    """After every action: a full rescan finds no sequence the detection missed."""
    for side in state["teams"]:
        assert sq.scan_sequences(state["board"], state["chips"], state["sequences"], side) == []


def play_out(game, options, seed, rnd):
    events = sq.new_game(game, options, seed)
    state = None
    for event in events:
        state = sq.fold(state, event)
    expected = composition(events[0])
    for _ in range(MAX_ACTIONS):
        if state["status"] != "active":
            break
        actor, action = choose(state, rnd)
        before = json.dumps(state, sort_keys=True)
        new_events = sq.apply(state, actor, action)
        assert json.dumps(state, sort_keys=True) == before
        assert new_events
        locked = list(state["sequences"])
        for event in new_events:
            state = sq.fold(state, event)
            check_event_invariants(state, expected, locked)
        check_nothing_missed(state)
        events += new_events
    return state, events


def check_why_it_ended(state):
    """SQ-E1 (b): nobody could play, remove, exchange a dead card or make an owed draw;
    (c): a stalemate only at a reshuffle after ``stalemate_decks`` barren decks with
    no open space, or after 4 x ``stalemate_decks`` whatever the board."""
    if state["result"]["reason"] == "no-legal-play":
        for seat in state["seats"]:
            assert not turn._plays(state, seat)
            assert not sq.can_exchange(state, seat, this_turn=False)
            assert seat not in state["pending_draws"] or not (
                state["deck"] or any(state["discards"].values())
            )
        return
    decks = state["options"]["stalemate_decks"]
    barren = state["barren"] + 1 if len(state["sequences"]) == state["mark"] else 0
    assert barren >= decks
    assert sq.board_closed(state) or barren >= 4 * decks


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=st.sampled_from(SETUPS),
    seed=st.binary(min_size=32, max_size=32),
    rnd=st.randoms(use_true_random=False),
)
def test_sq_e1_random_games_terminate_and_keep_every_invariant(setup, seed, rnd):
    game, options = setup
    state, events = play_out(game, options, seed.hex(), rnd)
    assert state["status"] == "finished", "game did not end within MAX_ACTIONS"
    result = state["result"]
    counts = {
        side: sum(1 for s in state["sequences"] if s["side"] == side) for side in state["teams"]
    }
    side = result["sequence"]["winning_side"]
    assert result["sequence"]["sequences"] == counts
    assert result["scores"] == {seat: counts[state["sides"][seat]] for seat in state["seats"]}
    assert result["winners"] == (state["teams"][side] if side else [])
    if result["reason"] == "sequences":
        assert counts[side] >= state["sequences_to_win"]
    else:
        assert result["reason"] in ("stalemate", "no-legal-play")
        check_why_it_ended(state)
        best = max(counts.values())
        leaders = [s for s, n in counts.items() if n == best]
        most = state["options"]["stalemate"] == "most_sequences" and len(leaders) == 1
        assert side == (leaders[0] if most else None)
        assert all(n < state["sequences_to_win"] for n in counts.values())
    replayed = None
    for event in events:
        replayed = sq.fold(replayed, event)
    assert replayed == state
    assert json.loads(json.dumps(state)) == state


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=st.sampled_from(SETUPS),
    seed=st.binary(min_size=32, max_size=32),
    rnd=st.randoms(use_true_random=False),
    stop=st.integers(min_value=0, max_value=60),
)
def test_views_and_event_views_never_leak_another_hand(setup, seed, rnd, stop):
    game, options = setup
    events = sq.new_game(game, options, seed.hex())
    state = None
    for event in events:
        state = sq.fold(state, event)
    for _ in range(stop):
        if state["status"] != "active":
            break
        actor, action = choose(state, rnd)
        for event in sq.apply(state, actor, action):
            state = sq.fold(state, event)
            events.append(event)
    public = sq.view(state, None)
    assert "seed" not in public or state["status"] == "finished"
    for seat in state["seats"]:
        seen = sq.view(state, seat)
        assert {k: v for k, v in seen.items() if k not in ("hand", "seat")} == public
        assert seen["hand"] == state["hands"][seat]
        for event in events:
            shown = sq.view_event(state, event, seat)
            if event["type"] in ("dealt", "drawn") and event["seat"] != seat:
                assert "card" not in shown and "cards" not in shown
            if event["type"] == "game-created" and state["status"] == "active":
                assert "seed" not in shown
    for action in (
        sq.legal_actions(state, "referee")
        + [a for seat in state["seats"] for a in sq.legal_actions(state, seat)][:40]
    ):
        assert json.loads(json.dumps(action)) == action

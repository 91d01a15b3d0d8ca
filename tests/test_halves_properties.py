"""Halves properties (hypothesis): every random game ends, and no seat learns what it
cannot see.

* Termination (HV-T4, HV-T5, HV-E1): random games through ``legal_actions`` (every
  seat and the referee acting at random, sometimes retiring a seat, HV-T6) end, in
  both dealing modes, for 2 to 14 players and every option; cards are conserved after
  every event; in server mode, after every action the game is over or some active
  seat can play; ``apply`` never changes its input; folding the log from None gives
  the same state.
* Non-interference (G-M1: nothing a seat receives depends on what it cannot see): two
  states that differ only in cards hidden from a seat (other seats' hands, every
  pile's order, the box) give that seat
  byte-identical views, legal actions and outcomes for every action it might send,
  refusals and their details included, whenever the rules reveal the same thing in
  both (the public consequences of the action, and the cards the seat itself draws).
  The block detection may differ between the two states only in what the rules make
  public: that a block happened, the bottom-card moves and pile turns, who drew how
  many; never which hidden cards failed to match.
"""

from __future__ import annotations

import copy
import json
import random

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from halves_helpers import conserved, fold_all
from service.games import RuleViolation, halves

REFEREE = "referee"
FAST = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])

seeds = st.binary(min_size=32, max_size=32).map(bytes.hex)
options = st.fixed_dictionaries(
    {
        "players": st.sampled_from([2, 3, 4, 6]) | st.integers(2, 14),
        "dealing": st.sampled_from(["server", "table"]),
        "match": st.sampled_from(["per_half", "whole_card", "any_half"]),
        "allow_turning": st.booleans(),
    }
)


def dumps(value) -> str:
    return json.dumps(value, sort_keys=True)


def random_step(
    state: dict, rng: random.Random, retire_rate: float, draws: bool = True
) -> tuple[str, dict]:
    """(actor, action): a random legal body of a random actor that has one; the
    referee's retire only with probability ``retire_rate``; a seat's voluntary draws
    only when ``draws`` (or when it has nothing else to do)."""
    choices = []
    for actor in [*state["seats"], REFEREE]:
        actions = halves.legal_actions(state, actor)
        if actor == REFEREE and rng.random() >= retire_rate:
            actions = [a for a in actions if a["type"] != "retire"]
        if not draws and any(a["type"] == "play" for a in actions):
            actions = [a for a in actions if a["type"] != "draw"]
        if actions:
            choices.append((actor, actions))
    assert choices, "an active game where nobody can act"
    actor, actions = rng.choice(choices)
    return actor, rng.choice(actions)


def is_block_step(event_: dict | None, top_up: bool = False) -> bool:
    """A step of HV-T4/HV-T5 (with ``top_up``: only a top-up draw)."""
    if event_ is None:
        return False
    if event_["type"] == "drawn":
        return event_["top_up"]
    return not top_up and (
        event_["type"] == "bottom-card-moved"
        or (event_["type"] == "pile-turned" and event_["rule"] == "HV-T5")
        or (event_["type"] == "game-ended" and event_["result"]["reason"] == "no-legal-play")
    )


@settings(FAST, max_examples=120)
@given(seed=seeds, options=options, choices=st.integers(0, 2**32), retire=st.booleans())
def test_hv_t5_every_random_game_ends_and_conserves_its_cards(seed, options, choices, retire):
    rng = random.Random(choices)
    events = halves.new_game("halves", options, seed)
    state = fold_all(events)
    server = options["dealing"] == "server"
    for _ in range(2000):
        if state["status"] != "active":
            break
        actor, action = random_step(state, rng, 0.01 if retire else 0.0)
        before = dumps(state)
        new = halves.apply(state, actor, action)
        assert dumps(state) == before, "apply changed its input"
        previous = None
        for one in new:
            if server and is_block_step(one) and not is_block_step(previous, top_up=True):
                # HV-T4: a block step only when no active seat can play on the top
                assert not any(halves.can_play(state, s) for s in halves.active_seats(state))
            state = halves.fold(state, one)
            assert conserved(state), one
            previous = one
        events += new
        if server and state["status"] == "active":
            assert any(halves.can_play(state, s) for s in halves.active_seats(state))
    assert state["status"] == "finished", "the game did not end"
    result = state["result"]
    assert result["reason"] in ("out", "no-legal-play", "last-seat")
    assert set(result["scores"]) == set(state["seats"]) and result["winners"]
    assert not set(result["winners"]) & set(state["retired"])
    if result["reason"] == "out":
        assert [result["scores"][w] for w in result["winners"]] == [1]
    assert dumps(fold_all(events)) == dumps(state)  # the log is the record
    event(f"{options['dealing']}: {result['reason']}")


# ----- non-interference ----------------------------------------------------------------

# which hidden cards the twin state shuffles: everything, or one kind at a time (then
# the rest agrees, so the rules reveal the same more often and more outcomes compare)
SCOPES = [
    {"others_hands", "others_piles", "own_pile", "box"},
    {"others_piles"},
    {"others_hands", "box"},
    {"own_pile"},
    {"others_hands", "others_piles"},
]


def hidden_slots(state: dict, seat: str, scope: set[str]) -> list[tuple[str, str | None, int]]:
    """The places of cards hidden from ``seat`` within ``scope``: (where, whose, index)."""
    slots = []
    for other in state["seats"]:
        if other != seat and "others_hands" in scope:
            slots += [("hands", other, i) for i in range(len(state["hands"][other]))]
        if "others_piles" in scope if other != seat else "own_pile" in scope:
            slots += [("piles", other, i) for i in range(len(state["piles"][other]))]
    if "box" in scope:
        slots += [("box", None, i) for i in range(len(state["box"]))]
    return slots


def reshuffled(state: dict, slots: list, rng: random.Random) -> dict:
    """``state`` with the cards of ``slots`` shuffled among those slots (counts kept)."""
    other = copy.deepcopy(state)

    def at(where, whose):
        return other[where] if whose is None else other[where][whose]

    cards = [at(w, o)[i] for w, o, i in slots]
    rng.shuffle(cards)
    for (where, whose, i), card in zip(slots, cards):
        at(where, whose)[i] = card
    return other


def probes(state: dict, seat: str) -> list[dict]:
    """Every action the seat might send: its legal ones, a play of every card of the
    deck (upright, and turned) aimed at the top and at another card, draw, the
    referee's and table reports, malformed bodies."""
    top = halves.top(state)["card"]
    elsewhere = next(c for c in state["deck"] if c != top)
    out = list(halves.legal_actions(state, seat))
    for card in state["deck"]:
        out.append({"type": "play", "card": card, "based_on": top})
        out.append({"type": "play", "card": card, "turned": True, "based_on": top})
        out.append({"type": "play", "card": card, "based_on": elsewhere})
    out += [
        {"type": "draw"},
        {"type": "retire", "seat": seat},
        {"type": "blocked"},
        {"type": "deal", "card": top},
        {"type": "play", "card": top},
        {"type": "draw", "seat": "p1"},
        {"type": "x"},
    ]
    return out


def outcome(state: dict, seat: str, action: dict) -> tuple[str, list | None, str]:
    """(what the seat receives, the rule-level projection of the raw events, state)."""
    try:
        events = halves.apply(state, seat, action)
    except RuleViolation as error:
        return dumps([error.status, error.code, error.detail, error.rule, error.extra]), [], ""
    after = fold_all(events, state)
    seen = [halves.view_event(after, e, seat) for e in events]
    # what the rules reveal to the seat: every event, less the cards other seats drew
    revealed = [
        {
            k: v
            for k, v in e.items()
            if not (k == "card" and e["type"] == "drawn" and e["seat"] != seat)
        }
        for e in events
    ]
    return dumps([seen, halves.view(after, seat)]), revealed, dumps(after)


def played_state(seed: str, options: dict, steps: int, rng: random.Random) -> dict:
    """A state reached by ``steps`` random legal actions from a server deal."""
    state = fold_all(halves.new_game("halves", options, seed))
    for _ in range(steps):
        if state["status"] != "active":
            break
        actor, action = random_step(state, rng, 0.0)
        state = fold_all(halves.apply(state, actor, action), state)
    return state


def random_position(seed: str, options: dict, rng: random.Random) -> dict:
    """A server-mode state in play with random short hands (0-4), piles (0-8, each
    seat holding 2+ cards) and centre (1-10): after a play, blocks, top-ups, bottom
    moves and pile turns are common here (they are rare in real play)."""
    state = copy.deepcopy(fold_all(halves.new_game("halves", options, seed)))
    cards = list(state["deck"])
    rng.shuffle(cards)
    for seat in state["seats"]:
        hand, pile = rng.choice((0, 1, 1, 2, 2, 3, 4)), rng.randint(0, 8)
        hand += max(0, 2 - hand - pile)
        state["hands"][seat], cards = cards[:hand], cards[hand:]
        state["piles"][seat], cards = cards[:pile], cards[pile:]
    size = rng.randint(1, 10)
    state["centre"] = [{"card": c, "turned": rng.random() < 0.5} for c in cards[:size]]
    state["box"] = cards[size:]
    state["streak"], state["turner"] = 0, rng.choice(state["seats"])
    return state


@settings(FAST, max_examples=300)
@given(
    seed=seeds,
    players=st.integers(2, 6),
    steps=st.integers(0, 60),
    choices=st.integers(0, 2**32),
    scope=st.sampled_from(SCOPES),
    strict=st.booleans(),
    positions=st.booleans(),
)
def test_g_m1_nothing_a_seat_receives_depends_on_cards_hidden_from_it(
    seed, players, steps, choices, scope, strict, positions
):
    """States come from random play, or (``positions``) are random positions where
    blocks are common, so their outcomes are compared too; ``strict`` is whole_card
    matching without turning."""
    rng = random.Random(choices)
    options = {
        "players": players,
        "match": "whole_card" if strict else "per_half",
        "allow_turning": not strict,
    }
    state = (
        random_position(seed, options, rng)
        if positions
        else played_state(seed, options, steps, rng)
    )
    seat = rng.choice(state["seats"])
    twin = reshuffled(state, hidden_slots(state, seat, scope), rng)
    assert conserved(twin)
    assert dumps(halves.view(state, seat)) == dumps(halves.view(twin, seat))
    assert dumps(halves.legal_actions(state, seat)) == dumps(halves.legal_actions(twin, seat))
    compared = differed = 0
    for action in probes(state, seat):
        mine, revealed, _ = outcome(state, seat, action)
        theirs, twin_revealed, _ = outcome(twin, seat, action)
        if revealed != twin_revealed:
            differed += 1  # the rules revealed different things (a block, a drawn card)
            continue
        compared += 1
        assert mine == theirs, (seat, action)
    assert compared > 0
    event(f"outcomes compared: {'all' if not differed else 'some'}")


@settings(FAST, max_examples=150)
@given(
    seed=seeds,
    players=st.integers(2, 6),
    choices=st.integers(0, 2**32),
    scope=st.sampled_from(SCOPES),
    strict=st.booleans(),
)
def test_g_m1_a_block_reveals_only_what_the_rules_make_public(
    seed, players, choices, scope, strict
):
    """A play that causes a block (HV-T4/HV-T5: top-ups, bottom-card moves, pile
    turns, or the end): the seat's answer is the same in a twin state whose hidden
    cards are shuffled, whenever the rules reveal the same (who drew how many, the
    moved and turned cards, the seat's own drawn cards). Another seat's drawn cards,
    and which hand cards failed to match, are never shown."""
    rng = random.Random(choices)
    options = {
        "players": players,
        "match": "whole_card" if strict else "per_half",
        "allow_turning": not strict,
    }
    for _ in range(20):  # a random position with a play that causes a block
        state = random_position(seed, options, rng)
        found = [
            (seat, action)
            for seat in state["seats"]
            for action in halves.legal_actions(state, seat)
            if action["type"] == "play" and len(halves.apply(state, seat, action)) > 1
        ]
        if found:
            break
    else:
        event("no blocking play found")
        return
    seat, action = rng.choice(found)
    twin = reshuffled(state, hidden_slots(state, seat, scope), rng)
    mine, revealed, after = outcome(state, seat, action)
    theirs, twin_revealed, _ = outcome(twin, seat, action)
    shown = json.loads(mine)[0]
    for raw, seen in zip(revealed, shown):
        if raw["type"] == "drawn" and raw["seat"] != seat:
            assert "card" not in seen  # another seat's top-up: its count only
    final = json.loads(after)
    hidden = {c for other in final["seats"] if other != seat for c in final["hands"][other]}
    assert not hidden & set(json.dumps(shown).replace('"', " ").replace(",", " ").split())
    if revealed != twin_revealed:
        event("the rules revealed different things")
        return
    assert mine == theirs, (seat, action)
    others = any(e.get("top_up") and e["seat"] != seat for e in revealed)
    event(f"compared: {'others topped up' if others else 'block'}")

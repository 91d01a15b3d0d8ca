"""A hypothesis state machine over the game STORE: 2-Way Cards games played through the
HTTP API (Flask test client, an SQLite file migrated by Alembic) with random legal and
illegal actions from random seats, stale versions, repeated idempotency keys and wrong
declarations. (tests/test_two_way_game.py has the engine-level machine; this one
checks what the store and the API add: persistence, versions, the log, the filters
applied to every HTTP output.)

After every step:
* conservation (TW-C2): the referee's view holds each of the 108 tiles in exactly one
  place (grid, hands, bag, bases), each tile always with the same two faces, and
  each colour's faces are two 52-card decks plus 4 jokers;
* view secrecy (TW-C3): a seat's view, its events and its legal actions show every
  tile as its face in the seat's colour (compared position by position with the
  referee's view), never a tile id, and never the seed while the game is active;
* the log: a refused action (4xx, never 5xx, always problem+json) writes nothing,
  an accepted one bumps the version by one and appends the events it returned.
At the end (and when a game finishes): folding every stored event from None gives the
stored snapshot, and a finished game reveals the seed of its commitment.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections import Counter

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from conftest import migrate
from helpers import walk_keys
from service import create_app
from service.cards import DECK, JOKER
from service.play import wrong_declarations
from service.store import get_store

SEATS = ("blue", "green")
PROBLEM = "application/problem+json"
HIDDEN_KEYS = {"tile", "tiles", "bag", "manifest", "faces", "dealt"}
FACE_COUNTS = Counter({**{card: 2 for card in DECK}, JOKER: 4})  # TW-C2, per colour
_APP = {}


@pytest.fixture(scope="module", autouse=True)
def store_app(tmp_path_factory):
    """One migrated SQLite file for the module; each example plays a new game on it."""
    url = f"sqlite:///{tmp_path_factory.mktemp('stateful') / 'store.sqlite3'}"
    migrate(url)
    _APP["app"] = create_app({"TESTING": True, "DATABASE_URL": url})
    yield _APP["app"]
    get_store(_APP.pop("app")).dispose()


def body_of(response) -> dict:
    """The JSON body (plain json.loads: the app's strict request parser is not needed
    to read our own responses, and is slower)."""
    return json.loads(response.get_data())


def other(seat: str) -> str:
    return SEATS[1 - SEATS.index(seat)]


CELL = st.lists(st.integers(-1, 7), min_size=2, max_size=2)
NAME = st.one_of(
    st.sampled_from(["7H", "JK", "10S", "TD", "AC", "KS", "ZZ", ""]), st.integers(-1, 108)
)
RANDOM_ACTION = st.one_of(
    st.fixed_dictionaries({"type": st.just("place"), "tile": NAME, "cell": CELL}),
    st.fixed_dictionaries(
        {"type": st.just("draw")}, optional={"tiles": st.lists(st.integers(-1, 108), max_size=5)}
    ),
    st.fixed_dictionaries({"type": st.just("discard"), "tiles": st.lists(NAME, max_size=3)}),
    st.fixed_dictionaries(
        {"type": st.just("declare"), "cells": st.lists(CELL, min_size=0, max_size=7)}
    ),
    st.dictionaries(
        st.sampled_from(["type", "tile", "cells", "cell", "x"]),
        st.one_of(st.integers(), st.text(max_size=3), st.none()),
        max_size=3,
    ),
)


class StoreMachine(RuleBasedStateMachine):
    """One game per example, driven only through HTTP."""

    @initialize(
        dealing=st.sampled_from(["server", "server", "table"]),
        variant=st.sampled_from([{}, {"variant": "easy"}]),
        first=st.sampled_from(SEATS),
        seed=st.binary(min_size=32, max_size=32),
    )
    def create(self, dealing, variant, first, seed):
        self.client = _APP["app"].test_client()
        self.seed = seed.hex()
        response = self.client.post(
            "/v1/games",
            json={
                "game": "two-way",
                "seed": self.seed,
                "options": {"dealing": dealing, "first_seat": first, **variant},
            },
        )
        assert response.status_code == 201, response.get_data(as_text=True)
        body = body_of(response)
        self.id = body["id"]
        assert body["seed_commitment"] == hashlib.sha256(self.seed.encode()).hexdigest()
        tokens = {seat: body["seats"][seat]["token"] for seat in SEATS}
        tokens["referee"] = body["referee_token"]
        self.auth = {who: {"Authorization": f"Bearer {t}"} for who, t in tokens.items()}
        self.table = dealing == "table"
        self.version = body["version"]
        self.status = body["status"]
        self.seq = self.log_after(0)[-1]["seq"]  # the setup events
        view = self.referee()["view"]
        self.turn, self.phase = view["turn"], view["phase"]  # as of the last 200
        self.checked = {seat: 0 for seat in SEATS}  # events already checked per seat
        self.checked_version = 0  # the version of the last full check
        self.faces: dict[int, tuple[str, str]] = {}  # tile id -> (blue, green), fixed

    # ----- HTTP helpers -----

    def get(self, path: str, who: str = "referee") -> dict:
        response = self.client.get(f"/v1/games/{self.id}{path}", headers=self.auth[who])
        assert response.status_code == 200, response.get_data(as_text=True)
        return body_of(response)

    def referee(self) -> dict:
        return self.get("")

    def log_after(self, after: int, who: str = "referee") -> list[dict]:
        return self.get(f"/events?after={after}", who)["events"]

    def post(self, who: str, action: dict, version: int | None = None, key: str | None = None):
        """POST an action; checks the outcome against the log and returns the response."""
        body = dict(action)
        if version is not None:
            body["expected_version"] = version
        headers = dict(self.auth[who])
        if key:
            headers["Idempotency-Key"] = key
        response = self.client.post(f"/v1/games/{self.id}/actions", json=body, headers=headers)
        status = response.status_code
        assert status < 500, response.get_data(as_text=True)
        if status == 200:
            reply = body_of(response)
            if response.headers.get("Idempotent-Replayed") != "true":
                assert reply["version"] == self.version + 1
                seqs = [e["seq"] for e in reply["events"]]
                assert seqs and seqs == list(range(self.seq + 1, self.seq + 1 + len(seqs)))
                self.version, self.seq = reply["version"], seqs[-1]
                self.status = reply["status"]
                self.turn, self.phase = reply["view"]["turn"], reply["view"]["phase"]
                if reply["status"] == "finished":
                    self.check_finished(reply)
        else:
            assert response.mimetype == PROBLEM and 400 <= status < 500
            assert body_of(response)["status"] == status
        return response

    def to_move(self) -> tuple[str, list[dict]]:
        """(actor, its legal actions): the seat to move, or the referee in table mode
        (always while dealing; otherwise for half of the picks)."""
        seat = self.turn
        actions = [] if self.phase == "deal" else self.get("/legal-actions", seat)["actions"]
        if not actions:
            seat, actions = "referee", self.get("/legal-actions")["actions"]
        return seat, actions

    def active(self) -> bool:
        return self.status == "active"

    def legal_move(self, pick: int, by_referee: bool = False) -> None:
        actor, actions = self.to_move()
        if by_referee and self.table and actor != "referee":
            actor, actions = "referee", self.get("/legal-actions")["actions"]
        assert actions, "an active game always has a legal action"
        declarations = [a for a in actions if a["type"] == "declare"]
        chosen = (declarations or actions)[pick % len(declarations or actions)]
        response = self.post(actor, chosen, self.version)
        assert response.status_code == 200, response.get_data(as_text=True)

    # ----- rules -----

    @precondition(lambda self: self.active())
    @rule(pick=st.integers(0, 10_000), by_referee=st.booleans())
    def legal(self, pick, by_referee):
        self.legal_move(pick, by_referee)

    @precondition(lambda self: self.active())
    @rule(picks=st.lists(st.integers(0, 10_000), min_size=4, max_size=24))
    def legal_run(self, picks):
        for pick in picks:
            if self.active():
                self.legal_move(pick)

    @precondition(lambda self: self.active())
    @rule(pick=st.integers(0, 10_000))
    def wrong_declaration(self, pick):
        """TW-D5: a well-formed incorrect declaration is recorded, the tiles stay, and
        the seat owes one missed turn (TW-T5: one at most, however many it got wrong
        this turn); TW-T3: its length is not used up (the line may be declared again)."""
        before = self.referee()["view"]
        if before["phase"] == "deal":
            return
        seat = before["turn"]
        own = self.get("", seat)["view"]
        legal = self.get("/legal-actions", seat)["actions"]
        lines = wrong_declarations(own, seat, legal)
        if not lines:
            return
        cells = lines[pick % len(lines)]
        response = self.post(seat, {"type": "declare", "cells": cells}, self.version)
        assert response.status_code == 200, response.get_data(as_text=True)
        events = body_of(response)["events"]
        assert [e["type"] for e in events] == ["declaration-rejected"]
        assert "reasons" in events[0]  # shown to the declarer
        after = self.referee()["view"]
        assert after["grid"] == before["grid"]
        assert after["pending_skips"][seat] == 1
        again = wrong_declarations(
            self.get("", seat)["view"], seat, self.get("/legal-actions", seat)["actions"]
        )
        assert cells in again
        opponent = self.log_after(self.seq - 1, other(seat))[0]
        assert opponent["type"] == "declaration-rejected" and "reasons" not in opponent

    @rule(
        actor=st.sampled_from(["blue", "green", "referee"]),
        seat=st.sampled_from([None, "turn", "blue", "green"]),
        action=RANDOM_ACTION,
    )
    def anything(self, actor, seat, action):
        """Any body from anyone at the current version: 200 or a 4xx problem."""
        if seat is not None:
            action = {**action, "seat": self.turn if seat == "turn" else seat}
        self.post(actor, action, self.version)

    @precondition(lambda self: self.active() and self.version > 1)
    @rule(pick=st.integers(0, 10_000), back=st.integers(1, 3))
    def stale(self, pick, back):
        actor, actions = self.to_move()
        response = self.post(actor, actions[pick % len(actions)], max(self.version - back, 0))
        assert response.status_code == 412
        assert body_of(response)["code"] == "version-mismatch"
        assert body_of(response)["version"] == self.version

    @precondition(lambda self: self.active())
    @rule(pick=st.integers(0, 10_000))
    def repeated_key(self, pick):
        """The same request twice with one Idempotency-Key: one effect, one reply."""
        actor, actions = self.to_move()
        action, key, version = actions[pick % len(actions)], uuid.uuid4().hex, self.version
        first = self.post(actor, action, version, key)
        assert first.status_code == 200 and "Idempotent-Replayed" not in first.headers
        again = self.post(actor, action, version + 1, key)  # another body: refused
        assert again.status_code == 422 and body_of(again)["code"] == "idempotency-key-reused"
        same = self.post(actor, action, version, key)
        assert same.status_code == first.status_code
        assert body_of(same) == body_of(first)
        assert same.headers.get("Idempotent-Replayed") == "true"

    @precondition(lambda self: self.active())
    @rule(pick=st.integers(0, 10_000))
    def without_version_or_for_another_seat(self, pick):
        actor, actions = self.to_move()
        action = actions[pick % len(actions)]
        assert self.post(actor, action).status_code == 428
        if actor != "referee":
            response = self.post(actor, {**action, "seat": other(actor)}, self.version)
            assert response.status_code == 403

    # ----- invariants (one method: they share the referee's view and log) -----

    @invariant()
    def conserved_secret_and_logged(self):
        referee = self.referee()
        assert referee["version"] == self.version
        ref_events = self.log_after(min(self.checked.values()))
        # a refused action wrote nothing: no event beyond the last accepted one
        assert [e["seq"] for e in ref_events] == list(
            range(min(self.checked.values()) + 1, self.seq + 1)
        )
        if self.version == self.checked_version:
            return  # nothing changed since the last full check (the two lines above)
        self.checked_version = self.version
        self.tiles_are_conserved(referee["view"])
        for seat in SEATS:
            self.seat_sees_only_its_colour(seat, referee, {e["seq"]: e for e in ref_events})

    def tiles_are_conserved(self, view: dict) -> None:
        """TW-C2: 108 tiles, each in one place, faces fixed, 2 decks + 4 jokers a colour."""
        places = [t for row in view["grid"] for t in row if t is not None] + view["bag"]
        for seat in SEATS:
            places += view["hands"][seat]
            places += [t for entry in view["bases"][seat] for t in entry["tiles"]]
        assert sorted(t["tile"] for t in places) == list(range(108))
        for tile in places:
            faces = (tile["blue"], tile["green"])
            assert faces[0] != faces[1]
            assert self.faces.setdefault(tile["tile"], faces) == faces
        for colour in SEATS:
            assert Counter(t[colour] for t in places) == FACE_COUNTS

    def seat_sees_only_its_colour(self, seat: str, referee: dict, ref_log: dict) -> None:
        """TW-C3: the seat's view, legal actions and new events, position by position
        against the referee's; no tile id; no seed while active."""
        ref = referee["view"]
        body = self.get("", seat)
        legal = self.get("/legal-actions", seat)
        events = self.log_after(self.checked[seat], seat)
        if referee["status"] == "active":
            assert self.seed not in json.dumps([body, legal, events])
            assert "seed" not in body and body["view"]["seed"] is None
        view = body["view"]
        assert not HIDDEN_KEYS & set(walk_keys(view))
        assert view["grid"] == [
            [None if t is None else t[seat] for t in row] for row in ref["grid"]
        ]
        assert view["hands"] == {s: [t[seat] for t in ref["hands"][s]] for s in SEATS}
        for s in SEATS:
            assert [e["cards"] for e in view["bases"][s]] == [
                [t[seat] for t in e["tiles"]] for e in ref["bases"][s]
            ]
        own = Counter(t[seat] for t in ref["hands"][seat])
        for action in legal["actions"]:
            assert "seat" not in action and not isinstance(action.get("tile"), int)
            named = [action["tile"]] if "tile" in action else action.get("tiles", [])
            assert not Counter(named) - own, (action, own)
        for event in events:
            assert not HIDDEN_KEYS & set(walk_keys(event))
            faces = ref_log[event["seq"]].get("faces")
            if faces is None:
                assert "card" not in event and "cards" not in event
            elif "card" in event:
                assert event["card"] == faces[0][seat]
            else:
                assert event["cards"] == [f[seat] for f in faces]
        self.checked[seat] = self.seq

    # ----- the end -----

    def check_finished(self, reply: dict) -> None:
        assert reply["seed"] == self.seed  # revealed, and the one committed to
        assert get_store(_APP["app"]).replay(self.id).ok

    def teardown(self):
        if hasattr(self, "id"):
            report = get_store(_APP["app"]).replay(self.id)
            assert report.ok, (report.events, report.seqs_consecutive)
            assert report.events == self.seq


TestTwoWayStore = StoreMachine.TestCase
TestTwoWayStore.settings = settings(
    max_examples=20,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

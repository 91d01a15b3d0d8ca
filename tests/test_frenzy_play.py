"""The play client on Solitaire Frenzy, in process (Flask test clients on an SQLite
file): games raced by one client thread per seat (service.play.Racer) through
``legal-actions`` finish every round, for 2 and 6 players."""

from __future__ import annotations

import random

import pytest

from conftest import migrated_app
from service.play import Racer, is_realtime, race_choice
from service.store import get_store

from helpers import StreamingTransport


@pytest.fixture(scope="module")
def play_app(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('frenzy-play') / 'play.sqlite3'}"
    with migrated_app(url, FEED_POLL_SECONDS=0.01) as app:
        yield app


@pytest.mark.parametrize("players, rounds", [(2, 3), (6, 1)])
def test_games_raced_by_one_client_per_seat_finish_every_round(play_app, players, rounds):
    racer = Racer(lambda: StreamingTransport(play_app.test_client()), random.Random(players))
    assert is_realtime(StreamingTransport(play_app.test_client()), "solitaire-frenzy")
    stats = racer.race("solitaire-frenzy", 1, {"players": players, "rounds": rounds})
    assert stats.errors == 0, stats.error_samples
    assert stats.games == stats.finished == 1 and sum(stats.winners.values()) == 1
    assert stats.events["round-ended"] == rounds and stats.events["game-ended"] == 1
    assert stats.accepted["play"] >= 1 and set(stats.refused) <= {"stale-top-card", "round-over"}
    run = racer.runs[0]
    assert run.seats == [f"p{i}" for i in range(1, players + 1)]
    assert len(run.view["result"]["solitaire_frenzy"]["rounds"]) == rounds
    assert get_store(play_app).replay(run.id).ok


def test_a_racing_seat_turns_its_hand_only_when_nothing_else_is_legal():
    rng = random.Random(3)
    turn, play = (
        {"type": "turn", "round": 1},
        {"type": "play", "round": 1, "card": "AH", "to": "foundation", "based_on": "new"},
    )
    assert {race_choice(rng, [turn, play]) == play for _ in range(20)} == {True}
    assert race_choice(rng, [turn]) == turn

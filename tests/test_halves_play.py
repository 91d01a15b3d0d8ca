"""The play client on Halves, in process (Flask test clients on an SQLite file): random
games through ``legal-actions`` finish for 2, 3, 4 and 6 players in both dealing modes.
Server dealing is raced, one thread per seat (service.play.Racer); table dealing is
played through the referee's reports (service.play.Player)."""

from __future__ import annotations

import random
import threading
import time

import pytest

from conftest import migrated_app
from service.play import Player, RaceStats, Racer, is_realtime, winner_of
from service.store import get_store

from helpers import StreamingTransport


@pytest.fixture(scope="module")
def play_app(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('halves-play') / 'play.sqlite3'}"
    with migrated_app(url, FEED_POLL_SECONDS=0.01) as app:
        yield app


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_server_games_raced_by_one_client_per_seat_finish(play_app, players):
    racer = Racer(lambda: StreamingTransport(play_app.test_client()), random.Random(players))
    stats = racer.race("halves", 1, {"players": players})
    assert stats.errors == 0, stats.error_samples
    assert stats.games == stats.finished == 1 and sum(stats.winners.values()) == 1
    assert stats.accepted["play"] >= 1 and stats.posts["play"] >= stats.accepted["play"]
    assert set(stats.refused) <= {"stale-top-card", "game-over", "hand-full", "pile-empty"}
    run = racer.runs[0]
    assert run.seats == [f"p{i}" for i in range(1, players + 1)]
    assert get_store(play_app).replay(run.id).ok
    assert "accepted plays/s" in stats.summary()


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_table_games_reported_by_the_referee_finish(play_app, players):
    player = Player(StreamingTransport(play_app.test_client()), random.Random(players))
    run = player.play_game("halves", {"players": players, "dealing": "table"})
    assert player.stats.errors == 0, player.stats.error_samples
    assert run.status == "finished" and player.stats.finished == 1
    result = run.view["result"]
    assert result["reason"] in ("out", "no-legal-play") and result["winners"]
    assert get_store(play_app).replay(run.id).ok


def test_the_catalog_tells_the_client_which_games_race(play_app):
    transport = StreamingTransport(play_app.test_client())
    assert is_realtime(transport, "halves") and not is_realtime(transport, "sequence")
    assert not is_realtime(transport, "chess")


def test_race_stats_add_up_their_threads():
    total, seat = RaceStats(), RaceStats()
    seat.posts.update({"play": 5, "draw": 2})
    seat.accepted["play"] = 2
    seat.refused["stale-top-card"] = 3
    seat.error("one")
    seat.winners["p2"] += 1
    seat.finished = 1
    total.merge(seat)
    total.merge(seat)
    assert total.posts["play"] == 10 and total.stale == 6 and total.errors == 2
    assert total.finished == 2 and total.winners["p2"] == 2
    assert winner_of({"result": {"winners": ["p1", "p3"]}}) == "p1+p3"
    assert winner_of({"result": {"winners": []}}) == "draw"


class CountingTransport(StreamingTransport):
    """StreamingTransport that notes every request and stream it opens, in order."""

    def __init__(self, client, seen: list):
        super().__init__(client)
        self.seen = seen

    def request(self, method, path, body=None, headers=None):
        self.seen.append((method, path))
        return super().request(method, path, body, headers)

    def stream(self, path, headers):
        self.seen.append(("STREAM", path))
        return super().stream(path, headers)


def test_a_racing_seat_with_nothing_to_do_waits_for_its_stream_instead_of_polling(play_app):
    """In table mode a seat has no action of its own (HV-M1): its racing client looks
    once, then waits on its event stream; it asks again only after an event came (each
    look after the first follows at least one new event it may see), never reads the
    game, and stops at the game's end."""
    referee = Player(StreamingTransport(play_app.test_client()), random.Random(9))
    run = referee.create("halves", {"players": 2, "dealing": "table"})
    game = f"/v1/games/{run.id}"
    seen: list = []
    seat = Player(
        CountingTransport(play_app.test_client(), seen), random.Random(1), stats=RaceStats()
    )
    thread = threading.Thread(
        target=Racer(None, random.Random(1)).play_seat, args=(run, "p1", seat)
    )
    thread.start()
    deadline = time.monotonic() + 10
    while seat.stats.waits == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.5)  # a polling client would look dozens of times meanwhile
    assert seen == [("STREAM", game + "/stream"), ("GET", game + "/legal-actions")]
    while run.status == "active":  # the referee reports the deal and the plays
        who, version, actions = referee.seat_to_move(run)
        referee.act(run, who, version, referee.choose(run, who, actions))
    thread.join(10)
    assert not thread.is_alive() and seat.stats.errors == 0, seat.stats.error_samples
    visible = (
        StreamingTransport(play_app.test_client())
        .request("GET", game + "/events?after=0&limit=1000", headers=run.auth("p1"))
        .body
    )
    looks = seen.count(("GET", game + "/legal-actions"))
    assert seat.stats.waits == looks - 1 >= 1
    assert looks <= 1 + len(visible["events"])
    assert set(seen) == {("STREAM", game + "/stream"), ("GET", game + "/legal-actions")}
    run.stream.close()

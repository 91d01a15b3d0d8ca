"""The play client (service/play.py) driven in process against the Flask test client
on an SQLite file migrated by Alembic: whole games end, nothing unexpected is answered,
and wrong declarations cost turns (TW-D5, TW-T5) as the event log shows."""

from __future__ import annotations

import random
import socket
from collections import Counter

import pytest

from conftest import migrated_app
from service.play import (
    Player,
    Reply,
    free_lengths,
    grid_lines,
    main,
    parse_args,
    winner_of,
    wrong_declarations,
)
from service.store import get_store

from helpers import StreamingTransport


@pytest.fixture(scope="module")
def play_app(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('play') / 'play.sqlite3'}"
    with migrated_app(url, FEED_POLL_SECONDS=0.01) as app:
        yield app


@pytest.fixture()
def transport(play_app):
    return StreamingTransport(play_app.test_client())


def referee_log(transport, run) -> list[dict]:
    """Every event of the game as the referee sees it (paged with after/last_seq)."""
    events, after = [], 0
    while True:
        reply = transport.request(
            "GET", f"/v1/games/{run.id}/events?after={after}", headers=run.auth("referee")
        )
        assert reply.status == 200
        events += reply.body["events"]
        if reply.body["last_seq"] == after:
            return events
        after = reply.body["last_seq"]


def turns_with_a_rejection(log: list[dict], seat: str) -> int:
    """How many of ``seat``'s turns had at least one declaration-rejected event (a
    discard or a turn-skipped ends a turn)."""
    turns, rejected = 0, False
    for event in log:
        if event["type"] == "declaration-rejected" and event["seat"] == seat:
            rejected = True
        elif event["type"] in ("discard", "turn-skipped", "game-ended"):
            turns += rejected
            rejected = False
    return turns


def test_two_way_games_end_with_no_error_and_wrong_declarations_cost_a_turn(transport, play_app):
    statuses: Counter = Counter()
    player = Player(
        transport,
        random.Random(7),
        wrong_rate=0.15,
        on_reply=lambda method, path, reply: statuses.update([reply.status]),
    )
    runs = [player.play_game("two-way") for _ in range(3)]
    stats = player.stats
    assert stats.errors == 0, stats.error_samples
    assert stats.games == stats.finished == 3
    assert set(statuses) <= {200, 201}
    assert stats.declarations_wrong >= 1 and stats.penalties >= 1
    store = get_store(play_app)
    rejected_total = skipped_total = 0
    assert stats.streamed == sum(len(run.acked) for run in runs) > 0
    for run in runs:
        assert run.status == "finished"
        log = referee_log(transport, run)
        assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
        assert log[-1]["type"] == "game-ended"
        # the referee's stream: the view at creation (the setup's last seq), then
        # every later entry of the log exactly once, in order; then it ended
        opening, *streamed = [message for _, message in run.stream.messages]
        assert opening.event == "view" and opening.json()["version"] == 1
        assert [m.json() for m in streamed] == log[int(opening.id) :]
        assert [(m.id, m.event) for m in streamed] == [
            (str(e["seq"]), e["type"]) for e in log[int(opening.id) :]
        ]
        assert run.stream.ended
        final = transport.request("GET", f"/v1/games/{run.id}", headers=run.auth("referee"))
        pending = final.body["view"]["pending_skips"]
        for seat in ("blue", "green"):
            rejected = sum(e["type"] == "declaration-rejected" and e["seat"] == seat for e in log)
            skipped = sum(e["type"] == "turn-skipped" and e["seat"] == seat for e in log)
            # TW-D5/TW-T5: every turn with a rejected declaration (one or more) costs
            # one missed turn, served or pending (Ruling: a seat owes one at most).
            assert turns_with_a_rejection(log, seat) == skipped + pending[seat]
            assert pending[seat] in (0, 1)
            rejected_total += rejected
            skipped_total += skipped
        assert store.replay(run.id).ok
    assert rejected_total == stats.declarations_wrong
    assert skipped_total == stats.penalties >= 1
    assert sum(stats.winners.values()) == 3
    assert stats.actions == sum(run.actions for run in runs)


def test_a_seat_declaring_a_wrong_line_misses_its_next_turn(transport):
    """Follow the first wrong declaration through the log: its seat finishes that turn,
    the opponent plays a whole turn, then the seat's turn is skipped (TW-D5, TW-T5)
    and the opponent moves again."""
    player = Player(transport, random.Random(11), wrong_rate=1.0)
    run = player.create("two-way", {})
    while player.stats.declarations_wrong == 0:
        seat, version, actions = player.seat_to_move(run)
        player.act(run, seat, version, player.choose(run, seat, actions))
    player.wrong_rate = 0.0
    while player.stats.penalties == 0:
        seat, version, actions = player.seat_to_move(run)
        player.act(run, seat, version, player.choose(run, seat, actions))
    log = referee_log(transport, run)
    wrong = next(i for i, e in enumerate(log) if e["type"] == "declaration-rejected")
    culprit = log[wrong]["seat"]
    rival = "green" if culprit == "blue" else "blue"
    ends = next(
        i
        for i in range(wrong, len(log))
        if log[i]["type"] == "discarded" and log[i]["seat"] == culprit
    )
    skip = next(i for i, e in enumerate(log) if e["type"] == "turn-skipped")
    assert log[skip]["seat"] == culprit
    between = log[ends + 1 : skip]
    assert between and all(e["seat"] == rival for e in between)
    assert [e["type"] for e in between if e["type"] != "declared"][-4:] == [
        "placed",
        "placed",
        "drawn",
        "discarded",
    ]
    assert all(e["seat"] == rival for e in log[skip + 1 :])
    assert run.view["turn"] == rival


def test_table_mode_falls_back_to_the_referee_for_the_deal_and_draws(transport):
    """dealing "table": no seat may deal or draw (TW-T1, modes); the player asks the
    referee's legal actions when no seat has any, and the game still ends."""
    player = Player(transport, random.Random(5), wrong_rate=0.1)
    run = player.play_game("two-way", {"dealing": "table"})
    assert player.stats.errors == 0, player.stats.error_samples
    assert run.status == "finished"
    log = referee_log(transport, run)
    dealt = [e for e in log if e["type"] in ("dealt", "drawn")]
    assert dealt and all(e["by"] == "referee" for e in dealt)
    # the seats place and discard, the referee where a seat's face fits two of its tiles
    # (G-M2: the seat cannot say which one)
    by = {e["by"] for e in log if e["type"] in ("placed", "discarded")}
    assert {"blue", "green"} <= by <= {"blue", "green", "referee"}


@pytest.mark.parametrize("game", ["solitaire-frenzy", "halves"])
def test_real_time_games_at_a_table_are_played_by_the_referee_to_their_end(transport, game):
    """dealing "table": the referee reports everything; in Solitaire Frenzy it records
    each round (SF-M1), which legal actions do not list."""
    player = Player(transport, random.Random(7))
    run = player.play_game(game, {"dealing": "table", "players": 3})
    assert player.stats.errors == 0, player.stats.error_samples
    assert run.status == "finished"
    log = referee_log(transport, run)
    assert log[-1]["type"] == "game-ended" and log[-1]["result"] == run.view["result"]
    if game == "solitaire-frenzy":
        ended = [e for e in log if e["type"] == "round-ended"]
        assert len(ended) == run.view["rounds"] == 3


@pytest.mark.parametrize(
    "game, options",
    [
        ("sequence", {"players": 2}),
        ("sequence-numbers", {"players": 3}),
        ("sequence-numbers", {"dealing": "table"}),
    ],
)
def test_sequence_games_are_played_to_their_end(transport, game, options):
    player = Player(transport, random.Random(3))
    run = player.play_game(game, options)
    assert player.stats.errors == 0, player.stats.error_samples
    assert player.stats.finished == 1 and run.status == "finished"
    assert run.seats == [f"p{i}" for i in range(1, options.get("players", 2) + 1)]
    log = referee_log(transport, run)
    assert log[-1]["type"] == "game-ended" and log[-1]["result"] == run.view["result"]
    assert player.stats.declarations_valid == player.stats.declarations_wrong == 0
    assert not any(e.get("conflict") for e in log)  # the referee reported the real cards


def test_streams_the_server_ends_are_resumed_with_nothing_missed_or_repeated(
    transport, play_app, monkeypatch
):
    """The server ends each stream after STREAM_SECONDS (here 0.03 s: this game's 130
    actions or so take 0.1 s or more even on a fast machine; 0.15 s was once shorter
    than a whole game): the player opens it again with Last-Event-ID, and what it
    received over all the connections is the opening view, then every later entry of
    the log exactly once, in order."""
    monkeypatch.setitem(play_app.config, "STREAM_SECONDS", 0.03)
    player = Player(transport, random.Random(4))
    run = player.play_game("sequence", {"players": 2})
    assert player.stats.errors == 0, player.stats.error_samples
    assert run.stream.connections >= 2 and run.stream.ended and run.stream.error is None
    opening, *streamed = [message for _, message in run.stream.messages]
    log = referee_log(transport, run)
    assert opening.event == "view"
    assert [m.json() for m in streamed] == log[int(opening.id) :]


# ----- helpers and command line -----


def test_grid_lines_lists_every_occupied_straight_line_once():
    grid = [[None] * 7 for _ in range(7)]
    for c in range(4):
        grid[2][c] = "7H"
    grid[3][1] = grid[4][0] = "2S"  # with [2, 2]: an anti-diagonal of 3
    lines = grid_lines(grid, {3, 4, 5, 6})
    assert sorted(lines) == sorted(
        [
            [[2, 0], [2, 1], [2, 2]],
            [[2, 1], [2, 2], [2, 3]],
            [[2, 0], [2, 1], [2, 2], [2, 3]],
            [[2, 2], [3, 1], [4, 0]],
        ]
    )
    assert grid_lines(grid, {4}) == [[[2, 0], [2, 1], [2, 2], [2, 3]]]


def test_wrong_declarations_exclude_legal_ones_either_way_and_held_lengths():
    grid = [[None] * 7 for _ in range(7)]
    for c in range(4):
        grid[0][c] = "5D"
    view = {
        "grid": grid,
        "slots": {"blue": {"3": {"allowed": 1, "held": 0}, "4": {"allowed": 1, "held": 1}}},
    }
    assert free_lengths(view, "blue") == {3}
    legal = [{"type": "declare", "cells": [[0, 3], [0, 2], [0, 1]]}]
    assert wrong_declarations(view, "blue", legal) == [[[0, 0], [0, 1], [0, 2]]]
    view["slots"]["blue"]["3"]["held"] = 1  # TW-D3: only a held length is closed
    assert free_lengths(view, "blue") == set() and wrong_declarations(view, "blue", []) == []


def test_winner_of_reads_the_result_of_every_game():
    assert winner_of({"result": {"winners": ["green"]}}) == "green"
    assert winner_of({"result": {"winners": ["p1", "p3"]}}) == "p1+p3"
    assert winner_of({"result": {"winners": []}}) == "draw"


def test_players_become_the_players_option():
    args = parse_args(["--game", "sequence", "--players", "4", "--options", '{"sides": 2}'])
    assert args.options == {"sides": 2, "players": 4}
    with pytest.raises(SystemExit):
        parse_args(["--wrong-rate", "2"])


def test_unreachable_server_is_an_error_and_a_non_zero_exit(capsys):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert main(["--url", f"http://127.0.0.1:{port}", "--games", "1"]) == 1
    out = capsys.readouterr()
    assert "errors 1" in out.out and "games 1 (finished 0)" in out.out


def test_a_rate_limited_request_is_sent_again_after_its_retry_after(monkeypatch):
    """A 429 (nothing was done) is waited out for its Retry-After (at least 0.1 s, as a
    window ending within the second says 0) and sent again; other replies are not."""
    from service import play

    class Throttling:
        def __init__(self):
            self.sent = 0

        def request(self, method, path, body=None, headers=None):
            self.sent += 1
            if self.sent <= 2:
                return Reply(429, {"code": "rate-limited"}, {"retry-after": "0"})
            return Reply(200, {"ok": True}, {})

    slept = []
    monkeypatch.setattr(play.time, "sleep", slept.append)
    transport = Throttling()
    player = Player(transport, random.Random(1))
    assert player._send("POST", "/v1/games/x/actions", {"type": "draw"}).status == 200
    assert transport.sent == 3 and slept == [0.1, 0.1] and player.stats.errors == 0

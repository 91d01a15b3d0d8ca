"""The play client's positions (G-P1: ``--position FILE``), idle option (G-T1:
``--idle-seconds``) and help, driven in process with the test engine."""

from __future__ import annotations

import json
import random

import pytest

from conftest import migrated_app
from service.play import GAMES, Player, parse_args
from helpers import StreamingTransport

POSITION = {
    "game": "counter",
    "count": 8,
    "turn": "south",
    "cards": {"north": "card-01", "south": "card-02"},
}


@pytest.fixture()
def transport(tmp_path, counter_engine):
    with migrated_app(f"sqlite:///{tmp_path / 'play.sqlite3'}", FEED_POLL_SECONDS=0.01) as app:
        yield StreamingTransport(app.test_client())


def test_the_help_lists_every_game(capsys):
    with pytest.raises(SystemExit):
        parse_args(["--help"])
    out = " ".join(capsys.readouterr().out.split())
    for game in ("two-way", "sequence", "sequence-numbers", "halves", "solitaire-frenzy"):
        assert game in out
    assert set(GAMES) == {"two-way", "sequence", "sequence-numbers", "halves", "solitaire-frenzy"}


def test_g_p1_the_position_file_names_the_game(tmp_path, capsys):
    path = tmp_path / "position.json"
    path.write_text(json.dumps(POSITION))
    args = parse_args(["--position", str(path)])
    assert (args.game, args.position) == ("counter", POSITION)
    with pytest.raises(SystemExit):
        parse_args(["--position", str(path), "--game", "halves"])
    assert "the position is of counter" in capsys.readouterr().err
    path.write_text("[1, 2]")
    with pytest.raises(SystemExit):
        parse_args(["--position", str(path)])


def test_g_t1_idle_seconds_becomes_the_option():
    args = parse_args(["--idle-seconds", "2", "--options", '{"dealing": "server"}'])
    assert args.options == {"dealing": "server", "idle_seconds": 2}
    with pytest.raises(SystemExit):
        parse_args(["--idle-seconds", "0"])


def test_g_p1_games_are_played_from_the_position(transport):
    player = Player(transport, random.Random(3), position=POSITION)
    runs = [player.play_game("counter") for _ in range(3)]
    assert player.stats.errors == 0, player.stats.error_samples
    assert player.stats.finished == 3
    for run in runs:
        opening = run.stream.messages[0][1].json()
        assert opening["view"]["from_position"] is True
        first = transport.request(
            "GET", f"/v1/games/{run.id}/events", headers=run.auth("referee")
        ).body["events"]
        assert first[0]["from_position"] is True
        assert first[1]["position"]["count"] == 8

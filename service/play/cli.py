"""The command line: ``python -m service.play --url ... --game ...`` (see service.play)."""

from __future__ import annotations

import argparse
import json
import random
import sys

from service.play.constants import (
    GAMES,
    TWO_WAY,
)
from service.play.player import Player
from service.play.racer import Racer, is_realtime
from service.play.stats import Stats
from service.play.transport import HTTPTransport

# ----- command line ----------------------------------------------------------------


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m service.play",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument(
        "--game",
        default=None,
        help="the game: " + ", ".join(GAMES) + (f" (default {TWO_WAY}, or the game of --position)"),
    )
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument(
        "--seed", type=int, default=None, help="seeds the client's choices and the games' seeds"
    )
    parser.add_argument(
        "--wrong-rate",
        type=float,
        default=0.1,
        help="2-Way Cards: probability per step of a wrong declaration",
    )
    parser.add_argument(
        "--players",
        type=int,
        default=None,
        help="Sequence, Halves...: the number of players (seats p1..pN)",
    )
    parser.add_argument(
        "--at-once", type=int, default=1, help="real-time games: how many games race side by side"
    )
    parser.add_argument(
        "--options",
        type=json.loads,
        default={},
        help="game options as a JSON object (see GET /v1/games/catalog)",
    )
    parser.add_argument(
        "--no-follow",
        dest="follow",
        action="store_false",
        help="do not follow the games' event streams",
    )
    parser.add_argument(
        "--position",
        metavar="FILE",
        default=None,
        help="start every game from the position in FILE (JSON in the "
        "game's notation, G-P1; its game is the game played)",
    )
    parser.add_argument(
        "--idle-seconds",
        type=int,
        default=None,
        help="option idle_seconds of the games (G-T1: an idle seat loses "
        "its turn or is treated as stuck)",
    )
    args = parser.parse_args(argv)
    args.position = _position(parser, args.position)
    stated = None if args.position is None else args.position.get("game")
    if args.game is not None and stated is not None and args.game != stated:
        parser.error(f"--game {args.game} but the position is of {stated}")
    args.game = args.game or stated or TWO_WAY
    if args.idle_seconds is not None:
        if args.idle_seconds < 1:
            parser.error("--idle-seconds must be at least 1")
        args.options = {**args.options, "idle_seconds": args.idle_seconds}
    if not 0 <= args.wrong_rate <= 1:
        parser.error("--wrong-rate is a probability (0..1)")
    if args.games < 1 or args.at_once < 1:
        parser.error("--games and --at-once must be at least 1")
    if not isinstance(args.options, dict):
        parser.error("--options must be a JSON object")
    if args.players is not None:
        args.options = {**args.options, "players": args.players}
    return args


def _position(parser: argparse.ArgumentParser, path: str | None) -> dict | None:
    """The JSON object in ``path`` (None without one); a parser error otherwise."""
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as source:
            position = json.load(source)
    except (OSError, ValueError) as error:
        parser.error(f"--position {path}: {error}")
    if not isinstance(position, dict):
        parser.error(f"--position {path}: not a JSON object")
    return position


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    transport = HTTPTransport(args.url)
    rng = random.Random(args.seed)
    stats: Stats
    try:
        if args.options.get("dealing") != "table" and is_realtime(transport, args.game):
            racer = Racer(lambda: HTTPTransport(args.url), rng, position=args.position)
            stats = racer.race(args.game, args.games, args.options, args.at_once)
        else:
            player = Player(
                transport, rng, args.wrong_rate, follow=args.follow, position=args.position
            )
            stats = player.play(args.game, args.games, args.options)
    except OSError as error:  # the catalog could not be read: nothing was played
        stats = Stats(games=args.games)
        stats.error(f"{args.url}: {error!r}")
    finally:
        transport.close()
    for sample in stats.error_samples:
        print(f"error: {sample}", file=sys.stderr)
    print(stats.summary())
    return 1 if stats.errors else 0

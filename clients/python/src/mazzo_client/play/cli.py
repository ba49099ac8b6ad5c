"""The command line: `mazzo play [options]`."""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from mazzo_client._gen.mazzo.v1 import engine_pb2 as pb
from mazzo_client.client import MazzoClient
from mazzo_client.errors import MazzoError
from mazzo_client.play import lang, record
from mazzo_client.play.lang import _
from mazzo_client.play.record import RecordError, Replay
from mazzo_client.play.server import LocalServer, ServerError, server_installed
from mazzo_client.play.session import Console, Session, Settings
from mazzo_client.play.text import Names, Seating

LEVELS = ("random", "greedy", "expert")
FACES = ("italian", "french", "spanish")
VARIANT_PREFIX = "SCOPA_VARIANT_"
CALL_TIMEOUT = 60.0


class UsageError(Exception):
    """Options that do not make a game."""


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="mazzo", description="Mazzo from the terminal.")
    commands = top.add_subparsers(dest="command", required=True)
    play = commands.add_parser(
        "play",
        help="play a game against the computer players",
        description="Play Scopa (any variant), Tressette or Briscola against the computer players. "
        "At your turn type a move's number (or its card's code), h for a hint, q to quit.",
    )
    play.add_argument(
        "--list", action="store_true", help="list the games, variants, faces and levels"
    )
    play.add_argument(
        "--game", default="scopa", help="a game of the catalog, or a Scopa variant (default scopa)"
    )
    play.add_argument(
        "--variant", help="a Scopa variant, e.g. escoba, cirulla, scopone-scientifico"
    )
    play.add_argument("--players", type=int, help="players (default: the variant's usual number)")
    play.add_argument("--target", type=int, help="points to win (default: the variant's)")
    play.add_argument("--napola", action="store_true", help="Scopa: score the napola")
    play.add_argument("--napoletana", action="store_true", help="Tressette: score the napoletana")
    play.add_argument("--face", choices=FACES, help="the deck whose card names are shown")
    play.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    play.add_argument(
        "--bots",
        default="expert",
        help="the other seats' levels in seat order, comma-separated, or one for all: "
        "random, greedy, expert (default expert)",
    )
    play.add_argument(
        "--hint", action="store_true", help="show the expert's choice before each move"
    )
    play.add_argument(
        "--think",
        type=int,
        default=0,
        metavar="MS",
        help="the bots' time a move (default: the server's, 100 ms)",
    )
    play.add_argument(
        "--simulations",
        type=int,
        default=0,
        help="the expert's deals a move at most (0: as its time allows)",
    )
    play.add_argument(
        "--seed", type=int, help="the shuffle's seed: the same seed and options deal the same cards"
    )
    play.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="write the game to FILE, a game record (seed, options, seats, moves, result)",
    )
    play.add_argument(
        "--replay", type=Path, metavar="FILE", help="play a recorded game again, move by move"
    )
    play.add_argument(
        "--server", metavar="HOST:PORT", help="a Mazzo server's gRPC address (default: start one)"
    )
    play.add_argument(
        "--lang",
        metavar="LANG",
        help="the game's language: it, en, es, fr or ru (default: $LANG's, else English); "
        "the server is asked for its messages and card names in it too",
    )
    return top


def terminal_width(out: TextIO) -> int:
    """The columns to break lines at: the terminal's, or $COLUMNS; 0 (no limit)
    for a file or a pipe, which no terminal wraps."""
    if "COLUMNS" not in os.environ and not out.isatty():
        return 0
    return shutil.get_terminal_size().columns


def main(
    argv: Sequence[str] | None = None, stdin: TextIO | None = None, stdout: TextIO | None = None
) -> int:
    args = parser().parse_args(argv)
    out = stdout or sys.stdout
    console = Console(stdin or sys.stdin, out, width=terminal_width(out))
    language = lang.choose(args.lang)
    try:
        if args.record or args.replay:
            record.require_library()
        replay = record.load(args.replay) if args.replay else None
        with (
            _server(args.server, console) as target,
            MazzoClient(
                target, timeout=CALL_TIMEOUT, metadata=((lang.METADATA_KEY, language),)
            ) as client,
        ):
            catalog = client.catalog()
            if args.list:
                console.say(*listing(catalog))
                return 0
            settings = settings_from(args, catalog, replay)
            return Session(client, console, settings, Names.from_catalog(catalog)).run()
    except (UsageError, RecordError, ServerError) as error:
        print(f"mazzo play: {error}", file=sys.stderr)
        return 2
    except MazzoError as error:
        print(f"mazzo play: the server refused: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (`mazzo play | head`): stop quietly
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - Python flushes it at exit
        return 1


@contextmanager
def _server(address: str | None, console: Console) -> Iterator[str]:
    if address:
        yield address
        return
    if not server_installed():
        raise UsageError(
            "no Mazzo server is installed here to start: give --server HOST:PORT "
            "(or install the server, e.g. `make serve`'s set-up in a checkout)"
        )
    with LocalServer() as server:
        console.say(
            _("(A Mazzo server for this game listens on {target}.)").format(target=server.target)
        )
        yield server.target


def short_name(enum_name: str, prefix: str) -> str:
    """SCOPA_VARIANT_SCOPONE_SCIENTIFICO -> scopone-scientifico."""
    return enum_name.removeprefix(prefix).lower().replace("_", "-")


def listing(catalog: pb.GetCatalogResponse) -> list[str]:
    lines = ["Games (--game NAME, --variant NAME, --players N):"]
    for game in catalog.games:
        counts = ", ".join(str(n) for n in game.player_counts)
        lines.append(f"  {game.name:<10} {game.title}, {counts} players")
        for variant in game.variants:
            counts = ", ".join(str(n) for n in variant.player_counts)
            lines.append(
                f"    --variant {short_name(variant.name, VARIANT_PREFIX):<22} "
                f"{variant.title} ({counts} players)"
            )
    faces = sorted({short_name(f.name, "FACE_") for g in catalog.games for f in g.faces})
    lines.append(f"Deck faces (--face): {', '.join(faces)}")
    lines.append(f"Bot levels (--bots): {', '.join(LEVELS)}")
    return lines


def settings_from(
    args: argparse.Namespace, catalog: pb.GetCatalogResponse, replay: Replay | None
) -> Settings:
    if replay is not None:
        request = replay.request
        seating = Seating(request.players, replay.human, replay.levels)
    else:
        request = new_game_request(args, catalog)
        seating = Seating(request.players, _seat(args.seat, request.players), {})
        seating = Seating(request.players, seating.human, _levels(args.bots, seating))
    return Settings(
        request=request,
        seating=seating,
        primiera_rule=_primiera_rule(request, catalog),
        hint=args.hint,
        think_ms=args.think,
        simulations=args.simulations,
        record_path=args.record,
        replay=replay,
    )


def new_game_request(args: argparse.Namespace, catalog: pb.GetCatalogResponse) -> pb.NewGameRequest:
    games = {game.name: game for game in catalog.games}
    game_name, variant_name = args.game.lower(), args.variant
    scopa_variants = (
        {short_name(v.name, VARIANT_PREFIX): v for v in games["scopa"].variants}
        if "scopa" in games
        else {}
    )
    if game_name not in games and game_name.replace("_", "-") in scopa_variants:
        game_name, variant_name = "scopa", variant_name or game_name
    if game_name not in games:
        raise UsageError(
            f"no game {args.game!r}: choose from {', '.join([*games, *scopa_variants])}"
        )
    game = games[game_name]
    seed = args.seed if args.seed is not None else secrets.randbits(63)
    request = pb.NewGameRequest(seed=seed)
    counts = list(game.player_counts)
    default_players = counts[0]
    if game_name == "scopa":
        options = pb.ScopaOptions(napola=args.napola)
        if variant_name:
            key = variant_name.lower().replace("_", "-").replace(" ", "-")
            if key not in scopa_variants:
                raise UsageError(
                    f"no variant {variant_name!r}: choose from {', '.join(scopa_variants)}"
                )
            variant = scopa_variants[key]
            options.variant = pb.ScopaVariant.Value(variant.name)  # type: ignore[assignment]
            counts, default_players = list(variant.player_counts), variant.default_players
        if args.face:
            options.face = pb.Face.Value(f"FACE_{args.face.upper()}")  # type: ignore[assignment]
        if args.target is not None:
            options.target = args.target
        request.scopa.CopyFrom(options)
    else:
        if variant_name:
            raise UsageError(f"{game.title} takes no --variant")
        # Any other game: its options message, the switches it has set by name.
        options = getattr(request, game_name)
        options.SetInParent()
        fields = options.DESCRIPTOR.fields_by_name
        for name in ("napola", "napoletana"):
            if getattr(args, name):
                if name not in fields:
                    raise UsageError(f"{game.title} takes no --{name}")
                setattr(options, name, True)
        if args.face:
            if "face" not in fields:
                raise UsageError(f"{game.title} takes no --face")
            options.face = pb.Face.Value(f"FACE_{args.face.upper()}")
        if args.target is not None:
            options.target = args.target
    request.players = args.players or default_players
    if request.players not in counts:
        raise UsageError(
            f"{game.title} is played by {', '.join(map(str, counts))}, not {request.players}"
        )
    return request


def _seat(seat: int, players: int) -> int:
    if not 0 <= seat < players:
        raise UsageError(f"--seat is from 0 to {players - 1}")
    return seat


def _levels(bots: str, seating: Seating) -> dict[int, str]:
    levels = [level.strip().lower() for level in bots.split(",") if level.strip()]
    unknown = [level for level in levels if level not in LEVELS]
    if unknown or not levels:
        raise UsageError(f"--bots takes levels among {', '.join(LEVELS)}, not {bots!r}")
    seats = [seat for seat in range(seating.players) if seat != seating.human]
    if len(levels) == 1:
        levels *= len(seats)
    if len(levels) != len(seats):
        raise UsageError(f"--bots needs one level, or one for each of the {len(seats)} other seats")
    return dict(zip(seats, levels, strict=True))


def _primiera_rule(request: pb.NewGameRequest, catalog: pb.GetCatalogResponse) -> str:
    """A Scopa game's primiera rule: the option, else the variant's preset, else the default."""
    if request.WhichOneof("game") != "scopa":
        return ""
    if request.scopa.primiera:
        return pb.PrimieraRule.Name(request.scopa.primiera)
    for game in catalog.games:
        for variant in game.variants:
            if request.scopa.variant and variant.name == pb.ScopaVariant.Name(
                request.scopa.variant
            ):
                return variant.presets.get("primiera", "PRIMIERA_RULE_STANDARD")
    return "PRIMIERA_RULE_STANDARD"

"""The command line: `mazzo play [options]`."""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from mazzo_client._gen.mazzo.v1 import engine_pb2 as pb
from mazzo_client.client import MazzoClient
from mazzo_client.errors import MazzoError
from mazzo_client.play import lang, record
from mazzo_client.play.lang import _
from mazzo_client.play.record import RecordError, Replay
from mazzo_client.play.server import LocalServer, ServerError, server_installed
from mazzo_client.play.session import Console, Session, Settings
from mazzo_client.play.text import Names, Seating

LEVELS = ("random", "greedy", "intermediate", "expert")
#: The on/off options --NAME sets, by their field name in a game's options message
#: (any game whose message has the field takes it), with the help's words.
SWITCHES = (
    ("napola", "Scopa", "score the napola"),
    ("napoletana", "Tressette", "score the napoletana"),
)
FACES = ("italian", "french", "spanish")
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
        "--game",
        help="a game of the catalog, or one of its variants (default: the catalog's first, scopa)",
    )
    play.add_argument(
        "--variant", help="a variant of the game, e.g. Scopa's escoba, cirulla, scopone-scientifico"
    )
    play.add_argument("--players", type=int, help="players (default: the variant's usual number)")
    play.add_argument(
        "--target", type=int, help="points (in Briscola hands) to win (default: the variant's)"
    )
    for switch, game, what in SWITCHES:
        play.add_argument(f"--{switch}", action="store_true", help=f"{game}: {what}")
    play.add_argument("--face", choices=FACES, help="the deck whose card names are shown")
    play.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    play.add_argument(
        "--bots",
        default="expert",
        help="the other seats' levels in seat order, comma-separated, or one for all: "
        "random, greedy, intermediate, expert (default expert)",
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
        help="the searching bots' and the hint's simulations a move at most: worlds for "
        "expert at a Scopa table of two and in Scopone, else play-outs (0: as their time "
        "allows)",
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


def options_fields(game_name: str) -> Mapping[str, Any]:
    """The fields (FieldDescriptors by name) of a game's options message: the
    NewGameRequest field the catalog names the game by. None for a game this
    client's API does not know."""
    field = pb.NewGameRequest.DESCRIPTOR.fields_by_name.get(game_name)
    if field is None or field.message_type is None:
        return {}
    return field.message_type.fields_by_name


def variants_of(game: pb.GameInfo) -> dict[str, pb.VariantInfo]:
    """A game's variants by the name --variant takes: the catalog's, for a game
    whose options message has a ``variant`` enum field."""
    field = options_fields(game.name).get("variant")
    if field is None or field.enum_type is None:
        return {}
    prefix = record.enum_prefix(field.enum_type)
    return {short_name(v.name, prefix): v for v in game.variants}


def listing(catalog: pb.GetCatalogResponse) -> list[str]:
    lines = ["Games (--game NAME, --variant NAME, --players N):"]
    for game in catalog.games:
        counts = ", ".join(str(n) for n in game.player_counts)
        lines.append(f"  {game.name:<10} {game.title}, {counts} players")
        for name, variant in variants_of(game).items():
            counts = ", ".join(str(n) for n in variant.player_counts)
            lines.append(f"    --variant {name:<22} {variant.title} ({counts} players)")
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
        primiera_rule=option_value(request, catalog, "primiera"),
        hint=args.hint,
        think_ms=args.think,
        simulations=args.simulations,
        record_path=args.record,
        replay=replay,
    )


def new_game_request(args: argparse.Namespace, catalog: pb.GetCatalogResponse) -> pb.NewGameRequest:
    """The NewGame request the options make: the game's options message, each
    option set through its field of that name."""
    game, variant = _game_and_variant(args, catalog)
    seed = args.seed if args.seed is not None else secrets.randbits(63)
    request = pb.NewGameRequest(seed=seed)
    options = getattr(request, game.name)
    options.SetInParent()
    fields = options.DESCRIPTOR.fields_by_name
    counts, default_players = list(game.player_counts), game.player_counts[0]
    if variant is not None:
        options.variant = fields["variant"].enum_type.values_by_name[variant.name].number
        counts, default_players = list(variant.player_counts), variant.default_players
    for switch, _game, _what in SWITCHES:
        if getattr(args, switch):
            _require(fields, switch, game)
            setattr(options, switch, True)
    if args.face:
        _require(fields, "face", game)
        options.face = pb.Face.Value(f"FACE_{args.face.upper()}")
    if args.target is not None:
        _require(fields, "target", game)
        options.target = args.target
    request.players = args.players or default_players
    if request.players not in counts:
        raise UsageError(
            f"{game.title} is played by {', '.join(map(str, counts))}, not {request.players}"
        )
    return request


def _game_and_variant(
    args: argparse.Namespace, catalog: pb.GetCatalogResponse
) -> tuple[pb.GameInfo, pb.VariantInfo | None]:
    """The game --game names (a game, or a variant of one), and the variant that
    it or --variant names, if any."""
    games = {game.name: game for game in catalog.games if options_fields(game.name)}
    if not games:
        raise UsageError("the server's catalog has no game this client knows")
    variants = {name: (game, v) for game in games.values() for name, v in variants_of(game).items()}
    asked = (args.game or next(iter(games))).lower()
    variant_name = args.variant
    if asked not in games and _key(asked) in variants:
        game, by_game = variants[_key(asked)]
        variant_name = variant_name or asked
    elif asked in games:
        game = games[asked]
    else:
        raise UsageError(f"no game {args.game!r}: choose from {', '.join([*games, *variants])}")
    if not variant_name:
        return game, None
    own = variants_of(game)
    if not own:
        raise UsageError(f"{game.title} takes no --variant")
    if _key(variant_name) not in own:
        raise UsageError(f"no variant {variant_name!r}: choose from {', '.join(own)}")
    return game, own[_key(variant_name)]


def _key(name: str) -> str:
    """A variant's name as typed, in the form --list writes it."""
    return name.lower().replace("_", "-").replace(" ", "-")


def _require(fields: Mapping[str, Any], name: str, game: pb.GameInfo) -> None:
    if name not in fields:
        raise UsageError(f"{game.title} takes no --{name}")


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


def option_value(request: pb.NewGameRequest, catalog: pb.GetCatalogResponse, name: str) -> str:
    """An enum option of the request's game as the catalog writes it
    (``PRIMIERA_RULE_SEVENS``): set in the request, else the variant's preset,
    else the catalog's default; ``""`` for a game without that option."""
    game_name = request.WhichOneof("game")
    if game_name is None:
        return ""
    options = getattr(request, game_name)
    field = options.DESCRIPTOR.fields_by_name.get(name)
    if field is None or field.enum_type is None:
        return ""
    if getattr(options, name):
        return str(field.enum_type.values_by_number[getattr(options, name)].name)
    game = next((g for g in catalog.games if g.name == game_name), None)
    if game is None:
        return ""
    chosen = getattr(options, "variant", 0)
    variant_field = options.DESCRIPTOR.fields_by_name.get("variant")
    if chosen and variant_field is not None and variant_field.enum_type is not None:
        variant = variant_field.enum_type.values_by_number[chosen].name
        for info in game.variants:
            if info.name == variant and name in info.presets:
                return str(info.presets[name])
    default = next((o.default_value for o in game.options if o.name == name), "")
    return str(default)

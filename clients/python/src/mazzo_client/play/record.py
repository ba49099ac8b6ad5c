"""A played game as a file: its NewGame request (with the seed) and every move."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from google.protobuf import json_format

from mazzo_client._gen.mazzo.v1 import engine_pb2 as pb

FORMAT = "mazzo-play-record/1"


class RecordError(Exception):
    """A file that is not a record of `mazzo play`."""


@dataclass
class Record:
    """Enough to play a game again move for move: a seeded NewGame deals the
    same cards on any server, and the moves are replayed in order."""

    request: pb.NewGameRequest
    human: int
    levels: dict[int, str]
    moves: list[pb.Move] = field(default_factory=list)
    final_scores: list[int] | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "format": FORMAT,
            "newGame": json_format.MessageToDict(self.request),
            "humanSeat": self.human,
            "bots": {str(seat): level for seat, level in sorted(self.levels.items())},
            "moves": [
                json_format.MessageToDict(m, always_print_fields_with_no_presence=True)
                for m in self.moves
            ],
            "finalScores": self.final_scores,
        }

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n")

    @classmethod
    def load(cls, path: Path) -> Record:
        try:
            data = json.loads(path.read_text())
            if data.get("format") != FORMAT:
                raise RecordError(f"{path} is not a {FORMAT} file")
            request = json_format.ParseDict(data["newGame"], pb.NewGameRequest())
            if not request.HasField("seed"):
                raise RecordError(f"{path} holds a game without a seed: it cannot be dealt again")
            return cls(
                request=request,
                human=int(data["humanSeat"]),
                levels={int(seat): str(level) for seat, level in data["bots"].items()},
                moves=[json_format.ParseDict(m, pb.Move()) for m in data["moves"]],
                final_scores=data.get("finalScores"),
            )
        except (OSError, ValueError, KeyError, TypeError, json_format.ParseError) as error:
            raise RecordError(f"cannot read the record {path}: {error}") from error

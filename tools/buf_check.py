"""buf's lint and breaking-change checks of proto/, run by `make test`.

    python tools/buf_check.py                    # lint, then breaking against the baseline
    python tools/buf_check.py --record-baseline  # the contract as released: proto/ -> baseline

buf reads images here: proto/ and the baseline (tools/buf/baseline/, the proto
of the last release, committed so that a fresh clone without tags can check
against it) are compiled with the protoc and include path of tools/gen_proto.py,
so google/api comes from googleapis-common-protos and nothing is downloaded.
buf itself is the npm package @bufbuild/buf pinned in tools/buf/package.json
(`npm ci` in tools/buf, which the Makefile runs). The rules are in
tools/buf/buf.yaml.
"""

from __future__ import annotations

import argparse
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.gen_proto import PROTO_DIR, _include_dirs  # noqa: E402

BUF_DIR = ROOT / "tools" / "buf"
BUF = BUF_DIR / "node_modules" / ".bin" / "buf"
CONFIG = BUF_DIR / "buf.yaml"
BASELINE = BUF_DIR / "baseline"


def _sources(root: pathlib.Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*.proto"))


def build_image(root: pathlib.Path, out: pathlib.Path) -> pathlib.Path:
    """The .proto files under ``root`` with their imports, as a buf image (a descriptor set)."""
    from grpc_tools import protoc

    includes = [str(root), *_include_dirs()[1:]]  # root replaces proto/
    args = ["protoc", *(f"-I{d}" for d in includes)]
    args += ["--include_imports", "--include_source_info", f"--descriptor_set_out={out}"]
    if protoc.main(args + _sources(root)) != 0:
        raise SystemExit(f"protoc failed on {root}")
    return out


def _buf(*args: str) -> int:
    if not BUF.exists():
        raise SystemExit(f"{BUF} is missing: run `npm ci` in {BUF_DIR} (make does)")
    return subprocess.call([str(BUF), *args, "--config", str(CONFIG)])


def check() -> int:
    with tempfile.TemporaryDirectory(prefix="mazzo-buf-") as tmp:
        current = build_image(PROTO_DIR, pathlib.Path(tmp) / "current.binpb")
        released = build_image(BASELINE, pathlib.Path(tmp) / "baseline.binpb")
        # Only our files: the images also hold google/api, which is not ours to lint.
        paths = [arg for source in _sources(PROTO_DIR) for arg in ("--path", source)]
        failed = _buf("lint", str(current), *paths)
        against = ["--against", str(released)]
        failed |= _buf("breaking", str(current), *against, *paths)
    if failed:
        print(
            "buf: the contract fails lint or breaks the last release (tools/buf/baseline)",
            file=sys.stderr,
        )
    return 1 if failed else 0


def record_baseline() -> int:
    shutil.rmtree(BASELINE, ignore_errors=True)
    for source in _sources(PROTO_DIR):
        target = BASELINE / source
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PROTO_DIR / source, target)
    print(f"{BASELINE} is now the contract of proto/")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--record-baseline", action="store_true", help="on a release")
    args = parser.parse_args()
    return record_baseline() if args.record_baseline else check()


if __name__ == "__main__":
    sys.exit(main())

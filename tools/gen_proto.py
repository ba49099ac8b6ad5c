"""Generate the Python code for proto/ into gen/ (package mazzo.v1).

Run by the Makefile; gen/ is never edited or committed. The include path adds
the .proto files shipped by grpcio-tools (google/protobuf) and by
googleapis-common-protos (google/api), so nothing is downloaded.
"""

from __future__ import annotations

import pathlib
import shutil
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto"
OUT_DIR = ROOT / "gen"


def _include_dirs() -> list[str]:
    import google.api  # googleapis-common-protos
    import grpc_tools

    googleapis_root = pathlib.Path(google.api.__path__[0]).parent.parent
    well_known = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    return [str(PROTO_DIR), str(googleapis_root), str(well_known)]


def main() -> int:
    # The package root exists before the first install, so that setuptools
    # maps the package `mazzo` to gen/mazzo for the editable install.
    shutil.rmtree(OUT_DIR, ignore_errors=True)
    (OUT_DIR / "mazzo").mkdir(parents=True)
    (OUT_DIR / "mazzo" / "__init__.py").touch()
    try:
        from grpc_tools import protoc
    except ImportError:
        # First install: grpcio-tools is not there yet; the Makefile installs
        # the project and then calls us again.
        return 0
    sources = sorted(str(p.relative_to(PROTO_DIR)) for p in PROTO_DIR.rglob("*.proto"))
    args = ["protoc"] + [f"-I{d}" for d in _include_dirs()]
    args += [f"--python_out={OUT_DIR}", f"--pyi_out={OUT_DIR}", f"--grpc_python_out={OUT_DIR}"]
    if protoc.main(args + sources) != 0:
        print("protoc failed", file=sys.stderr)
        return 1
    for package_dir in {p.parent for p in OUT_DIR.rglob("*_pb2.py")}:
        while package_dir != OUT_DIR:
            (package_dir / "__init__.py").touch()
            package_dir = package_dir.parent
    return 0


if __name__ == "__main__":
    sys.exit(main())

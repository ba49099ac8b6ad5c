"""Generate the Python code for proto/ into service/mazzo/v1/ (package mazzo.v1).

Run by the Makefile and by the server's build (setup.py); service/mazzo/v1/ is
never edited or committed. It belongs to the server's distribution, beside
mazzo.service, in the namespace package mazzo that the engine's distribution
shares. protoc writes into a scratch folder first, and only
service/mazzo/v1/ is replaced, never the rest of service/. The include path
adds the .proto files shipped by grpcio-tools (google/protobuf) and by
googleapis-common-protos (google/api), so nothing is downloaded.
"""

from __future__ import annotations

import pathlib
import shutil
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROTO_DIR = ROOT / "proto"
#: The one proto package, proto/mazzo/v1, and so the generated one, mazzo/v1.
PACKAGE = pathlib.PurePath("mazzo", "v1")
OUT_DIR = ROOT / "service" / PACKAGE


def _include_dirs() -> list[str]:
    import google.api  # googleapis-common-protos
    import grpc_tools

    googleapis_root = pathlib.Path(google.api.__path__[0]).parent.parent
    well_known = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    return [str(PROTO_DIR), str(googleapis_root), str(well_known)]


def main() -> int:
    try:
        from grpc_tools import protoc
    except ImportError:
        print("grpcio-tools is missing: install the project first (make gen)", file=sys.stderr)
        return 1
    sources = sorted(str(p.relative_to(PROTO_DIR)) for p in PROTO_DIR.rglob("*.proto"))
    outside = [s for s in sources if pathlib.PurePath(s).parent != PACKAGE]
    if outside:
        print(f"only proto/{PACKAGE} is generated, not {outside}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as scratch:
        args = ["protoc"] + [f"-I{d}" for d in _include_dirs()]
        args += [f"--python_out={scratch}", f"--pyi_out={scratch}"]
        args += [f"--grpc_python_out={scratch}"]
        if protoc.main(args + sources) != 0:
            print("protoc failed", file=sys.stderr)
            return 1
        generated = pathlib.Path(scratch) / PACKAGE
        (generated / "__init__.py").touch()
        shutil.rmtree(OUT_DIR, ignore_errors=True)
        shutil.copytree(generated, OUT_DIR)
    return 0


if __name__ == "__main__":
    sys.exit(main())

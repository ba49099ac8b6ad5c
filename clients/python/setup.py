"""Build hook of mazzo-client: generate the gRPC code of mazzo.v1 from the proto.

The proto is read from the repository (``../../proto``) when the package is
built inside a checkout, and is copied into ``proto/`` here, so that an sdist
carries it and a wheel built from that sdist anywhere (pip's isolated builds
unpack it in a temporary folder) finds it. The code is generated into
``mazzo_client._gen.mazzo.v1``, a package of this distribution, so installing
the client next to the server (whose own generated package is ``mazzo.v1``)
never overwrites a file of the other.
"""

from __future__ import annotations

import importlib.metadata
import re
import shutil
import sys
import tempfile
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
REPOSITORY_PROTO = HERE.parent.parent / "proto"
PROTO = HERE / "proto"
GENERATED = HERE / "src" / "mazzo_client" / "_gen"
GENERATED_PACKAGE = "mazzo_client._gen"
#: `mazzo play`'s gettext catalogs (locale/<lang>/LC_MESSAGES/mazzo_play.po, .mo built).
CATALOGS = HERE / "src" / "mazzo_client" / "play" / "locale"
IMPORT_OF_GENERATED = re.compile(r"^(from|import) (mazzo(?:\.\w+)*)\b", re.MULTILINE)


def stage_protos() -> None:
    """Copy the repository's proto into ``proto/`` when built inside a checkout."""
    inside_checkout = HERE.parent.name == "clients" and (REPOSITORY_PROTO / "mazzo").is_dir()
    if inside_checkout:
        shutil.rmtree(PROTO, ignore_errors=True)
        shutil.copytree(REPOSITORY_PROTO / "mazzo", PROTO / "mazzo")
    if not any(PROTO.rglob("*.proto")):
        sys.exit(f"mazzo-client: no .proto files in {PROTO} nor in {REPOSITORY_PROTO}")


def proto_packages() -> list[str]:
    """The Python packages the generated code lives in, one per proto folder."""
    folders = {p.parent.relative_to(PROTO) for p in PROTO.rglob("*.proto")}
    packages = {GENERATED_PACKAGE}
    for folder in folders:
        parts = folder.parts
        packages.update(".".join((GENERATED_PACKAGE, *parts[:n])) for n in range(1, len(parts) + 1))
    return sorted(packages)


def include_dirs() -> list[str]:
    import google.api  # googleapis-common-protos: google/api/annotations.proto
    import grpc_tools  # google/protobuf/*.proto

    googleapis = Path(google.api.__path__[0]).parent.parent
    well_known = Path(grpc_tools.__file__).parent / "_proto"
    return [str(PROTO), str(googleapis), str(well_known)]


def generate() -> None:
    """protoc into a scratch folder, then into _gen with `mazzo.` imports rewritten."""
    from grpc_tools import protoc

    sources = sorted(str(p.relative_to(PROTO)) for p in PROTO.rglob("*.proto"))
    with tempfile.TemporaryDirectory() as scratch:
        args = ["protoc", *(f"-I{d}" for d in include_dirs())]
        args += [f"--python_out={scratch}", f"--pyi_out={scratch}"]
        args += [f"--grpc_python_out={scratch}", *sources]
        if protoc.main(args) != 0:
            sys.exit("mazzo-client: protoc failed")
        shutil.rmtree(GENERATED, ignore_errors=True)
        for source in Path(scratch).rglob("*.py*"):
            target = GENERATED / source.relative_to(scratch)
            target.parent.mkdir(parents=True, exist_ok=True)
            text = IMPORT_OF_GENERATED.sub(rf"\1 {GENERATED_PACKAGE}.\2", source.read_text())
            target.write_text(text)
    make_package_folders()


def make_package_folders() -> None:
    """The generated packages' folders, which setuptools wants before any build step."""
    for package in proto_packages():
        folder = HERE / "src" / Path(*package.split("."))
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "__init__.py").touch()


def runtime_requirements() -> list[str]:
    """grpcio and protobuf no older than the grpcio-tools that generates the code."""
    tools = importlib.metadata.requires("grpcio-tools") or []
    pinned = [r for r in tools if re.match(r"(grpcio|protobuf)\b(?!-)", r)]
    return [*pinned, "googleapis-common-protos>=1.63,<2"]


def compile_catalogs() -> None:
    """The `mazzo play` catalogs, .po to the .mo that stdlib gettext reads (Babel's compiler)."""
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    for po_path in CATALOGS.glob("*/LC_MESSAGES/*.po"):
        with po_path.open("rb") as po:
            catalog = read_po(po, locale=po_path.parent.parent.name)
        with po_path.with_suffix(".mo").open("wb") as mo:
            write_mo(mo, catalog)


class BuildWithGeneratedCode(build_py):
    def run(self) -> None:
        generate()
        compile_catalogs()
        super().run()


class SdistWithProto(sdist):
    def run(self) -> None:
        stage_protos()
        super().run()


stage_protos()
make_package_folders()
compile_catalogs()
setup(
    # mazzo_client.play is `mazzo play`, the console script's package.
    packages=["mazzo_client", "mazzo_client.play", *proto_packages()],
    install_requires=runtime_requirements(),
    cmdclass={"build_py": BuildWithGeneratedCode, "sdist": SdistWithProto},
)

"""The server's wheel holds one top-level package, mazzo, and the engine stays pure.

The wheel is built as `pip install` of a checkout builds it: from a copy of
the checkout with no generated code (so no build/ folder or generated code of
the working tree slips in), by `pip wheel` in pip's isolated build
environment: setup.py must generate the gRPC code and copy docs/openapi.json
in by itself. Installed, it must add `mazzo` to site-packages and nothing
else: no generic `engine` or `service`, nor `tests`, `tools` or the clients.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT = 300.0
#: What a checkout may hold besides its files: environments, builds, caches and
#: the clients' node modules. The generated mazzo/v1 is left out too, and made
#: again in the copy.
_LOCAL_STATE = shutil.ignore_patterns(
    ".git", ".venv", "node_modules", "build", "dist", "*.egg-info", "__pycache__", ".*_cache"
)


def _not_copied(folder: str, names: list[str]) -> set[str]:
    ignored = set(_LOCAL_STATE(folder, names))
    if Path(folder) == REPO / "mazzo":
        ignored.add("v1")
    if Path(folder) == REPO / "mazzo" / "service" / "static":
        ignored.add("openapi.json")
    return ignored


def _run(*args: str | Path, cwd: Path) -> str:
    done = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=BUILD_TIMEOUT
    )
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """The server's wheel, built as the image builds it."""
    source = tmp_path_factory.mktemp("checkout") / "mazzo"
    out = tmp_path_factory.mktemp("wheels")
    shutil.copytree(REPO, source, ignore=_not_copied)
    assert not (source / "mazzo" / "v1").exists()
    assert not (source / "mazzo" / "service" / "static" / "openapi.json").exists()
    pip_wheel = (sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps")
    _run(*pip_wheel, "--wheel-dir", out, source, cwd=out)
    (built,) = out.glob("mazzo-*.whl")
    return zipfile.ZipFile(built)


def test_the_wheel_installs_one_top_level_package_mazzo(wheel: zipfile.ZipFile) -> None:
    top = {name.split("/", 1)[0] for name in wheel.namelist()}
    dist_info = {entry for entry in top if entry.endswith(".dist-info")}
    assert len(dist_info) == 1
    assert top - dist_info == {"mazzo"}


def test_the_wheel_holds_the_engine_the_service_the_generated_code_and_the_pages(
    wheel: zipfile.ZipFile,
) -> None:
    names = set(wheel.namelist())
    for needed in (
        "mazzo/__init__.py",
        "mazzo/engine/__init__.py",
        "mazzo/engine/players/expert.py",
        "mazzo/service/main.py",
        "mazzo/service/healthcheck.py",
        "mazzo/v1/__init__.py",
        "mazzo/v1/engine_pb2.py",
        "mazzo/v1/engine_pb2_grpc.py",
        "mazzo/service/static/openapi.json",
        "mazzo/service/static/rapidoc/rapidoc-min.js",
    ):
        assert needed in names, needed
    page = REPO / "mazzo" / "service" / "static" / "play"
    for path in page.iterdir():
        assert f"mazzo/service/static/play/{path.name}" in names, path.name


def test_mazzo_serve_runs_the_packaged_main(wheel: zipfile.ZipFile) -> None:
    (entry_points,) = (n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt"))
    text = wheel.read(entry_points).decode()
    assert "mazzo-serve = mazzo.service.main:main" in text


#: What the engine must never import: the transports, protobuf and the service.
NOT_IN_THE_ENGINE = ("grpc", "flask", "werkzeug", "google.protobuf", "mazzo.service", "mazzo.v1")

_IMPORT_THE_ENGINE = f"""
import pkgutil, sys
import mazzo.engine
for module in pkgutil.walk_packages(mazzo.engine.__path__, "mazzo.engine."):
    __import__(module.name)
forbidden = {NOT_IN_THE_ENGINE!r}
print(sorted(name for name in sys.modules if name.startswith(forbidden)))
"""


def test_the_engine_imports_no_transport_protobuf_or_service_module() -> None:
    printed = _run(sys.executable, "-c", _IMPORT_THE_ENGINE, cwd=REPO)
    assert printed.strip() == "[]"

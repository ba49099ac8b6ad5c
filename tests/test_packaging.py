"""Two distributions under one namespace, mazzo: the engine alone, and the server.

The wheels are built as `pip install` of a checkout builds them: from a copy
of the checkout with no generated code (so no build/ folder or generated code
of the working tree slips in), by `pip wheel` in pip's isolated build
environment: the server's setup.py must generate the gRPC code and copy
docs/openapi.json in by itself. Installed, each adds `mazzo` to site-packages
and nothing else: no generic `engine` or `service`, nor `tests`, `tools` or
the clients. The engine, `pip install ./engine` in a fresh venv, brings
nothing but itself, and its guide's example runs there; the server, `pip
install .` in another, brings the engine with it and serves.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from benchmarks.baselines import ARENA_ONLY
from tests.service.processes import started
from tests.service.support import http_call

REPO = Path(__file__).resolve().parents[1]
BUILD_TIMEOUT = 300.0
#: What a checkout may hold besides its files: environments, builds, caches and
#: the clients' node modules. The generated mazzo/v1 is left out too, and made
#: again in the copy.
_LOCAL_STATE = shutil.ignore_patterns(
    ".git", ".venv", "node_modules", "build", "dist", "*.egg-info", "__pycache__", ".*_cache"
)
SERVICE = REPO / "service" / "mazzo" / "service"


def _not_copied(folder: str, names: list[str]) -> set[str]:
    ignored = set(_LOCAL_STATE(folder, names))
    if Path(folder) == REPO / "service" / "mazzo":
        ignored.add("v1")
    if Path(folder) == SERVICE / "static":
        ignored.add("openapi.json")
    return ignored


def _run(*args: str | Path, cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
    )
    assert done.returncode == 0, f"{args} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the checkout as a fresh clone has it: no generated code."""
    source = tmp_path_factory.mktemp("checkout") / "mazzo"
    shutil.copytree(REPO, source, ignore=_not_copied)
    assert not (source / "service" / "mazzo" / "v1").exists()
    assert not (source / "service" / "mazzo" / "service" / "static" / "openapi.json").exists()
    return source


@pytest.fixture(scope="module")
def wheels(checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, zipfile.ZipFile]:
    """The engine's wheel and the server's, built as the image builds them."""
    out = tmp_path_factory.mktemp("wheels")
    pip_wheel = (sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps")
    _run(*pip_wheel, "--wheel-dir", out, checkout / "engine", checkout, cwd=out)
    (engine,) = out.glob("mazzo_engine-*.whl")
    (server,) = out.glob("mazzo-*.whl")
    return {"engine": zipfile.ZipFile(engine), "server": zipfile.ZipFile(server)}


def _top_level(wheel: zipfile.ZipFile) -> set[str]:
    top = {name.split("/", 1)[0] for name in wheel.namelist()}
    dist_info = {entry for entry in top if entry.endswith(".dist-info")}
    assert len(dist_info) == 1
    return top - dist_info


def _metadata(wheel: zipfile.ZipFile, name: str) -> str:
    (path,) = (n for n in wheel.namelist() if n.endswith(f".dist-info/{name}"))
    return wheel.read(path).decode()


def _requirements(wheel: zipfile.ZipFile) -> list[str]:
    return re.findall(r"^Requires-Dist: (.*)$", _metadata(wheel, "METADATA"), re.M)


def test_each_wheel_installs_one_top_level_namespace_mazzo(
    wheels: dict[str, zipfile.ZipFile],
) -> None:
    for wheel in wheels.values():
        assert _top_level(wheel) == {"mazzo"}
        # A namespace package (PEP 420): neither distribution owns mazzo itself.
        assert "mazzo/__init__.py" not in wheel.namelist()


def test_the_engine_wheel_holds_the_engine_alone_and_depends_on_nothing(
    wheels: dict[str, zipfile.ZipFile],
) -> None:
    engine = wheels["engine"]
    modules = [n for n in engine.namelist() if not n.split("/", 1)[0].endswith(".dist-info")]
    assert all(name.startswith("mazzo/engine/") for name in modules), modules
    for needed in ("mazzo/engine/__init__.py", "mazzo/engine/players/world_search.py"):
        assert needed in modules
    assert "mazzo/engine/py.typed" in modules
    assert _requirements(engine) == []


def test_the_engine_wheel_holds_no_arena_only_player(
    wheels: dict[str, zipfile.ZipFile],
) -> None:
    """The arena's baselines (benchmarks/baselines) are research: no module of
    the engine is one, imports one or names one."""
    engine = wheels["engine"]
    arena_only = re.compile("|".join(ARENA_ONLY), re.I)
    assert [name for name in engine.namelist() if arena_only.search(name)] == []
    modules = [name for name in engine.namelist() if name.endswith(".py")]
    assert "mazzo/engine/players/search.py" in modules
    naming = [name for name in modules if arena_only.search(engine.read(name).decode())]
    assert naming == []


def test_the_server_wheel_holds_the_service_the_generated_code_and_the_pages(
    wheels: dict[str, zipfile.ZipFile],
) -> None:
    names = set(wheels["server"].namelist())
    assert not [name for name in names if name.startswith("mazzo/engine/")]
    for needed in (
        "mazzo/service/__main__.py",
        "mazzo/service/main.py",
        "mazzo/service/healthcheck.py",
        "mazzo/v1/__init__.py",
        "mazzo/v1/engine_pb2.py",
        "mazzo/v1/engine_pb2_grpc.py",
        "mazzo/service/static/openapi.json",
        "mazzo/service/static/rapidoc/rapidoc-min.js",
    ):
        assert needed in names, needed
    for path in (SERVICE / "static" / "play").iterdir():
        assert f"mazzo/service/static/play/{path.name}" in names, path.name


def test_the_server_depends_on_the_engine_of_its_own_checkout(
    wheels: dict[str, zipfile.ZipFile], checkout: Path
) -> None:
    engine = [r for r in _requirements(wheels["server"]) if r.startswith("mazzo-engine")]
    assert engine == [f"mazzo-engine @ {(checkout / 'engine').as_uri()}"]


def test_mazzo_serve_runs_the_packaged_main(wheels: dict[str, zipfile.ZipFile]) -> None:
    text = _metadata(wheels["server"], "entry_points.txt")
    assert "mazzo-serve = mazzo.service.main:main" in text


# ---------------------------------------------------------------- installed alone


def _fresh_venv(path: Path) -> Path:
    venv.create(path, with_pip=True)
    return path / "bin" / "python"


def _installed(python: Path) -> set[str]:
    listing = _run(python, "-m", "pip", "list", "--format=freeze", cwd=python.parent)
    return {line.split("==")[0].lower() for line in listing.splitlines() if line}


def readme_example() -> str:
    """The first Python example of engine/README.md, as it is."""
    guide = (REPO / "engine" / "README.md").read_text()
    match = re.search(r"```python\n(.*?)```", guide, re.S)
    assert match, "engine/README.md has no Python example"
    return match[1]


@pytest.fixture(scope="module")
def engine_alone(checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv where `pip install ./engine` ran, and nothing else: its python."""
    python = _fresh_venv(tmp_path_factory.mktemp("engine-venv") / "venv")
    _run(python, "-m", "pip", "install", "--quiet", checkout / "engine", cwd=checkout)
    return python


def test_pip_install_of_the_engine_installs_nothing_but_the_engine(engine_alone: Path) -> None:
    extra = _installed(engine_alone) - {"pip", "setuptools", "mazzo-engine"}
    assert extra == set()
    assert "mazzo-engine" in _installed(engine_alone)


def test_the_engine_guides_example_runs_where_only_the_engine_is_installed(
    engine_alone: Path, tmp_path: Path
) -> None:
    script = tmp_path / "example.py"
    script.write_text(readme_example())
    printed = _run(engine_alone, script, cwd=tmp_path)
    assert re.search(r"^scores \(\d+, \d+\) winner: side [01]$", printed, re.M), printed


#: What the engine must never import: the transports, protobuf, sealing and the service.
NOT_IN_THE_ENGINE = (
    "grpc",
    "flask",
    "werkzeug",
    "google.protobuf",
    "cryptography",
    "mazzo.service",
    "mazzo.v1",
)

_IMPORT_THE_ENGINE = f"""
import pkgutil, sys
import mazzo.engine
for module in pkgutil.walk_packages(mazzo.engine.__path__, "mazzo.engine."):
    __import__(module.name)
forbidden = {NOT_IN_THE_ENGINE!r}
print(sorted(name for name in sys.modules if name.startswith(forbidden)))
"""


def test_the_engine_imports_no_transport_protobuf_or_service_module() -> None:
    # In the project's venv, where all of them could be imported.
    printed = _run(sys.executable, "-c", _IMPORT_THE_ENGINE, cwd=REPO)
    assert printed.strip() == "[]"


_EVERY_MODULE_ONCE = """
import pkgutil, sys
import mazzo.engine, mazzo.service, mazzo.v1
for package in (mazzo.engine, mazzo.service, mazzo.v1):
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        if not module.name.endswith("__main__"):
            __import__(module.name)
files = {}
for name, module in list(sys.modules.items()):
    path = getattr(module, "__file__", None)
    if path and ("/engine/mazzo/" in path or "/service/mazzo/" in path):
        files.setdefault(path, []).append(name)
print(sorted(names for names in files.values() if len(names) > 1))
"""


def test_no_module_of_the_checkout_is_imported_under_two_names() -> None:
    printed = _run(sys.executable, "-c", _EVERY_MODULE_ONCE, cwd=REPO)
    assert printed.strip() == "[]"


# ---------------------------------------------------------------- the server installed


@pytest.fixture(scope="module")
def server_installed(checkout: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv where `pip install .` of the checkout ran: its python."""
    python = _fresh_venv(tmp_path_factory.mktemp("server-venv") / "venv")
    _run(python, "-m", "pip", "install", "--quiet", checkout, cwd=checkout)
    return python


def test_pip_install_of_the_checkout_installs_a_server_that_serves(
    server_installed: Path, tmp_path: Path
) -> None:
    assert {"mazzo", "mazzo-engine", "grpcio"} <= _installed(server_installed)
    # Run outside the checkout: what it serves comes from the venv alone.
    with started(python=server_installed, cwd=tmp_path) as served:
        served.wait_until_listening()
        port = served.ports["REST"]
        reply = http_call(port, "POST", "/v1/games", {"players": 2, "scopa": {}})
        assert reply.status == 200, reply.body
        assert http_call(port, "GET", "/openapi.json").status == 200

"""Every make target the docs name works from a fresh clone: each command it runs finds
what it uses built by a command before it.

A copy of the tracked files (what a fresh clone holds: no .venv, no generated
code, no node_modules) is dry-run, ``make -n TARGET``, for each target named
in a Markdown file of the repository (in a code span or a code block). Nothing
is built there yet, so make lists every command the target would run,
prerequisites first. Each command must come after the last command of each
product it uses:

- a program of the venv (``.venv/bin/...``) uses the venv's install (pip itself
  and ``python -m venv`` aside);
- Python code uses what it imports, followed through the repository's own
  modules: the generated gRPC code (``mazzo.v1``), the Python client
  (``mazzo_client``, whose build generates ``mazzo_client._gen``); pytest runs
  every test module, mypy reads the packages of its configuration; the
  client's ``mazzo`` command is the client;
- a tool run by its path (promtool, buf) uses the rule that puts it there.

The check reads code, not behaviour: it cannot see a file that a program opens
by a path it builds at run time. It runs in seconds; the targets themselves
are run from a fresh clone by hand (see docs/performance.md and the README).
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import tomllib
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: Where the repository's Python modules are found by their names.
MODULE_ROOTS = (REPO, REPO / "service", REPO / "engine", REPO / "clients" / "python" / "src")
#: Products by the Makefile variable naming them, and the import prefixes that use them.
PRODUCTS = {
    "INSTALLED": (),
    "GENERATED": ("mazzo.v1",),
    "PY_CLIENT": ("mazzo_client",),
    "TS_BUILT": (),
    "BUF": (),
    "PROMTOOL": (),
}
CODE_SPAN = re.compile(r"`make ([a-z][a-z0-9_-]*)")
CODE_LINE = re.compile(r"^\s*make ([a-z][a-z0-9_-]*)")


def documented_targets() -> set[str]:
    """Every target named as ``make TARGET`` in a code span or a code block of a tracked .md."""
    names: set[str] = set()
    for path in _tracked("*.md"):
        in_block = False
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.lstrip().startswith("```"):
                in_block = not in_block
                continue
            names.update(CODE_SPAN.findall(line))
            if in_block:
                names.update(CODE_LINE.findall(line))
    return names


def _tracked(pattern: str = "") -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z", *([pattern] if pattern else [])],
        cwd=REPO, capture_output=True, check=True,
    ).stdout  # fmt: skip
    return [REPO / name for name in listed.decode().split("\0") if name]


@pytest.fixture(scope="module")
def fresh_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tracked files as they are now (a fresh clone of what would be committed)."""
    root = tmp_path_factory.mktemp("fresh-clone")
    for source in _tracked():
        if source.is_file():
            target = root / source.relative_to(REPO)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return root


def dry_run(root: Path, target: str) -> list[str]:
    """``make -n TARGET`` in ``root``: the commands, one string each."""
    done = subprocess.run(
        ["make", "--no-print-directory", "-n", target],
        cwd=root, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, f"make -n {target}: {done.stderr}"
    return done.stdout.replace("\\\n", " ").splitlines()


def make_variable(root: Path, name: str) -> str:
    """The value of a variable of the Makefile in ``root``."""
    rule = f"print-variable: ; @echo $({name})"
    printed = subprocess.run(
        ["make", "--no-print-directory", "-s", "--eval", rule, "print-variable"],
        cwd=root, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    return printed.stdout.strip()


@pytest.fixture(scope="module")
def products(fresh_copy: Path) -> dict[str, tuple[str, str]]:
    """By variable: (its path, the last command of its rule)."""
    found = {}
    for variable in PRODUCTS:
        path = make_variable(fresh_copy, variable)
        found[variable] = (path, dry_run(fresh_copy, path)[-1])
    return found


# ---------------------------------------------------------------- what a command uses


def uses(command: str, paths: dict[str, str]) -> set[str]:
    """The products (Makefile variables) ``command`` needs built."""
    program = command.split()[0] if command.split() else ""
    needed = {variable for variable, path in paths.items() if program == path}
    if ".venv/bin/" not in command or re.search(r"-m (pip|venv)\b", command):
        return needed  # a tool run by its path; the installers themselves
    needed.add("INSTALLED")
    if re.search(r"\.venv/bin/mazzo\b", command):
        needed.add("PY_CLIENT")
    imported = imports_of(_python_run_by(command))
    for variable, prefixes in PRODUCTS.items():
        if prefixes and any(name.startswith(prefixes) for name in imported):
            needed.add(variable)
    return needed


def _python_run_by(command: str) -> list[str]:
    """The repository's modules that ``.venv/bin/python ...`` runs, by name."""
    match = re.search(r"\.venv/bin/python (?:-m (\S+)|(\S+\.py))", command)
    if match is None:
        return []
    module = match.group(1) or match.group(2).removesuffix(".py").replace("/", ".")
    if module == "pytest":
        return [_module_name(path) for path in _tracked("tests/*.py")]
    if module == "mypy":
        config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mypy"]
        packages = [REPO / folder for folder in config["files"]]
        return [_module_name(p) for folder in packages for p in folder.rglob("*.py")]
    return [module]


def _module_name(path: Path) -> str:
    for root in sorted(MODULE_ROOTS, key=lambda r: len(r.parts), reverse=True):
        if path.is_relative_to(root):
            return ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
    raise AssertionError(path)


def imports_of(modules: list[str]) -> set[str]:
    """Every module name ``modules`` import, directly or through the repository's own."""
    seen: set[str] = set()
    pending = list(modules)
    while pending:
        name = pending.pop()
        if name not in seen:
            seen.add(name)
            pending.extend(_direct_imports(name))
    return seen


@cache
def _direct_imports(module: str) -> tuple[str, ...]:
    source = _source_of(module)
    return () if source is None else tuple(_imported_by(source))


def _source_of(module: str) -> Path | None:
    parts = module.split(".")
    for root in MODULE_ROOTS:
        for candidate in (root.joinpath(*parts[:-1], f"{parts[-1]}.py"),
                          root.joinpath(*parts, "__init__.py")):  # fmt: skip
            if candidate.is_file():
                return candidate
    return None


def _imported_by(source: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


# ---------------------------------------------------------------- the checks


def test_the_docs_name_only_targets_the_makefile_has(fresh_copy: Path) -> None:
    targets = documented_targets()
    assert {"test", "serve", "image-test", "fuzz"} <= targets  # the docs were read
    for target in sorted(targets):
        dry_run(fresh_copy, target)  # fails on a target make does not know


@pytest.mark.parametrize("target", sorted(documented_targets()))
def test_a_documented_target_builds_what_its_commands_use_before_they_run(
    fresh_copy: Path, products: dict[str, tuple[str, str]], target: str
) -> None:
    commands = dry_run(fresh_copy, target)
    paths = {variable: path for variable, (path, _) in products.items()}
    built: set[str] = set()
    for command in commands:
        missing = uses(command, paths) - built
        assert not missing, f"make {target}: {command!r} runs before {sorted(missing)} is built"
        built |= {variable for variable, (_, last) in products.items() if command == last}

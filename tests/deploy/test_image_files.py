"""The image's recipe: pinned base, locked dependencies, a runtime stage without the
build tools, a numeric non-root user, a health check and sensible settings."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = (REPO / "deploy" / "Dockerfile").read_text()
REQUIREMENTS = REPO / "requirements"
BUILD_ONLY = {"grpcio-tools"}


def requirement_lines(path: Path) -> list[str]:
    lines = (line.split("#")[0].strip() for line in path.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("-")]


def name_of(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def locked(path: Path) -> dict[str, str]:
    """{name: version} of a pip-compile lock file, checking every pin has hashes."""
    text = path.read_text()
    pins = dict(re.findall(r"^([A-Za-z0-9._-]+)==(\S+) \\\n\s+--hash=sha256:", text, re.M))
    assert len(pins) == len(re.findall(r"^[A-Za-z0-9._-]+==", text, re.M)), "a pin without hash"
    return {name.lower(): version for name, version in pins.items()}


def stages() -> list[str]:
    return re.split(r"^FROM ", DOCKERFILE, flags=re.M)[1:]


def test_requirement_inputs_add_up_to_pyprojects_dependencies() -> None:
    # The server's own list (setup.py adds the engine, from engine/, which has none).
    listed = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mazzo"]
    declared = {name_of(d): d.replace(" ", "") for d in listed["dependencies"]}
    engine = tomllib.loads((REPO / "engine" / "pyproject.toml").read_text())["project"]
    assert engine["dependencies"] == []
    runtime = {name_of(r): r for r in requirement_lines(REQUIREMENTS / "runtime.in")}
    build = {name_of(r): r for r in requirement_lines(REQUIREMENTS / "build.in")}
    assert set(build) & set(declared) == BUILD_ONLY
    assert runtime == {name: spec for name, spec in declared.items() if name not in BUILD_ONLY}


def test_the_locks_pin_every_dependency_with_hashes_and_runtime_has_no_build_tools() -> None:
    runtime = locked(REQUIREMENTS / "runtime.lock")
    build = locked(REQUIREMENTS / "build.lock")
    for requirement in requirement_lines(REQUIREMENTS / "runtime.in"):
        assert name_of(requirement) in runtime, requirement
    assert not BUILD_ONLY & set(runtime)
    assert set(build) >= BUILD_ONLY
    shared = set(runtime) & set(build)
    assert all(runtime[name] == build[name] for name in shared), "build.lock drifted"


def test_the_base_is_a_build_argument_pinned_by_digest() -> None:
    (default,) = re.findall(r"^ARG BASE=(\S+)$", DOCKERFILE, re.M)
    assert re.fullmatch(r"python:3\.11[\w.-]*@sha256:[0-9a-f]{64}", default), default
    assert [stage.split()[0] for stage in stages()] == ["${BASE}", "${BASE}"]


def test_the_build_is_multi_stage_and_the_runtime_takes_only_the_venv() -> None:
    builder, runtime = stages()
    assert "AS builder" in builder.splitlines()[0]
    assert "tools/gen_proto.py" in builder and "pip wheel" in builder
    assert "/wheels/mazzo_engine-*.whl /wheels/mazzo-*.whl" in builder  # both distributions
    assert "--require-hashes" in builder
    assert "grpcio-tools" not in runtime and "build.lock" not in runtime
    copies = re.findall(r"^COPY (.*)$", runtime, re.M)
    assert copies == ["--from=builder /opt/venv /opt/venv"]


def test_the_runtime_runs_as_a_numeric_non_root_user_with_a_grpc_health_check() -> None:
    runtime = stages()[-1]
    (user,) = re.findall(r"^USER (\S+)$", runtime, re.M)
    uid = user.split(":")[0]
    assert uid.isdigit() and int(uid) >= 10000
    (check,) = re.findall(r"^HEALTHCHECK .*\n.*CMD (.*)$", runtime, re.M)
    assert '"mazzo.service.healthcheck"' in check


def test_the_runtime_listens_on_every_interface_with_a_set_worker_count() -> None:
    runtime = stages()[-1]
    for variable in ("MAZZO_GRPC_ADDR", "MAZZO_HTTP_ADDR", "MAZZO_METRICS_ADDR"):
        assert re.search(rf"{variable}=0\.0\.0\.0:\d+", runtime), variable
    assert re.search(r"MAZZO_WORKERS=\d+", runtime)

"""Build hook of the server: what the Makefile would make, made by the build.

``pip install`` of a checkout (a folder, ``git+file://``, ``git+https://``)
must give a server that runs, with no ``make`` first. So, before setuptools
looks for packages, this generates the gRPC code into ``service/mazzo/v1``
from ``proto/`` (``tools/gen_proto.py``, the Makefile's way too) and copies
the committed OpenAPI document, ``docs/openapi.json``, into the service's
static files, which ``GET /openapi.json`` serves.

The server depends on the engine, ``mazzo-engine``, a distribution of its own
in ``engine/`` of the same checkout: a dependency that a static list in
pyproject.toml could not name, since pip takes a local folder only by its
absolute address. So the dependencies are pyproject.toml's ``[tool.mazzo]``
list plus ``mazzo-engine @ file:///…/engine``.
"""

from __future__ import annotations

import runpy
import shutil
import sys
import tomllib
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent
ENGINE = HERE / "engine"


def generate() -> None:
    if (HERE / "proto").is_dir():  # a checkout (an sdist carries mazzo/v1 built)
        gen_proto = runpy.run_path(str(HERE / "tools" / "gen_proto.py"))
        if gen_proto["main"]() != 0:
            sys.exit("mazzo: generating the gRPC code from proto/ failed")
    document = HERE / "docs" / "openapi.json"
    if document.is_file():
        static = HERE / "service" / "mazzo" / "service" / "static"
        shutil.copyfile(document, static / "openapi.json")


def dependencies() -> list[str]:
    with open(HERE / "pyproject.toml", "rb") as project:
        listed: list[str] = tomllib.load(project)["tool"]["mazzo"]["dependencies"]
    return [*listed, f"mazzo-engine @ {ENGINE.as_uri()}"]


generate()
setup(install_requires=dependencies())

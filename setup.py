"""Build hook of the server: what the Makefile would make, made by the build.

``pip install`` of a checkout (a folder, ``git+file://``, ``git+https://``)
must give a server that runs, with no ``make`` first. So, before setuptools
looks for packages, this generates the gRPC code into ``mazzo/v1`` from
``proto/`` (``tools/gen_proto.py``, the Makefile's way too) and copies the
committed OpenAPI document, ``docs/openapi.json``, into the service's static
files, which ``GET /openapi.json`` serves.
"""

from __future__ import annotations

import runpy
import shutil
import sys
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent


def generate() -> None:
    if (HERE / "proto").is_dir():  # a checkout (an sdist carries mazzo/v1 built)
        gen_proto = runpy.run_path(str(HERE / "tools" / "gen_proto.py"))
        if gen_proto["main"]() != 0:
            sys.exit("mazzo: generating the gRPC code from proto/ failed")
    document = HERE / "docs" / "openapi.json"
    if document.is_file():
        shutil.copyfile(document, HERE / "mazzo" / "service" / "static" / "openapi.json")


generate()
setup()

# Two commands do all the set-up on a fresh machine: `make serve` and `make test`.
# Each creates .venv, installs the project and generates the gRPC code first.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
PROTOS := $(wildcard proto/mazzo/v1/*.proto)
GENERATED := gen/mazzo/v1/engine_pb2.py

.PHONY: serve test loadtest bench instructions fuzz slowloris lint typecheck gen clean

serve: $(INSTALLED) $(GENERATED)
	$(PY) -m service.main

test: $(INSTALLED) $(GENERATED)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m pytest

# Locust against a server started on free ports of 127.0.0.1; see loadtests/run.py.
LOADTEST_SECONDS ?= 60
loadtest: $(INSTALLED) $(GENERATED)
	$(PY) -m loadtests.run --duration $(LOADTEST_SECONDS) $(LOADTEST_ARGS)

# Engine, token, JSON and service benchmarks: tables, and JSON in benchmarks/results/.
bench: $(INSTALLED) $(GENERATED)
	$(PY) -m benchmarks.run $(BENCH_ARGS)

# Instructions per ply and per handler call, counted by valgrind's callgrind: the
# figure to compare two commits by on a noisy machine (see docs/performance.md).
instructions: $(INSTALLED) $(GENERATED)
	$(PY) -m benchmarks.instructions $(INSTRUCTIONS_ARGS)

# Random and damaged requests on both transports of a served Mazzo; fails on any 5xx,
# INTERNAL/UNKNOWN or answer outside the documented error form (see tools/fuzz.py).
FUZZ_REQUESTS ?= 100000
fuzz: $(INSTALLED) $(GENERATED)
	$(PY) -m tools.fuzz --requests $(FUZZ_REQUESTS) $(FUZZ_ARGS)

# Stalled REST connections against a served Mazzo while a client keeps calling: its
# p99 and how soon the server closes the stalled ones (see tools/slowloris.py).
SLOWLORIS_CONNECTIONS ?= 1000
slowloris: $(INSTALLED) $(GENERATED)
	$(PY) -m tools.slowloris --connections $(SLOWLORIS_CONNECTIONS) $(SLOWLORIS_ARGS)

lint: $(INSTALLED)
	$(PY) -m ruff check .

typecheck: $(INSTALLED)
	$(PY) -m mypy

gen: $(GENERATED)

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Python 3.11 or newer is needed (PYTHON=$(PYTHON))"; exit 1; }
	$(PYTHON) -m venv $(VENV)

# The install step runs again whenever pyproject.toml changes.
$(INSTALLED): pyproject.toml $(VENV)/bin/python
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) tools/gen_proto.py
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

$(GENERATED): $(PROTOS) tools/gen_proto.py $(INSTALLED)
	$(PY) tools/gen_proto.py
	touch $@

clean:
	rm -rf $(VENV) gen

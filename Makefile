# Two commands do all the set-up on a fresh machine: `make serve` and `make test`.
# Each creates .venv, installs the project and generates the gRPC code first.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
PROTOS := $(wildcard proto/mazzo/v1/*.proto)
GENERATED := gen/mazzo/v1/engine_pb2.py
# The clients (clients/python, clients/typescript), built for their tests.
PY_CLIENT := $(VENV)/.mazzo-client
TS_CLIENT := clients/typescript
TS_BUILT := $(TS_CLIENT)/dist/.built

.PHONY: serve test loadtest bench instructions lint typecheck gen clean

serve: $(INSTALLED) $(GENERATED)
	$(PY) -m service.main

test: $(INSTALLED) $(GENERATED) $(PY_CLIENT) $(TS_BUILT)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m pytest

# Locust against a server started on free ports of 127.0.0.1; see loadtests/run.py.
LOADTEST_SECONDS ?= 60
loadtest: $(INSTALLED) $(GENERATED) $(PY_CLIENT) $(TS_BUILT)
	$(PY) -m loadtests.run --duration $(LOADTEST_SECONDS) $(LOADTEST_ARGS)

# Engine, token, JSON and service benchmarks: tables, and JSON in benchmarks/results/.
bench: $(INSTALLED) $(GENERATED)
	$(PY) -m benchmarks.run $(BENCH_ARGS)

# Instructions per ply and per handler call, counted by valgrind's callgrind: the
# figure to compare two commits by on a noisy machine (see docs/performance.md).
instructions: $(INSTALLED) $(GENERATED)
	$(PY) -m benchmarks.instructions $(INSTRUCTIONS_ARGS)

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

# mazzo-client, editable; its build generates its own copy of the gRPC code
# (mazzo_client._gen), so it is built again whenever the proto changes.
# --no-build-isolation: the venv's grpcio-tools, the one that built gen/.
$(PY_CLIENT): $(INSTALLED) $(PROTOS) clients/python/setup.py clients/python/pyproject.toml
	$(PY) -m pip install --quiet --no-build-isolation -e clients/python
	touch $@

# The TypeScript client: npm ci, then its types generated from the proto and tsc.
$(TS_CLIENT)/node_modules/.package-lock.json: $(TS_CLIENT)/package-lock.json
	cd $(TS_CLIENT) && npm ci --no-audit --no-fund
	touch $@

$(TS_BUILT): $(TS_CLIENT)/node_modules/.package-lock.json $(PROTOS) \
		$(wildcard $(TS_CLIENT)/src/*.ts $(TS_CLIENT)/test/*.ts $(TS_CLIENT)/scripts/*) \
		$(wildcard $(TS_CLIENT)/*.json $(TS_CLIENT)/*.yaml)
	cd $(TS_CLIENT) && npm run --silent build
	touch $@

clean:
	rm -rf $(VENV) gen clients/python/proto clients/python/src/mazzo_client/_gen \
		$(TS_CLIENT)/node_modules $(TS_CLIENT)/dist $(TS_CLIENT)/proto $(TS_CLIENT)/src/gen

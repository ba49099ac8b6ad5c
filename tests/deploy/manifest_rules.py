"""What a Mazzo Deployment must get right, as checks that return the problems found.

Each check names the mistake it catches: a probe missing, no preStop delay, a
termination grace period that the preStop delay, the server's drain and its
grace for calls in flight do not fit in, a container that may run as root or
write its root filesystem. tests/deploy/test_manifests.py runs them on the
rendered manifests (no problem) and on broken copies (each problem found).
"""

from __future__ import annotations

from typing import Any

Resource = dict[str, Any]

GRPC_PORT = 50051
#: Seconds the kubelet should have left after the server stopped on its own.
MARGIN_SECONDS = 5


def find(resources: list[Resource], kind: str) -> list[Resource]:
    return [r for r in resources if r["kind"] == kind]


def env_of(container: Resource) -> dict[str, str]:
    return {e["name"]: e.get("value", "") for e in container.get("env", [])}


def prestop_seconds(container: Resource) -> float | None:
    """The preStop delay: a `sleep N` command or Kubernetes' sleep action; None if none."""
    hook = container.get("lifecycle", {}).get("preStop")
    if not hook:
        return None
    if "sleep" in hook:
        return float(hook["sleep"]["seconds"])
    command = hook.get("exec", {}).get("command", [])
    if len(command) == 2 and command[0].rsplit("/", 1)[-1] == "sleep":
        return float(command[1])
    return None


def deployment_problems(deployment: Resource) -> list[str]:
    pod = deployment["spec"]["template"]["spec"]
    problems: list[str] = []
    for container in pod["containers"]:
        problems += probe_problems(container)
        problems += shutdown_problems(pod, container)
        problems += security_problems(pod, container)
        problems += resource_problems(container)
    problems += tmp_problems(pod)
    if not pod.get("topologySpreadConstraints"):
        problems.append("no topology spread constraints")
    return problems


def probe_problems(container: Resource) -> list[str]:
    problems = []
    readiness = container.get("readinessProbe")
    if not readiness:
        problems.append("no readiness probe")
    elif not (
        readiness.get("grpc", {}).get("port") == GRPC_PORT
        or readiness.get("httpGet", {}).get("path") == "/readyz"
    ):
        problems.append("readiness probe is neither gRPC health nor /readyz")
    liveness = container.get("livenessProbe")
    if not liveness:
        problems.append("no liveness probe")
    elif liveness.get("grpc", {}).get("service"):
        # The named service turns NOT_SERVING while draining: liveness would kill the pod.
        problems.append("liveness probe asks a service that turns NOT_SERVING on drain")
    return problems


def shutdown_problems(pod: Resource, container: Resource) -> list[str]:
    prestop = prestop_seconds(container)
    if prestop is None or prestop <= 0:
        return ["no preStop delay"]
    env = env_of(container)
    drain = float(env.get("MAZZO_DRAIN_SECONDS", "0"))
    grace = float(env.get("MAZZO_GRACE_SECONDS", "10"))
    period = pod.get("terminationGracePeriodSeconds", 30)
    needed = prestop + drain + grace + MARGIN_SECONDS
    if period < needed:
        return [
            f"terminationGracePeriodSeconds {period} < preStop {prestop:g} + drain {drain:g}"
            f" + grace {grace:g} + {MARGIN_SECONDS} s margin"
        ]
    return []


def security_problems(pod: Resource, container: Resource) -> list[str]:
    merged = {**pod.get("securityContext", {}), **container.get("securityContext", {})}
    problems = []
    if merged.get("runAsNonRoot") is not True:
        problems.append("runAsNonRoot is not true")
    user = merged.get("runAsUser")
    if not isinstance(user, int) or user == 0:
        problems.append(f"runAsUser {user!r} is not a numeric non-root user")
    if merged.get("allowPrivilegeEscalation") is not False:
        problems.append("privilege escalation allowed")
    if merged.get("readOnlyRootFilesystem") is not True:
        problems.append("root filesystem writable")
    if "ALL" not in merged.get("capabilities", {}).get("drop", []):
        problems.append("capabilities not all dropped")
    if merged.get("capabilities", {}).get("add"):
        problems.append("capabilities added")
    if merged.get("seccompProfile", {}).get("type") != "RuntimeDefault":
        problems.append("seccomp profile is not RuntimeDefault")
    if merged.get("privileged"):
        problems.append("privileged container")
    return problems


def resource_problems(container: Resource) -> list[str]:
    problems = []
    requests = container.get("resources", {}).get("requests", {})
    if "cpu" not in requests or "memory" not in requests:
        problems.append("no CPU and memory requests (the autoscaler needs the CPU one)")
    if "memory" not in container.get("resources", {}).get("limits", {}):
        problems.append("no memory limit")
    if not env_of(container).get("MAZZO_WORKERS"):
        problems.append("MAZZO_WORKERS not set (the default counts the node's cores)")
    return problems


def tmp_problems(pod: Resource) -> list[str]:
    """A read-only root needs a writable /tmp: the metrics of several workers live there."""
    volumes = {v["name"]: v for v in pod.get("volumes", [])}
    for container in pod["containers"]:
        mounts = {m["mountPath"]: m["name"] for m in container.get("volumeMounts", [])}
        name = mounts.get("/tmp")
        if name is None or "emptyDir" not in volumes.get(name, {}):
            return ["no emptyDir at /tmp"]
    return []


def service_problems(resources: list[Resource]) -> list[str]:
    services = find(resources, "Service")
    problems = []
    headless = [
        s
        for s in services
        if s["spec"].get("clusterIP") == "None"
        and any(p["port"] == GRPC_PORT for p in s["spec"]["ports"])
    ]
    if not headless:
        problems.append("no headless Service for gRPC")
    if not any(s["spec"].get("clusterIP") != "None" for s in services):
        problems.append("no regular Service for REST")
    for kind in ("HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy"):
        if not find(resources, kind):
            problems.append(f"no {kind}")
    if not find(resources, "ServiceMonitor"):
        problems.append("no ServiceMonitor")
    return problems


#: ingress-nginx's annotations the Ingresses rely on, and its read timeout's default.
ANNOTATION = "nginx.ingress.kubernetes.io/"
DEFAULT_READ_TIMEOUT = 60.0


def ingress_problems(resources: list[Resource], app: list[Resource]) -> list[str]:
    """What the Ingresses in front of ``app`` (the rendered Deployment and Services)
    must get right: TLS on every host, each backend a port of one of the Services,
    gRPC sent as gRPC (h2c) to the gRPC port and REST as HTTP, a read timeout above
    the server's grace period, and the controller admitted by a NetworkPolicy to
    every port the Ingresses send to."""
    ingresses = find(resources, "Ingress")
    problems = [] if ingresses else ["no Ingress"]
    ports = {
        service["metadata"]["name"]: {port["name"] for port in service["spec"]["ports"]}
        for service in find(app, "Service")
    }
    (deployment,) = find(app, "Deployment")
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    grace = float(env_of(container).get("MAZZO_GRACE_SECONDS", "10"))
    reached: set[str] = set()
    for ingress in ingresses:
        name, spec = ingress["metadata"]["name"], ingress["spec"]
        annotations = ingress["metadata"].get("annotations", {})
        with_tls = {
            host for tls in spec.get("tls", []) if tls.get("secretName") for host in tls["hosts"]
        }
        protocol = annotations.get(ANNOTATION + "backend-protocol", "HTTP")
        for rule in spec.get("rules", []):
            if rule.get("host") not in with_tls:
                problems.append(f"{name}: host {rule.get('host')} without TLS")
            for path in rule.get("http", {}).get("paths", []):
                service = path["backend"]["service"]
                port = service["port"].get("name")
                if port not in ports.get(service["name"], set()):
                    problems.append(f"{name}: backend {service['name']}:{port} is no Service port")
                reached.add(port)
                if (port == "grpc") != (protocol == "GRPC"):
                    problems.append(f"{name}: port {port} with backend-protocol {protocol}")
        read = float(annotations.get(ANNOTATION + "proxy-read-timeout", DEFAULT_READ_TIMEOUT))
        if read <= grace:
            problems.append(
                f"{name}: read timeout {read:g} s, not above the grace period {grace:g} s"
            )
    admitted = {
        port["port"]
        for policy in find(resources, "NetworkPolicy")
        for rule in policy["spec"].get("ingress", [])
        if any("namespaceSelector" in source for source in rule.get("from", []))
        for port in rule.get("ports", [])
    }
    for port in sorted(reached - admitted):
        problems.append(f"the controller is not admitted to port {port}")
    return problems

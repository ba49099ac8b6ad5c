"""Render a kustomization offline, without kubectl: `python -m deploy.kustomize DIR`.

The manifests under deploy/kubernetes use a small part of kustomize, and this
renders exactly that part, so that `make test` can build and check them on a
machine without kubectl: `resources` (files, and directories with their own
kustomization.yaml), `namespace`, `images` (newName, newTag, digest) and
`patches` with a `target` (kind, name) and JSON 6902 operations (add, replace,
remove). Any other field is refused rather than ignored. Where kubectl is
installed, tests/deploy compares this with `kubectl kustomize`.
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path
from typing import Any

import yaml

Resource = dict[str, Any]

SUPPORTED = {"apiVersion", "kind", "resources", "namespace", "images", "patches"}
CLUSTER_SCOPED = {
    "Namespace",
    "CustomResourceDefinition",
    "ClusterRole",
    "ClusterRoleBinding",
    "PersistentVolume",
    "StorageClass",
    "PriorityClass",
}


class KustomizeError(ValueError):
    """A kustomization this renderer cannot build (or that kustomize would refuse)."""


def render(directory: Path) -> list[Resource]:
    """The resources `kubectl kustomize directory` builds (in the order they are listed)."""
    path = directory / "kustomization.yaml"
    kustomization = yaml.safe_load(path.read_text())
    unsupported = set(kustomization) - SUPPORTED
    if unsupported:
        raise KustomizeError(f"{path}: unsupported fields {sorted(unsupported)}")
    resources: list[Resource] = []
    for entry in kustomization.get("resources", []):
        target = directory / entry
        if target.is_dir():
            resources += render(target)
        else:
            resources += [doc for doc in yaml.safe_load_all(target.read_text()) if doc]
    for patch in kustomization.get("patches", []):
        _patch(resources, patch, path)
    for image in kustomization.get("images", []):
        _set_image(resources, image)
    namespace = kustomization.get("namespace")
    if namespace:
        for resource in resources:
            if resource["kind"] not in CLUSTER_SCOPED:
                resource.setdefault("metadata", {})["namespace"] = namespace
    return resources


def _patch(resources: list[Resource], patch: dict[str, Any], where: Path) -> None:
    target = patch.get("target", {})
    if set(target) - {"kind", "name"} or "patch" not in patch:
        raise KustomizeError(f"{where}: a patch needs target kind/name and inline JSON 6902 ops")
    matched = [
        r
        for r in resources
        if r["kind"] == target.get("kind", r["kind"])
        and r["metadata"]["name"] == target.get("name", r["metadata"]["name"])
    ]
    if not matched:
        raise KustomizeError(f"{where}: patch target {target} matches no resource")
    for resource in matched:
        for operation in yaml.safe_load(patch["patch"]):
            apply_operation(resource, operation)


def apply_operation(document: Any, operation: dict[str, Any]) -> None:
    """One JSON 6902 operation (add, replace or remove) applied in place."""
    op, pointer = operation["op"], operation["path"]
    keys = [k.replace("~1", "/").replace("~0", "~") for k in pointer.split("/")[1:]]
    parent = document
    for key in keys[:-1]:
        parent = parent[int(key)] if isinstance(parent, list) else parent[key]
    last = keys[-1]
    if isinstance(parent, list):
        index = len(parent) if last == "-" else int(last)
        if op == "add":
            parent.insert(index, copy.deepcopy(operation["value"]))
        elif op == "replace":
            parent[index] = copy.deepcopy(operation["value"])
        elif op == "remove":
            del parent[index]
        else:
            raise KustomizeError(f"unsupported patch operation {op!r}")
        return
    if op in ("replace", "remove") and last not in parent:
        raise KustomizeError(f"{op} {pointer}: no such field")
    if op in ("add", "replace"):
        parent[last] = copy.deepcopy(operation["value"])
    elif op == "remove":
        del parent[last]
    else:
        raise KustomizeError(f"unsupported patch operation {op!r}")


def _set_image(resources: list[Resource], image: dict[str, str]) -> None:
    for resource in resources:
        pod = resource.get("spec", {}).get("template", {}).get("spec", {})
        for container in pod.get("containers", []) + pod.get("initContainers", []):
            name, tag, digest = split_image(container["image"])
            if name != image["name"]:
                continue
            name = image.get("newName", name)
            if "digest" in image:
                container["image"] = f"{name}@{image['digest']}"
            elif "newTag" in image:
                container["image"] = f"{name}:{image['newTag']}"
            else:
                suffix = f"@{digest}" if digest else f":{tag}" if tag else ""
                container["image"] = name + suffix


def split_image(reference: str) -> tuple[str, str, str]:
    """("registry/name", tag, digest) of an image reference; empty when absent."""
    name, _, digest = reference.partition("@")
    slash = name.rfind("/")
    colon = name.rfind(":")
    if colon > slash:
        return name[:colon], name[colon + 1 :], digest
    return name, "", digest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    args = parser.parse_args()
    yaml.safe_dump_all(render(args.directory), sys.stdout, sort_keys=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())

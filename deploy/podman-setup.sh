#!/usr/bin/env bash
# Prepares this machine to build and run Mazzo's image with podman, where no
# Docker daemon runs and no image registry can be reached (Debian's package
# mirror can). Idempotent: each step checks first and says what it does or
# why it has nothing to do. Needs root (apt-get, /etc/containers). Steps:
#   1. podman, runc and debootstrap from Debian's packages;
#   2. /etc/containers/containers.conf: runc as the runtime (crun refuses a
#      hybrid cgroup layout), cgroupfs as the cgroup manager, and no default
#      ulimits (without that every `podman run` fails to set RLIMIT_NOFILE);
#   3. a local Debian base image, $BASE_IMAGE, made by debootstrap (about 30 s),
#      where python:3.11-slim cannot be pulled;
#   4. $PYTHON_IMAGE: that base plus Debian's python3 (deploy/debian-python.Dockerfile),
#      the BASE that `make image` passes to deploy/Dockerfile.
set -euo pipefail

BASE_IMAGE=${BASE_IMAGE:-localhost/debian-bookworm:minbase}
PYTHON_IMAGE=${PYTHON_IMAGE:-localhost/mazzo-python:bookworm}
SUITE=${SUITE:-bookworm}
HERE=$(cd "$(dirname "$0")" && pwd)
CONF=/etc/containers/containers.conf

say() { printf 'podman-setup: %s\n' "$*"; }

need_packages=()
for tool in podman:podman runc:runc debootstrap:debootstrap; do
    command -v "${tool%%:*}" >/dev/null 2>&1 || need_packages+=("${tool#*:}")
done
if ((${#need_packages[@]})); then
    say "installing ${need_packages[*]} with apt-get"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_packages[@]}" >/dev/null
else
    say "podman, runc and debootstrap are installed"
fi

if [[ -f $CONF ]] && grep -q '^runtime = "runc"' "$CONF" && grep -q '^default_ulimits = \[\]' "$CONF"; then
    say "$CONF already selects runc, cgroupfs and no default ulimits"
else
    say "writing $CONF (runc, cgroupfs, no default ulimits)"
    [[ -f $CONF ]] && cp "$CONF" "$CONF.before-mazzo"
    mkdir -p "$(dirname "$CONF")"
    cat >"$CONF" <<'CONFEOF'
# Written by Mazzo's deploy/podman-setup.sh (a previous file, if any, is kept
# as containers.conf.before-mazzo).
[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
CONFEOF
fi

if podman image exists "$BASE_IMAGE"; then
    say "base image $BASE_IMAGE exists"
else
    rootfs=$(mktemp -d /tmp/mazzo-rootfs.XXXXXX)
    trap 'rm -rf "$rootfs"' EXIT
    say "making base image $BASE_IMAGE with debootstrap --variant=minbase $SUITE"
    debootstrap --variant=minbase "$SUITE" "$rootfs" >/dev/null
    # apt's downloaded packages and lists (about 80 MB) are not part of an image.
    rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/*
    tar -C "$rootfs" -c . | podman import --quiet - "$BASE_IMAGE" >/dev/null
    say "imported $BASE_IMAGE"
fi

if podman image exists "$PYTHON_IMAGE"; then
    say "Python base image $PYTHON_IMAGE exists"
else
    say "building Python base image $PYTHON_IMAGE (Debian's python3 on $BASE_IMAGE)"
    podman build --quiet --network host --build-arg DEBIAN="$BASE_IMAGE" \
        -f "$HERE/debian-python.Dockerfile" -t "$PYTHON_IMAGE" "$HERE" >/dev/null
    say "built $PYTHON_IMAGE"
fi

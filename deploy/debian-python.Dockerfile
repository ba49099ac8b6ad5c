# A Python base for machines that cannot pull python:3.11-slim: the local Debian
# image made by debootstrap (deploy/podman-setup.sh) plus Debian's python3 and
# its venv module. deploy/podman-setup.sh builds it as localhost/mazzo-python:bookworm;
# deploy/Dockerfile then takes it as BASE. Where images can be pulled, the
# Dockerfile's default BASE (python:3.11 slim, pinned by digest) is used instead.
ARG DEBIAN=localhost/debian-bookworm:minbase
FROM ${DEBIAN}

# Versions are not pinned here: Debian stable replaces a package's version with
# each security update, so a pinned version stops installing; this image is
# rebuilt by podman-setup.sh only when it is missing.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*

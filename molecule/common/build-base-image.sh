#!/usr/bin/env bash
# Build the offline Molecule base image (Debian + systemd + python3) with debootstrap and
# `docker import`, so no image registry is needed. Skipped when the image already exists.
#
#   molecule/common/build-base-image.sh            # build if missing
#   molecule/common/build-base-image.sh --force    # rebuild
#
# Environment:
#   TPGEN_MOLECULE_BASE_IMAGE  image name to build  (default tpgen-molecule-base:bookworm)
#   TPGEN_MOLECULE_SUITE       Debian suite          (default bookworm)
#   TPGEN_MOLECULE_MIRROR      Debian mirror URL     (default: the host's, else deb.debian.org)
#
# The host's apt sources are copied into the image when the host runs the same Debian suite, so
# apt inside the containers (network_mode: host) uses the same mirror as the host.
set -euo pipefail

image="${TPGEN_MOLECULE_BASE_IMAGE:-tpgen-molecule-base:bookworm}"
suite="${TPGEN_MOLECULE_SUITE:-bookworm}"
force=0
[[ "${1:-}" == "--force" ]] && force=1

# debootstrap lives in /usr/sbin, which a sudo/su PATH may lack.
export PATH="$PATH:/usr/local/sbin:/usr/sbin:/sbin"
# What runs below: a docker client that reaches a daemon (a docker CLI alone is not an engine).
docker info >/dev/null 2>&1 || {
    echo "build-base-image: no docker daemon answers $(command -v docker || echo 'docker (not installed)'): apt-get install docker.io and start dockerd (scripts/ci/molecule.sh does both)" >&2
    exit 2
}

if [[ $force -eq 0 ]] && docker image inspect "$image" >/dev/null 2>&1; then
    echo "build-base-image: $image exists, nothing to do (use --force to rebuild)"
    exit 0
fi

command -v debootstrap >/dev/null || { echo "build-base-image: debootstrap is missing (apt-get install debootstrap)" >&2; exit 2; }
[[ $(id -u) -eq 0 ]] || { echo "build-base-image: debootstrap needs root" >&2; exit 2; }

host_codename=""
if [[ -r /etc/os-release ]]; then
    # shellcheck disable=SC1091
    host_codename="$(. /etc/os-release && [[ "${ID:-}" == debian ]] && echo "${VERSION_CODENAME:-}")" || true
fi

mirror="${TPGEN_MOLECULE_MIRROR:-}"
if [[ -z "$mirror" && "$host_codename" == "$suite" ]]; then
    mirror="$(grep -hoE '^(URIs:|deb) +[a-z]+://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list 2>/dev/null \
        | awk '{print $2}' | head -n1 || true)"
fi
mirror="${mirror:-http://deb.debian.org/debian}"

workdir="$(mktemp -d /var/tmp/tpgen-base-image.XXXXXX)"
rootfs="$workdir/rootfs"
cleanup() { rm -rf --one-file-system "$workdir"; }
trap cleanup EXIT

start=$(date +%s)
echo "build-base-image: debootstrap $suite from $mirror into $rootfs"
debootstrap --variant=minbase \
    --include=python3,python3-apt,systemd,systemd-sysv,ca-certificates,iproute2,procps \
    "$suite" "$rootfs" "$mirror" >"$workdir/debootstrap.log" 2>&1 || {
    tail -n 30 "$workdir/debootstrap.log" >&2
    echo "build-base-image: debootstrap failed (full log above)" >&2
    exit 1
}

# apt sources: the host's when it runs the same suite (same mirror, same keyrings), else the mirror.
rm -f "$rootfs/etc/apt/sources.list"
if [[ "$host_codename" == "$suite" ]]; then
    copied=0
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [[ -f "$f" ]] || continue
        # Only Debian's own archives: third-party repos need keys the image does not have.
        grep -qE 'debian\.org|/debian(-security)?/? ' "$f" || continue
        mkdir -p "$rootfs$(dirname "$f")"
        cp "$f" "$rootfs$f"
        copied=1
    done
    [[ $copied -eq 1 ]] || echo "deb $mirror $suite main" >"$rootfs/etc/apt/sources.list"
else
    echo "deb $mirror $suite main" >"$rootfs/etc/apt/sources.list"
fi

# Lean image: no recommends, no docs; a container-friendly systemd.
cat >"$rootfs/etc/apt/apt.conf.d/90tpgen-molecule" <<'APT'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
APT
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/90tpgen-molecule" <<'DPKG'
path-exclude=/usr/share/doc/*
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
path-include=/usr/share/locale/locale.alias
DPKG
rm -rf "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/var/cache/apt/*.bin \
    "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb
: >"$rootfs/etc/machine-id"
# Empty apt lists with an old mtime: apt's cache_valid_time must not take them for a fresh cache.
touch -d '2000-01-01' "$rootfs/var/lib/apt/lists"
for unit in getty.target console-getty.service systemd-remount-fs.service \
            systemd-firstboot.service systemd-udevd.service systemd-udevd-control.socket \
            systemd-udevd-kernel.socket; do
    ln -sf /dev/null "$rootfs/etc/systemd/system/$unit"
done

echo "build-base-image: importing $image"
tar -C "$rootfs" -c . | docker import \
    --change 'ENV container=docker' \
    --change 'CMD ["/lib/systemd/systemd"]' \
    --message "tpgen molecule base ($suite, debootstrap minbase)" \
    - "$image" >/dev/null
echo "build-base-image: built $image in $(( $(date +%s) - start ))s"

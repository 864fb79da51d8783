#!/usr/bin/env bash
# Run the Molecule scenarios (molecule/*/molecule.yml) one after the other and print the wall
# time of each (create -> destroy). Sets up what they need (scripts/ci/deps.sh molecule: the
# docker engine from docker.io -- the machine's own docker is a client only --, debootstrap,
# xfsprogs), a running docker daemon and the offline base image (see molecule/common/README.md).
#
#   scripts/ci/molecule.sh                 # every scenario
#   scripts/ci/molecule.sh disks source    # only these
#   scripts/ci/molecule.sh trixie          # only the Debian 13 checks (below)
#
# A full run then checks Debian 13: the tests marked `containers` (nginx 1.26 in a container) and
# the scenarios in TPGEN_MOLECULE_TRIXIE_SCENARIOS (default: default source) on a trixie base
# image; its images build in the background while the Debian 12 scenarios run. One scenario on
# Debian 13 only:
#   TPGEN_MOLECULE_TRIXIE_SCENARIOS=source scripts/ci/molecule.sh trixie
#
# Environment: TPGEN_MOLECULE_IMAGE (another image, e.g. debian:bookworm on a networked machine:
# the base image is then not built, and no trixie run), TPGEN_VENV_BIN (default
# <repo>/.venv/bin), TPGEN_MOLECULE_TRIXIE_SCENARIOS (space-separated; empty: none).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
# dockerd and debootstrap live in /usr/sbin, which a sudo/su PATH may lack.
export PATH="${TPGEN_VENV_BIN:-$root/.venv/bin}:$PATH:/usr/local/sbin:/usr/sbin:/sbin"
base_image="${TPGEN_MOLECULE_BASE_IMAGE:-tpgen-molecule-base:bookworm}"
image="${TPGEN_MOLECULE_IMAGE:-$base_image}"

log() { echo "molecule.sh: $*"; }

# --- system packages: what is run below (dockerd, not just the docker CLI), see deps.sh ----------
scripts/ci/deps.sh install molecule
for tool in molecule ansible-playbook pytest; do
    command -v "$tool" >/dev/null || { log "$tool not found: install the dev extra (scripts/install.sh with TPGEN_EXTRAS='.[dev]')" >&2; exit 2; }
done

# --- docker daemon: share a running one, else start one --------------------------------------------
if ! docker info >/dev/null 2>&1; then
    if pgrep -x dockerd >/dev/null; then
        log "dockerd is starting, waiting for it"
    else
        log "starting dockerd (log: /var/log/dockerd.log)"
        # Without the descriptors this script inherited beyond stdio: under
        # `flock /tmp/tpgen-molecule.lock scripts/ci/molecule.sh`, dockerd (and its containerd)
        # would hold the lock for as long as they run, and every later flock would wait forever.
        (
            for fd in /proc/self/fd/*; do
                fd=${fd##*/}
                if [[ $fd -gt 2 ]]; then eval "exec $fd>&-"; fi
            done 2>/dev/null
            exec nohup dockerd --iptables=false --ip-masq=false >/var/log/dockerd.log 2>&1 </dev/null
        ) &
    fi
    for _ in $(seq 1 60); do
        docker info >/dev/null 2>&1 && break
        sleep 1
    done
    if ! err=$(docker info 2>&1 >/dev/null); then
        if pgrep -x dockerd >/dev/null; then
            log "dockerd runs but the client $(command -v docker) cannot talk to it: $err" >&2
        else
            tail -n 20 /var/log/dockerd.log >&2 || true
            log "docker daemon did not come up; see /var/log/dockerd.log (last lines above)" >&2
        fi
        exit 1
    fi
fi

# --- base image (cached: skipped when it exists) -------------------------------------------------
if [[ "$image" == "$base_image" ]]; then
    molecule/common/build-base-image.sh
fi

# --- scenarios ----------------------------------------------------------------------------------
# `trixie` among the arguments (or a full run) adds the Debian 13 checks below.
scenarios=()
trixie=0
if [[ $# -gt 0 ]]; then
    for s in "$@"; do
        if [[ $s == trixie ]]; then trixie=1; else scenarios+=("$s"); fi
    done
else
    for f in molecule/*/molecule.yml; do
        scenarios+=("$(basename "$(dirname "$f")")")
    done
    trixie=1
fi
# Another image than the base image is the caller's choice of distro: no trixie run then.
[[ -z "${TPGEN_MOLECULE_IMAGE:-}" ]] || trixie=0
[[ ${#scenarios[@]} -gt 0 || $trixie -eq 1 ]] || { log "no scenarios under molecule/" >&2; exit 1; }

[[ -t 1 ]] || export NO_COLOR=1 ANSIBLE_NOCOLOR=1 PY_COLORS=0

# --- the collection as users get it: the default scenario runs the built tarball, installed into
# a clean collections path (--no-deps: Galaxy is unreachable; ansible.posix and
# community.general come with the ansible package); the other scenarios run the checkout.
# The trixie runs (TPGEN_MOLECULE_TRIXIE_SCENARIOS, default among them) need it too.
if [[ " ${scenarios[*]} " == *" default "* || $trixie -eq 1 ]]; then
    collections=$(mktemp -d "${TMPDIR:-/tmp}/tpgen-collections.XXXXXX")
    trap 'rm -rf "$collections"' EXIT
    start=$SECONDS
    tarball=$(scripts/collection.sh build "$collections/dist")
    (cd "$collections" && ansible-galaxy collection install --no-deps --force -p "$collections" "$tarball")
    export TPGEN_COLLECTIONS_PATH="$collections"
    log "collection: built and installed $(basename "$tarball") in $((SECONDS - start))s"
fi
results=()
failed=0
# Each run's output goes to the terminal and to $run_logs/LABEL.N.log. A failed scenario runs once
# more (TPGEN_MOLECULE_RETRIES, default 1; 0: never): the scenarios that put a load on the host
# (self-heal, disk-failure) time their checks, and a second run tells a busy machine from a broken
# node. Either way the first failure is printed at the end, after the table, where CI's truncated
# log still shows it; a scenario that passed only on its retry says so in the table.
run_logs=$(mktemp -d "${TMPDIR:-/tmp}/tpgen-molecule-logs.XXXXXX")
retries=${TPGEN_MOLECULE_RETRIES:-1}
digest=$run_logs/digest.txt
: >"$digest"
# The Debian 13 images (debootstrap, then Debian's nginx 1.26 in a container) are downloads for the
# most part: built while the Debian 12 scenarios run, they cost minutes less on a slow mirror.
trixie_images=""
if [[ $trixie -eq 1 ]]; then
    scripts/ci/nginx-image.sh trixie >"$run_logs/trixie-images.log" 2>&1 &
    trixie_images=$!
    log "building the Debian 13 images in the background (log: $run_logs/trixie-images.log)"
fi
# run_scenario LABEL COMMAND...
run_scenario() {
    local label=$1 attempt=0 start=$SECONDS status
    shift
    while :; do
        attempt=$((attempt + 1))
        log "=== scenario $label (run $attempt)"
        if "$@" 2>&1 | tee "$run_logs/$label.$attempt.log"; then
            status=ok
            [[ $attempt -eq 1 ]] || status=ok-rerun
            break
        fi
        {
            echo "--- $label, run $attempt failed (full log: $run_logs/$label.$attempt.log):"
            scripts/ci/failure-digest.sh "$run_logs/$label.$attempt.log"
        } >>"$digest"
        if [[ $attempt -gt $retries ]]; then
            status=FAILED
            failed=1
            break
        fi
        log "=== scenario $label failed; running it once more (the failure is printed at the end)"
    done
    results+=("$(printf '%-20s %-8s %5ss' "$label" "$status" $((SECONDS - start)))")
    log "=== scenario $label: $status in $((SECONDS - start))s"
}
for s in "${scenarios[@]+"${scenarios[@]}"}"; do
    run_scenario "$s" molecule test -s "$s"
done

# --- Debian 13 (trixie): nginx 1.26's checks, and the scenarios that run on both Debians ------
# In a full run, or with `trixie` named. On both Debians by default: default (distro nginx
# 1.22/1.26, disks, TLS, the cache path) and source (a 1.22 build on 12, 1.26 with HTTP/3 on 13).
# disk-failure and official also pass on 13 (TPGEN_MOLECULE_TRIXIE_SCENARIOS="default disk-failure
# source official") but are left to Debian 12 in CI: on a fresh machine with a slow mirror the
# whole run took 81-85 of CI's 90 minutes with them (docs/ci.md has each scenario's time).
if [[ $trixie -eq 1 ]]; then
    read -r -a trixie_scenarios <<<"${TPGEN_MOLECULE_TRIXIE_SCENARIOS-default source}"
    start=$SECONDS
    if ! wait "$trixie_images"; then
        cat "$run_logs/trixie-images.log" >&2
        log "building the Debian 13 images failed (its log above)" >&2
        exit 1
    fi
    cat "$run_logs/trixie-images.log"
    log "trixie base image and tpgen-nginx:trixie ready (waited $((SECONDS - start))s for them)"
    # The tests that need the docker engine: nginx 1.26 goldens, HTTP/3 (pytest phase skips them).
    run_scenario containers pytest -q -p no:cacheprovider -m containers tests
    for s in "${trixie_scenarios[@]}"; do
        run_scenario "$s@trixie" env TPGEN_MOLECULE_BASE_IMAGE=tpgen-molecule-base:trixie \
            TPGEN_MOLECULE_IMAGE=tpgen-molecule-base:trixie molecule test -s "$s"
    done
fi

log "per-scenario wall times (create -> destroy):"
printf '  %s\n' "${results[@]}"
if [[ -s $digest ]]; then
    log "what failed (ok-rerun: failed once, passed when run again):"
    cat "$digest"
fi
exit "$failed"

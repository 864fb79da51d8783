#!/usr/bin/env bash
# What the phases of scripts/install.sh and scripts/test.sh run, and the Debian packages that
# provide what is missing. A program counts as present only when the very program a phase runs is
# found and works: the docker CLI is not a docker engine (dockerd), a dpkg entry is not a binary,
# an nginx without --with-threads is not one tpgen accepts.
#
#   scripts/ci/deps.sh check PHASE...     # the missing Debian packages, one per line
#   scripts/ci/deps.sh install PHASE...   # apt-get install them (root), then check again
#
# Phases:
#   install    tpgen itself: python3 >= 3.11 with venv/ensurepip, nginx built --with-threads
#   system     the pytest phase: install + wrk, losetup/lsblk, mount, mkfs.ext4, mkfs.xfs
#   molecule   dockerd and a docker client, containerd, runc, losetup, mkfs.xfs, pgrep, and
#              debootstrap unless TPGEN_MOLECULE_IMAGE names another image than the base image
#   terraform  terraform >= 1.9 (TERRAFORM, PATH or /usr/local/bin): no Debian package, reported
#
# What a package cannot fix (an nginx without --with-threads ahead on PATH, no terraform, an old
# python3) is printed to stderr as `deps.sh: ...` with the fix, and the exit status is 1.
# Uses only bash builtins besides the programs it probes, so a test can run it with a PATH that
# holds nothing but fakes.
#
# Environment: TPGEN_DEPS_FALLBACK_PATH  directories searched after PATH (default
# /usr/local/sbin:/usr/sbin:/sbin:/usr/local/bin: daemons and nginx live there and a sudo/su PATH may
# lack them; tpgen itself falls back to /usr/sbin/nginx, terraform.sh to /usr/local/bin/terraform);
# TPGEN_POLICY_RC_D  the policy-rc.d that keeps apt from starting services (default
# /usr/sbin/policy-rc.d; left alone when it exists); TPGEN_NGINX, TERRAFORM, TPGEN_MOLECULE_IMAGE,
# TPGEN_MOLECULE_BASE_IMAGE as the phases use them.
set -uo pipefail

fallback=${TPGEN_DEPS_FALLBACK_PATH-/usr/local/sbin:/usr/sbin:/sbin:/usr/local/bin}
PATH="${PATH}${fallback:+:$fallback}"

packages=()
problems=()

want() { # PACKAGE: needed; kept once, in first-seen order
  local p
  for p in "${packages[@]}"; do [[ $p == "$1" ]] && return 0; done
  packages+=("$1")
}
problem() { problems+=("$1"); }
have() { type -P "$1" >/dev/null; }
need() { # PROGRAM PACKAGE
  have "$1" || want "$2"
}

# The python3 that install.sh runs must make a venv: Debian ships ensurepip in python3-venv.
check_python() {
  local py
  py=$(type -P python3) || { want python3; want python3-venv; return; }
  if ! "$py" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    problem "$py is older than 3.11 (tpgen needs >= 3.11; Debian 12's python3 is 3.11): put a newer python3 first on PATH"
    return
  fi
  "$py" -c 'import ensurepip, venv' 2>/dev/null || want python3-venv
}

# The nginx tpgen runs: $TPGEN_NGINX, else PATH, else /usr/sbin/nginx (tpgen/check.py's order).
# A packaged binary without threads (replaced, diverted) gets its package reinstalled; any other
# build is reported. Bookworm's /usr/sbin/nginx is in package nginx, pulled in by nginx-core.
check_nginx() {
  local nginx
  if [[ -n ${TPGEN_NGINX:-} ]]; then
    nginx=$TPGEN_NGINX
    [[ -x $nginx ]] || { problem "TPGEN_NGINX=$nginx is not an executable: unset it or point it at an nginx built --with-threads"; return; }
  else
    nginx=$(type -P nginx) || { want nginx-core; return; }
  fi
  local info
  info=$("$nginx" -V 2>&1)
  [[ $info == *--with-threads* ]] && return
  local owner
  # Merged /usr: dpkg may have recorded /sbin/nginx for /usr/sbin/nginx.
  owner=$(dpkg-query -S "$nginx" 2>/dev/null || dpkg-query -S "${nginx#/usr}" 2>/dev/null)
  owner=${owner%%$'\n'*}
  owner=${owner%%:*}
  owner=${owner%%,*}
  if [[ $owner == nginx* ]]; then
    want "$owner"
  else
    problem "$nginx is built without --with-threads (tpgen refuses it): remove it from PATH or set TPGEN_NGINX to an nginx built with it, e.g. Debian's nginx-core (/usr/sbin/nginx)"
  fi
}

check_system() {
  need wrk wrk
  need losetup mount
  need lsblk util-linux
  need mount mount
  need umount mount
  need mkfs.ext4 e2fsprogs
  need mkfs.xfs xfsprogs
  # the bench samples the loads' connections during a trial (bench/sockets.py)
  need ss iproute2
  # nginx -t of a config with TLS to the origin reads Debian's CA bundle (tests/cases/cache-origin-tls)
  [[ -r /etc/ssl/certs/ca-certificates.crt ]] || want ca-certificates
  # the live TLS test asks nginx over HTTP/1.1 and HTTP/2 (tests/test_edge_live.py)
  need curl curl
  # tests/test_metrics.py: `promtool check metrics` on doctor's series (Debian ships promtool
  # only in the server's package; policy-rc.d keeps apt from starting that server)
  need promtool prometheus
}

# Molecule runs dockerd itself when no daemon answers; the engine (dockerd, containerd, runc)
# and the client it is driven with both come from docker.io, and a docker CLI alone is no engine.
check_molecule() {
  need dockerd docker.io
  local docker
  if docker=$(type -P docker) && "$docker" --version >/dev/null 2>&1; then :; else want docker.io; fi
  need containerd containerd
  need runc runc
  need losetup mount
  need mkfs.xfs xfsprogs
  need pgrep procps
  local base=${TPGEN_MOLECULE_BASE_IMAGE:-tpgen-molecule-base:bookworm}
  if [[ ${TPGEN_MOLECULE_IMAGE:-$base} == "$base" ]]; then
    need debootstrap debootstrap
  fi
}

# Prints the terraform binary the terraform phase runs; non-zero when there is none.
terraform_bin() {
  local bin=${TERRAFORM:-}
  [[ -n $bin ]] || bin=$(type -P terraform) || return 1
  [[ -x $bin ]] || return 1
  printf '%s\n' "$bin"
}

check_terraform() {
  local bin version
  bin=$(terraform_bin) || {
    problem "terraform is not installed: the terraform phase needs >= 1.9 on PATH (https://developer.hashicorp.com/terraform/install), or TERRAFORM=/path"
    return
  }
  version=$("$bin" version -json 2>/dev/null)
  if [[ $version =~ \"terraform_version\":\ *\"([0-9]+)\.([0-9]+) ]]; then
    local major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
    ((major > 1 || (major == 1 && minor >= 9))) && return
    problem "$bin is terraform $major.$minor: the modules need >= 1.9"
  else
    problem "$bin version -json printed no terraform_version: is it terraform?"
  fi
}

check_phase() {
  case $1 in
  install) check_python; check_nginx ;;
  system) check_python; check_nginx; check_system ;;
  molecule) check_molecule ;;
  terraform) check_terraform ;;
  *) echo "deps.sh: unknown phase '$1' (install, system, molecule, terraform)" >&2; exit 2 ;;
  esac
}

check_all() {
  packages=()
  problems=()
  hash -r
  local phase
  for phase in "$@"; do check_phase "$phase"; done
}

report_problems() {
  local p
  for p in "${problems[@]}"; do echo "deps.sh: $p" >&2; done
  [[ ${#problems[@]} -eq 0 ]]
}

# apt-get, quiet on success; its log's tail on failure. --reinstall also restores a program whose
# package is still registered but whose files are gone.
apt_install() {
  # Kept: what apt did is worth a look even when it worked. mktemp: a fixed name in /tmp, written
  # as root, is one another user could plant a link at.
  local log
  log=$(mktemp "${TMPDIR:-/tmp}/tpgen-apt.XXXXXX.log") || return 1
  local own_policy=0 policy=${TPGEN_POLICY_RC_D:-/usr/sbin/policy-rc.d}
  # policy-rc.d 101: no package may start a service (nginx's default site on :80, dockerd) here.
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && own_policy=1
    # Killed mid-apt, the policy must still go: left behind, no package could start a service.
    local remove
    remove="rm -f $(printf %q "$policy")"
    # shellcheck disable=SC2064 # the path is expanded now, on purpose
    trap "$remove" EXIT && trap "$remove; exit 130" INT && trap "$remove; exit 143" TERM
  fi
  local rc=0
  {
    apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends --reinstall "$@"
  } >"$log" 2>&1 || rc=$?
  if [[ $own_policy == 1 ]]; then
    rm -f "$policy"
    trap - EXIT INT TERM
  fi
  if [[ $rc != 0 ]]; then
    local lines
    mapfile -t lines <"$log"
    printf '%s\n' "${lines[@]: -30}" >&2
    echo "deps.sh: apt-get install $* failed (exit $rc); full log: $log" >&2
    return 1
  fi
}

main() {
  local mode=${1:-}
  shift || true
  [[ $# -gt 0 && ($mode == check || $mode == install) ]] || {
    echo "usage: deps.sh check|install PHASE... (phases: install, system, molecule, terraform)" >&2
    exit 2
  }
  check_all "$@"
  if [[ $mode == check ]]; then
    [[ ${#packages[@]} -eq 0 ]] || printf '%s\n' "${packages[@]}"
    report_problems || exit 1
    exit 0
  fi
  report_problems || exit 1
  [[ ${#packages[@]} -eq 0 ]] && exit 0
  if [[ $EUID != 0 ]] || ! have apt-get; then
    echo "deps.sh: missing Debian packages: ${packages[*]}; install them as root: apt-get install ${packages[*]}" >&2
    exit 1
  fi
  local wanted=("${packages[@]}")
  echo "deps.sh: installing ${wanted[*]}"
  apt_install "${wanted[@]}" || exit 1
  check_all "$@"
  if [[ ${#packages[@]} -gt 0 ]]; then
    echo "deps.sh: still missing after installing ${wanted[*]}: ${packages[*]} (is a program shadowed on PATH?)" >&2
    exit 1
  fi
  report_problems || exit 1
}

# Sourced (terraform.sh): only the functions above.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  main "$@"
fi

#!/usr/bin/env bash
# Install tpgen into ./.venv (and, as root on Debian, the nginx that `tpgen render` checks with).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  missing=()
  command -v python3 >/dev/null || missing+=(python3)
  python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
  command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx-core)
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    # policy-rc.d 101: the package must not start a default site on port 80 while installing.
    own_policy=0
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod 755 /usr/sbin/policy-rc.d
      own_policy=1
    fi
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
    [ "$own_policy" = 1 ] && rm -f /usr/sbin/policy-rc.d
  fi
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip >/dev/null
.venv/bin/pip install -q -e "${TPGEN_EXTRAS:-.}"
echo "tpgen installed: $(.venv/bin/tpgen --version)"

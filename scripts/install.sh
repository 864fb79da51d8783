#!/usr/bin/env bash
# Install tpgen into ./.venv (editable), and, as root on Debian, what `tpgen render` runs: a python3
# that makes venvs and nginx built --with-threads (scripts/ci/deps.sh, phase "install").
# Quiet on success: pip's output goes to .venv/install.log, whose tail is shown when pip fails.
#   TPGEN_EXTRAS='.[dev]' scripts/install.sh    # with the developer tools (scripts/test.sh does this)
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ $EUID == 0 ]] && command -v apt-get >/dev/null; then
  scripts/ci/deps.sh install install
elif missing=$(scripts/ci/deps.sh check install) && [[ -n $missing ]]; then
  missing=${missing//$'\n'/ }
  echo "install.sh: not root, so not installing the Debian packages tpgen needs: $missing" >&2
  echo "install.sh: as root: apt-get install $missing" >&2
fi

[[ -x .venv/bin/python ]] || python3 -m venv .venv
log=.venv/install.log
pip_quiet() {
  if ! .venv/bin/python -m pip "$@" >>"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "install.sh: pip $* failed; full log: $log" >&2
    exit 1
  fi
}
: >"$log"
pip_quiet install --upgrade pip
pip_quiet install -e "${TPGEN_EXTRAS:-.}"
echo "$(.venv/bin/tpgen --version) installed in .venv/bin"

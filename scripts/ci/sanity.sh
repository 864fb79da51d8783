#!/usr/bin/env bash
# The collection phase: build tpgen.storage (scripts/collection.sh), install the tarball into a
# clean collections path and run `ansible-test sanity` on the INSTALLED copy.
#
#   scripts/ci/sanity.sh            # build, install, every sanity test on Python 3.11
#   scripts/ci/sanity.sh --test pylint --test validate-modules   # arguments go to ansible-test
#
# No Docker registry is reachable here, so not the default sanity container: ansible-test runs
# --local from its own venv ($TPGEN_SANITY_VENV, default .cache/ansible-test-venv: ansible-core
# as in .venv, installed from the package index), and creates each test's venv with the pinned
# requirements from the index. Its pip bootstrap script comes from ci-files.testing.ansible.com,
# which is not reachable either: a stand-in that does what get-pip does (pip install --upgrade
# --force-reinstall ARGS, with the venv's own pip) is put in ansible-test's cache once.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
export PATH="${TPGEN_VENV_BIN:-$root/.venv/bin}:$PATH"
log() { echo "sanity.sh: $*"; }

python=${TPGEN_SANITY_PYTHON:-3.11}
venv=${TPGEN_SANITY_VENV:-$root/.cache/ansible-test-venv}
core=$(python -c 'import ansible.release as r; print(r.__version__)')

# --- ansible-test's own venv, with the ansible-core that .venv has -------------------------------
if [[ "$("$venv/bin/python" -c 'import ansible.release as r; print(r.__version__)' 2>/dev/null)" != "$core" ]]; then
    log "creating $venv with ansible-core $core"
    rm -rf "$venv"
    "python$python" -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "ansible-core==$core"
fi

# --- the pip bootstrap stand-in -------------------------------------------------------------------
requirements=$("$venv/bin/python" -c 'import ansible_test, os; print(os.path.dirname(ansible_test.__file__))')/_internal/python_requirements.py
pip_version=$(sed -n "s/^ *pip='\([0-9.]*\)',\$/\1/p" "$requirements")
[[ -n $pip_version ]] || { log "cannot find ansible-test's pip version in $requirements" >&2; exit 1; }
bootstrap="$HOME/.ansible/test/cache/get_pip_${pip_version//./_}.py"
if [[ ! -f $bootstrap ]]; then
    mkdir -p "$(dirname "$bootstrap")"
    site=$("$venv/bin/python" -c 'import pip, os; print(os.path.dirname(os.path.dirname(pip.__file__)))')
    cat >"$bootstrap" <<EOF
# Stand-in for pypa's get-pip.py, written by tpgen's scripts/ci/sanity.sh: ansible-test downloads
# get-pip from ci-files.testing.ansible.com, which this network cannot reach. This does what
# get-pip does -- pip install --upgrade --force-reinstall ARGS -- with an installed pip.
import runpy
import sys

sys.path.insert(0, "$site")
args = [a for a in sys.argv[1:] if a not in ("--no-setuptools", "--no-wheel")]  # get-pip's own
sys.argv = [sys.argv[0], "install", "--upgrade", "--force-reinstall", *args]
runpy.run_module("pip", run_name="__main__", alter_sys=True)
EOF
    log "wrote the pip $pip_version bootstrap stand-in: $bootstrap"
fi

# --- build, install into a clean path, sanity on the installed copy -------------------------------
work=$(mktemp -d "${TMPDIR:-/tmp}/tpgen-sanity.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$SECONDS
tarball=$(scripts/collection.sh build "$work/dist")
(cd "$work" && ansible-galaxy collection install --no-deps --force -p "$work/collections" "$tarball")
log "built and installed $(basename "$tarball") in $((SECONDS - start))s"
cd "$work/collections/ansible_collections/tpgen/storage"
"$venv/bin/ansible-test" sanity --local --python "$python" --requirements --color no "$@"

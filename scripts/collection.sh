#!/usr/bin/env bash
# Build the Ansible collection tpgen.storage from this checkout into OUTDIR (default dist/) and
# print the tarball's path.
#
#   scripts/collection.sh build [OUTDIR]
#
# The checkout is the collection (roles/, plugins/, playbooks/ at its root; docs/collection.md
# says why). The build stages a copy of just those, plus collection/ (galaxy.yml, README.md,
# meta/runtime.yml, requirements.txt), LICENSE and CHANGELOG.md, then runs ansible-galaxy
# collection build on it. Staging does three things a build in place cannot:
#   - galaxy.yml gets tpgen's version (stated once, in generator/tpgen/__init__.py), and
#     requirements.txt pins tpgen to it;
#   - plugins/module_utils/tpgen's symlinks into generator/ are copied as files, so the tarball
#     carries the node-side doctor itself and nothing else of generator/;
#   - only files git tracks or would add are copied: no caches, no local leftovers.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export PATH="${TPGEN_VENV_BIN:-$root/.venv/bin}:$PATH"

usage() { echo "usage: scripts/collection.sh build [OUTDIR]" >&2; exit 2; }
[[ ${1:-} == build ]] || usage
out=${2:-dist}
[[ $# -le 2 ]] || usage

version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' generator/tpgen/__init__.py)
[[ -n $version ]] || { echo "collection.sh: no __version__ in generator/tpgen/__init__.py" >&2; exit 1; }
command -v ansible-galaxy >/dev/null || {
    echo "collection.sh: ansible-galaxy not found: install the dev extra (scripts/install.sh with TPGEN_EXTRAS='.[dev]')" >&2
    exit 2
}

stage=$(mktemp -d "${TMPDIR:-/tmp}/tpgen-collection.XXXXXX")
trap 'rm -rf "$stage"' EXIT

# What a commit can carry under the collection's directories, symlinks followed (cp -L).
git ls-files -z --cached --others --exclude-standard -- roles plugins playbooks LICENSE CHANGELOG.md |
    while IFS= read -r -d '' path; do
        [[ -e $path ]] || continue # deleted in the work tree, not yet in the index
        mkdir -p "$stage/$(dirname "$path")"
        cp -L "$path" "$stage/$path"
    done
cp -R collection/. "$stage/"
printf '\nversion: %s\n' "$version" >>"$stage/galaxy.yml"
sed -i "s/^tpgen\$/tpgen==$version/" "$stage/requirements.txt"
grep -qx "tpgen==$version" "$stage/requirements.txt" || {
    echo "collection.sh: collection/requirements.txt must name tpgen on a line of its own" >&2
    exit 1
}

mkdir -p "$out"
ansible-galaxy collection build "$stage" --output-path "$out" --force >&2
echo "$(cd "$out" && pwd)/tpgen-storage-$version.tar.gz"

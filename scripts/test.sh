#!/usr/bin/env bash
# The whole test suite, as CI runs it: lint, unit/golden/property/live tests, Terraform, Molecule.
# Installs what it needs (Debian packages, the venv, the Docker engine and base image) itself.
# TPGEN_SKIP_MOLECULE=1 leaves out the slow container scenarios (never in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1

timings=()
phase() {
  local name=$1; shift
  local start=$SECONDS
  echo "=== $name"
  "$@"
  timings+=("$(printf '%-10s %5ss' "$name" $((SECONDS - start)))")
}
report() {
  local rc=$?
  echo "=== phase times"
  printf '  %s\n' "${timings[@]}"
  exit "$rc"
}
trap report EXIT

system_deps() {
  local want=(nginx-core wrk xfsprogs e2fsprogs util-linux)
  local missing=()
  for pkg in "${want[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "ok installed" || missing+=("$pkg")
  done
  python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
  if [ ${#missing[@]} -gt 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  nginx -V 2>&1 | grep -q -- --with-threads
}

python_deps() {
  TPGEN_EXTRAS=".[dev]" ./scripts/install.sh
}

lint() {
  ruff check generator tests bench plugins molecule
  ruff format --check generator tests bench plugins molecule
  mypy
  yamllint --strict .
  ansible-lint --profile production
  terraform fmt -check -recursive terraform
}

unit() {
  # tests/terraform runs in the terraform phase, which needs the terraform binary.
  pytest -q -p no:cacheprovider --ignore=tests/terraform
}

phase system-deps system_deps
phase python-deps python_deps
phase lint lint
phase pytest unit
phase terraform ./scripts/ci/terraform.sh
if [ "${TPGEN_SKIP_MOLECULE:-0}" != 1 ]; then
  phase molecule ./scripts/ci/molecule.sh
fi

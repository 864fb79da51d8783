#!/usr/bin/env bash
# The whole test suite, as CI runs it: lint, unit/golden/property/live tests, Terraform, Molecule.
# Installs what it needs (Debian packages, the venv, the Docker engine and base image) itself.
#
#   scripts/test.sh                  # every phase, in order (.ci/run runs exactly this)
#   scripts/test.sh lint pytest      # only these phases (the venv must exist: run python-deps once)
#
# Phases: system-deps python-deps lint pytest terraform collection molecule (docs/ci.md: what each installs,
# how long it takes). TPGEN_SKIP_MOLECULE=1 leaves out the slow container scenarios (never in CI).
# TPGEN_VENV_BIN (default <repo>/.venv/bin) is searched first for the tools.
# Any failing phase fails the run; pytest's exit 5 ("no tests collected") counts as a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="${TPGEN_VENV_BIN:-$PWD/.venv/bin}:$PATH" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1

all_phases=(system-deps python-deps lint pytest terraform collection molecule)

timings=()
phase() {
  local name=$1; shift
  local start=$SECONDS
  echo "=== $name"
  "$@"
  timings+=("$(printf '%-12s %5ss' "$name" $((SECONDS - start)))")
}
report() {
  local rc=$?
  echo "=== phase times"
  [[ ${#timings[@]} -eq 0 ]] || printf '  %s\n' "${timings[@]}"
  [[ $rc == 0 ]] || echo "=== FAILED (exit $rc)"
  exit "$rc"
}
trap report EXIT

system_deps() {
  # terraform is no Debian package: reported here, before lint's `terraform fmt` trips on it.
  scripts/ci/deps.sh install system terraform
}

python_deps() {
  TPGEN_EXTRAS=".[dev]" ./scripts/install.sh
}

lint() {
  ruff check .
  ruff format --check .
  mypy
  # the layering contracts of pyproject.toml, on this checkout whatever the venv's editable install
  PYTHONPATH="$PWD/generator${PYTHONPATH:+:$PYTHONPATH}" lint-imports --no-cache
  yamllint --strict .
  shellcheck -x scripts/*.sh scripts/ci/*.sh molecule/common/*.sh .ci/run
  ansible-lint --profile production
  terraform fmt -check -recursive terraform
}

unit() {
  # tests/terraform runs in the terraform phase, which needs the terraform binary.
  local rc=0
  # -m "not containers": those need the docker engine; the molecule phase runs them.
  pytest -q -p no:cacheprovider --ignore=tests/terraform -m "not containers" || rc=$?
  # 5: nothing collected (a wrong path or an import-time skip): a suite that ran nothing failed.
  [[ $rc != 5 ]] || echo "test.sh: pytest collected no tests" >&2
  return "$rc"
}

run_phase() {
  case $1 in
  system-deps) phase system-deps system_deps ;;
  python-deps) phase python-deps python_deps ;;
  lint) phase lint lint ;;
  pytest) phase pytest unit ;;
  terraform) phase terraform ./scripts/ci/terraform.sh ;;
  collection) phase collection ./scripts/ci/sanity.sh ;;
  molecule) phase molecule ./scripts/ci/molecule.sh ;;
  *) echo "test.sh: unknown phase '$1' (phases: ${all_phases[*]})" >&2; exit 2 ;;
  esac
}

if [[ $# -gt 0 ]]; then
  for name in "$@"; do run_phase "$name"; done
else
  for name in "${all_phases[@]}"; do
    [[ $name == molecule && ${TPGEN_SKIP_MOLECULE:-0} == 1 ]] && continue
    run_phase "$name"
  done
fi

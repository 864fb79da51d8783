#!/usr/bin/env bash
# Terraform checks for CI and for developers: everything offline, nothing left in the tree.
#   1. terraform fmt -check on terraform/ and the test fixtures
#   2. init + validate (+ test) for the provider-free modules: modules/cdn_nodes, its example,
#      envs/sim; their tests apply the tpgen check with this checkout's tpgen (.venv/bin)
#   3. checkov on the provider adapters: checkov's Terraform checks + terraform/policies/
#   4. pytest tests/terraform (validation messages, sim apply -> ansible-inventory -> tpgen
#      validate, policy fixtures, static checks of the adapters)
# Provider adapters are never init-ed or planned here: the registry is unreachable (see
# terraform/README.md, "What is not exercised offline").
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$repo"
venv_bin="$repo/.venv/bin"

die() {
  echo "terraform.sh: $*" >&2
  exit 1
}

# The terraform binary this script runs, and its version: one rule, in deps.sh.
"$repo/scripts/ci/deps.sh" check terraform >/dev/null || die "refusing to skip the Terraform checks."
# shellcheck source=scripts/ci/deps.sh
. "$repo/scripts/ci/deps.sh"
terraform_bin=$(terraform_bin)
for tool in pytest checkov ansible-inventory tpgen shellcheck; do
  [[ -x "$venv_bin/$tool" ]] || die "$venv_bin/$tool is missing: install the dev extras (.venv/bin/pip install -e '.[dev]')."
done

export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1 TF_INPUT=0
# A CLI config variable that names a missing file only adds a warning to every command.
if [[ -n "${TF_CLI_CONFIG_FILE:-}" && ! -e "$TF_CLI_CONFIG_FILE" ]]; then
  export TF_CLI_CONFIG_FILE=/dev/null
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/tpgen-terraform.XXXXXX")
trap 'rm -rf "$work"' EXIT

step() { printf '\n== %s\n' "$*"; }

step "terraform fmt -check, shellcheck"
"$terraform_bin" fmt -check -recursive -diff terraform
"$terraform_bin" fmt -check -recursive -diff tests/terraform/fixtures
mapfile -t shell_scripts < <(find terraform -name '*.sh' -not -path '*/.terraform/*' | sort)
"$venv_bin/shellcheck" "${shell_scripts[@]}"

for module in modules/cdn_nodes modules/cdn_nodes/examples/basic envs/sim; do
  step "terraform init/validate/test: $module"
  export TF_DATA_DIR="$work/data/${module//\//_}"
  "$terraform_bin" -chdir="terraform/$module" init -input=false -backend=false -no-color >"$work/init.log" ||
    { cat "$work/init.log"; die "terraform init failed for $module"; }
  if grep -q 'registry.terraform.io' "$work/init.log"; then
    cat "$work/init.log"
    die "$module asked the registry for a provider: it must stay provider-free."
  fi
  "$terraform_bin" -chdir="terraform/$module" validate -no-color
  if [[ -d "terraform/$module/tests" ]]; then
    # The runs that apply check each spec with `tpgen validate`: this checkout's tpgen.
    "$terraform_bin" -chdir="terraform/$module" test -no-color -var="tpgen_command=$venv_bin/tpgen"
  fi
  unset TF_DATA_DIR
done

step "checkov: provider adapters (built-in checks + terraform/policies)"
"$venv_bin/checkov" -d terraform/providers --framework terraform \
  --external-checks-dir terraform/policies --skip-download --compact --quiet

step "pytest tests/terraform"
"$venv_bin/pytest" tests/terraform -q -p no:cacheprovider

# Nothing of the above may leave Terraform working files in the repository.
leftovers=$(find terraform tests/terraform \( -name .terraform -o -name '*.tfstate' -o -name '*.tfstate.*' \) -print)
[[ -z "$leftovers" ]] || die "Terraform working files left in the tree: $leftovers"
echo "terraform.sh: all Terraform checks passed"

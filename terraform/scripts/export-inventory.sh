#!/usr/bin/env bash
# Hand-off from Terraform to Ansible: write an environment's `inventory_yaml` output to a file.
#
#   terraform/scripts/export-inventory.sh [-e ENV] [OUT]
#
# ENV is a root module under terraform/envs/ (default: sim); it must have been applied (the
# output is read from its state, through the same TF_DATA_DIR / backend as your `apply`).
# OUT defaults to <repo>/inventories/<ENV>/hosts.yml; a relative OUT is relative to the current
# directory. The file is replaced atomically and only if the output looks like our inventory.
set -euo pipefail

usage() {
  sed -n '2,10s/^# \{0,1\}//p' "$0" >&2
  exit 2
}

env_name=sim
while getopts ":e:h" opt; do
  case "$opt" in
    e) env_name=$OPTARG ;;
    h) usage ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[[ $# -le 1 ]] || usage

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
env_dir="$repo/terraform/envs/$env_name"
out=${1:-"$repo/inventories/$env_name/hosts.yml"}

if ! command -v terraform >/dev/null 2>&1; then
  echo "export-inventory: terraform is not on PATH; install Terraform >= 1.9 first." >&2
  exit 1
fi
if [[ ! -d "$env_dir" ]]; then
  echo "export-inventory: no environment '$env_name' (expected $env_dir)." >&2
  exit 2
fi

mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$(dirname "$out")/.hosts.yml.XXXXXX")
trap 'rm -f "$tmp"' EXIT

if ! terraform -chdir="$env_dir" output -no-color -raw inventory_yaml >"$tmp"; then
  echo "export-inventory: could not read output inventory_yaml of $env_dir; run \`terraform -chdir=$env_dir apply\` first." >&2
  exit 1
fi
if ! grep -q '^"all":' "$tmp" || ! grep -q '"storage_nodes":' "$tmp"; then
  echo "export-inventory: output inventory_yaml of $env_dir is not a storage_nodes inventory; not writing $out." >&2
  exit 1
fi

chmod 0644 "$tmp"
mv -f "$tmp" "$out"
trap - EXIT
echo "export-inventory: wrote $out ($(grep -c '"ansible_host":' "$out") hosts)"

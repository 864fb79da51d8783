#!/bin/sh
# Run by terraform_data.tpgen_validate (main.tf) for one node at apply: writes the node's spec
# to <node>.yaml in a private directory and runs `tpgen validate` on it there, so that tpgen's
# message reads "<node>.yaml:<line>: <field path>: <message>".
# Environment: TPGEN (the command, split into words: a path or "python3 -m tpgen"),
# TPGEN_FILE (the file name), TPGEN_SPEC (the spec, YAML).
set -eu
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
printf '%s\n' "$TPGEN_SPEC" >"$dir/$TPGEN_FILE"
cd "$dir"
# shellcheck disable=SC2086 # word splitting of $TPGEN is the point
$TPGEN validate "$TPGEN_FILE"

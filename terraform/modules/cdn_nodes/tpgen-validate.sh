#!/bin/sh
# Run by terraform_data.tpgen_validate (main.tf) for one node at apply: writes the node's spec
# to <node>.yaml in a private directory and runs `tpgen validate` on it there, so that tpgen's
# message reads "<node>.yaml:<line>: <field path>: <message>".
# Environment: TPGEN (the command, split into words: a path or "python3 -m tpgen"),
# TPGEN_FILE (the file name), TPGEN_SPEC_PARTS and TPGEN_SPEC_0.. (the spec, YAML, in parts:
# one environment string holds at most 128 KiB).
# -f: the words of $TPGEN are split, never expanded as file names.
set -euf
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
spec="$dir/$TPGEN_FILE"
: >"$spec"
part=0
while [ "$part" -lt "$TPGEN_SPEC_PARTS" ]; do
  # $part is a number: eval only picks the variable TPGEN_SPEC_<part>.
  eval "printf '%s' \"\$TPGEN_SPEC_$part\"" >>"$spec"
  part=$((part + 1))
done
printf '\n' >>"$spec"
cd "$dir"
# --: a name that starts with "-" makes a file name tpgen must not read as an option.
# shellcheck disable=SC2086 # word splitting of $TPGEN is the point
$TPGEN validate -- "$TPGEN_FILE"

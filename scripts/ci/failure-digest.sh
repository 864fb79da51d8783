#!/usr/bin/env bash
# Print what made a Molecule run fail, from its log: each failing task's name with its `fatal:`
# line (an assert's msg carries the figures), testinfra's `E` lines and FAILED summary, and
# Molecule's own errors -- lines folded at 500 characters, at most MAX_LINES (default 40).
# CI shows only the head and the tail of a long log; molecule.sh prints this at the very end.
#
#   scripts/ci/failure-digest.sh LOG [MAX_LINES]
set -euo pipefail
log=${1:?usage: failure-digest.sh LOG [MAX_LINES]}
max=${2:-40}
awk -v max="$max" '
    function out(line) {
        if (printed >= max) return
        if (length(line) > 500) line = substr(line, 1, 500) " [...]"
        print "  " line
        printed++
    }
    # a fatal line followed by "...ignoring" is a task allowed to fail: not shown
    pending != "" {
        if ($0 !~ /^\.\.\.ignoring/) {
            if (task != shown) { out(task); shown = task }
            out(pending)
        }
        pending = ""
    }
    /^TASK \[/ { task = $0; sub(/ \*+$/, "", task); next }
    /^(fatal|failed): \[/ || /FAILED! =>/ { pending = $0; next }
    /^E  / || /^FAILED / || /^(ERROR|CRITICAL) / || /^ERROR! / { out($0) }
    END {
        if (pending != "") { if (task != shown) out(task); out(pending) }
        if (printed == 0) print "  (no failing task found in " FILENAME "; see the log)"
    }
' "$log"

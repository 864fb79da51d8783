"""``tpgen render``: the config to stdout or a file, checked by nginx -t, or diffed."""

from __future__ import annotations

import difflib

from tpgen.api import check_plan, load_spec_plan, named_files, render_config
from tpgen.commands import STANDARD, Console, writing
from tpgen.errors import EXIT_DIFFERS, EXIT_OK, ConfigRejected, printable
from tpgen.files import read_text_file, write_output

# The most a --diff FILE may hold: a rendered config is well under 1 MiB.
DIFF_LIMIT = 16 << 20


def render(
    spec: str,
    *,
    output: str | None = None,
    check: bool = True,
    diff_against: str | None = None,
    tls_files: bool = False,
    console: Console = STANDARD,
) -> int:
    """Render ``spec``; 0 written (or equal to ``diff_against``), 1 differs. ``tls_files``: read
    the certificate files it names (on the node), so the plan knows what they say.

    Raises ConfigRejected (1) when nginx -t refuses the config, BadInput (2) for bad input.
    """
    # The check puts every extra snippet into nginx -t: each must be here. Without it, those
    # that are here are checked (a controller renders without the node's files).
    # So must the origins' CA bundle, which nginx -t reads at its path.
    node, plan = load_spec_plan(
        spec, "required" if check else "present", tls_files=tls_files, origin_ca=check
    )
    text = render_config(plan)
    if check:
        result = check_plan(plan)
        if not result.ok:
            raise ConfigRejected(spec, result.output)
    if diff_against is not None:
        return print_diff(spec, text, diff_against, console)
    if output is not None:
        # Nor over a file the config names (a snippet, a key): the node would read the config.
        write_output(output, text, inputs=[spec, *named_files(node)])
    else:
        console.say(text, end="")
    return EXIT_OK


def print_diff(spec: str, text: str, current_path: str, console: Console) -> int:
    """A unified diff from the file at ``current_path`` to ``text``: 1 if they differ, else 0."""
    current = read_text_file(current_path, DIFF_LIMIT)
    diff = list(
        difflib.unified_diff(
            current.splitlines(keepends=True),
            text.splitlines(keepends=True),
            printable(current_path),
            f"{printable(spec)} (rendered)",
        )
    )
    with writing("stdout"):
        console.out.writelines(diff)
        console.out.flush()
    return EXIT_DIFFERS if diff else EXIT_OK

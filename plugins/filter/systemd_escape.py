# Filters that write an operator's value into a systemd unit file so that it stays one value.
"""Escape values for systemd unit files: command-line words, quoted list words, free text."""

from __future__ import annotations

from typing import Any

# systemd's own C escapes (unit files' extract_first_word with EXTRACT_CUNESCAPE)
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _quoted(value: str, *, expands_variables: bool) -> str:
    out = []
    for char in value:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\x{ord(char):02x}")
        elif char == "%":
            out.append("%%")  # a specifier otherwise (%h, %n ...)
        elif char == "$" and expands_variables:
            out.append("$$")  # an environment variable otherwise
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def tpgen_systemd_exec_arg(value: Any) -> str:
    """An argument of an Exec line: quoted, its specifiers, $ and escapes kept literal."""
    return _quoted(str(value), expands_variables=True)


def tpgen_systemd_quoted(value: Any) -> str:
    """One quoted word where systemd expands no $: ReadWritePaths=, Environment=, an Exec line's
    program (its arguments are tpgen_systemd_exec_arg)."""
    return _quoted(str(value), expands_variables=False)


def tpgen_systemd_text(value: Any) -> str:
    """Free text (Description=, a path setting's value): one line, specifiers kept literal."""
    text = "".join(" " if ord(char) < 0x20 or ord(char) == 0x7F else char for char in str(value))
    return text.replace("%", "%%")


class FilterModule:
    """systemd unit file escapes."""

    def filters(self) -> dict[str, Any]:
        return {
            "tpgen_systemd_exec_arg": tpgen_systemd_exec_arg,
            "tpgen_systemd_quoted": tpgen_systemd_quoted,
            "tpgen_systemd_text": tpgen_systemd_text,
        }

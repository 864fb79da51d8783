"""How a YAML 1.1 reader (PyYAML, and so Ansible's inventory and vars files) types a plain scalar.

tpgen reads YAML 1.2, where ``2024-01-01``, ``on`` and ``1:30`` are text; the role reads the
same spec through Ansible, where they are a date, true and 90. These are PyYAML's implicit
resolvers (yaml/resolver.py), so tpgen can refuse what the two would read differently.
"""

from __future__ import annotations

import re

_RESOLVERS = (
    (
        "bool",
        r"yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF",
    ),
    (
        "float",
        r"[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?"
        r"|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
        r"|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*"
        r"|[-+]?\.(?:inf|Inf|INF)"
        r"|\.(?:nan|NaN|NAN)",
    ),
    (
        "int",
        r"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+"
        r"|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+",
    ),
    ("merge", r"<<"),
    ("null", r"~|null|Null|NULL|"),
    (
        "timestamp",
        r"[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"
        r"|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?"
        r"(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?"
        r"(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?",
    ),
    ("value", r"="),
)
_COMPILED = tuple((kind, re.compile(f"(?:{pattern})\\Z")) for kind, pattern in _RESOLVERS)


def yaml11_kind(plain: str) -> str:
    """The type a YAML 1.1 reader gives an unquoted scalar: str, bool, int, float, null, …"""
    for kind, pattern in _COMPILED:
        if pattern.match(plain):
            return kind
    return "str"

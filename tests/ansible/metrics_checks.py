"""What the Molecule scenarios check of the metrics: scrape on the node, parse, promtool.

Shared by molecule/default and molecule/metrics (their conftest puts this directory on
sys.path, as for node_checks).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
Sample = tuple[str, tuple[tuple[str, str], ...]]

# The node has python3 and no curl: urllib fetches the page on the node itself (loopback).
_FETCH = (
    "import sys, urllib.request; "
    "sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())"
)


def scrape(host: Any, url: str) -> str:
    """The page at ``url``, requested on the node."""
    result: str = host.check_output("python3 -c %s %s", _FETCH, url)
    return result


def parse(text: str) -> dict[Sample, float]:
    """The samples of a text exposition: (name, sorted labels) -> value (no escapes expected)."""
    samples: dict[Sample, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        head, value = line.rsplit(" ", 1)
        name, _, rest = head.partition("{")
        labels = []
        for pair in filter(None, rest.rstrip("}").split('",')):
            key, _, val = pair.partition('="')
            labels.append((key, val.rstrip('"')))
        samples[(name, tuple(sorted(labels)))] = float(value)
    return samples


def disk(name: str, **labels: str) -> tuple[tuple[str, str], ...]:
    return tuple(sorted({"disk": name, **labels}.items()))


def tpgen_lines(page: str) -> str:
    """The tpgen families of an exporter's page (their HELP, TYPE and samples)."""
    keep = [
        line
        for line in page.splitlines()
        if line.startswith(("tpgen_", "# HELP tpgen_", "# TYPE tpgen_"))
    ]
    return "\n".join(keep) + "\n"


def promtool(text: str) -> subprocess.CompletedProcess[str]:
    """``promtool check metrics`` on the controller (Debian's prometheus; deps.sh installs it)."""
    tool = shutil.which("promtool") or "/usr/bin/promtool"
    return subprocess.run(
        [tool, "check", "metrics"], input=text, capture_output=True, text=True, check=False
    )


def df_avail(host: Any, mount: str) -> int:
    """df's Avail of a mount, in bytes."""
    return int(host.check_output("df -B1 --output=avail %s | tail -n 1", mount).strip())

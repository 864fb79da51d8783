"""gixy-ng finds nothing of MEDIUM or HIGH severity in any golden config or example."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tpgen.plan import make_plan
from tpgen.render import render_config
from tpgen.spec.load import load_spec_file, spec_from_mapping

from .conftest import CASES, ROOT, unavailable
from .specs import disk, spec

GOLDENS = sorted(CASES.glob("*/nginx.conf"))
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))


def _gixy() -> list[str]:
    found = shutil.which("gixy", path=str(Path(sys.executable).parent)) or shutil.which("gixy")
    if found is None:
        unavailable("gixy-ng is missing: pip install -e '.[dev]' installs it")
    return [found]


def _findings(conf: Path) -> list[dict[str, object]]:
    result = subprocess.run(
        [*_gixy(), "-ll", "-f", "json", str(conf)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.stdout.strip(), result.stderr
    findings: list[dict[str, object]] = json.loads(result.stdout)
    return [f for f in findings if f.get("severity") in ("MEDIUM", "HIGH")]


@pytest.mark.parametrize("conf", GOLDENS, ids=[p.parent.name for p in GOLDENS])
def test_golden_configs_have_no_medium_or_high_gixy_finding(conf: Path) -> None:
    assert _findings(conf) == []


@pytest.mark.parametrize("example", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_have_no_medium_or_high_gixy_finding(example: Path, tmp_path: Path) -> None:
    conf = tmp_path / "nginx.conf"
    conf.write_text(render_config(make_plan(load_spec_file(example), str(example))))
    assert _findings(conf) == []


def test_gixy_does_report_what_the_fixes_removed(tmp_path: Path) -> None:
    # Without this, a gixy that reports nothing at all would pass the tests above.
    text = (CASES / "vod-12hdd" / "nginx.conf").read_text()
    conf = tmp_path / "nginx.conf"
    conf.write_text(text.replace("        default /nonexistent/tpgen-unmapped-disk;\n", ""))
    assert [f["plugin"] for f in _findings(conf)] == ["hash_without_default"]
    text = (CASES / "cache-3hdd" / "nginx.conf").read_text()
    conf.write_text(
        text.replace("set $tpgen_origin origin.example.net:8080;", "")
        .replace(
            "proxy_pass http://$tpgen_origin;",
            "proxy_pass http://tpgen_origin;",
        )
        .replace(
            "    resolver 192.0.2.53 [2001:db8::53];",
            "    upstream tpgen_origin { server origin.example.net:8080; }",
        )
    )
    assert [f["plugin"] for f in _findings(conf)] == ["missing_resolver"]


def test_a_split_in_regions_has_no_medium_or_high_gixy_finding(tmp_path: Path) -> None:
    # Past 64 parts the bucket map gets a region map: the goldens are too small to show it.
    data = spec("vod", 1, tuning={"buckets": 10000})
    data["disks"] = [
        disk(i, device=f"/dev/disk{i}", mount=f"/srv/vod/d{i}", size="1TB") for i in range(1, 81)
    ]
    text = render_config(make_plan(spec_from_mapping(data, "r.yaml"), "r.yaml"))
    assert 'map $tpgen_region $tpgen_disk {\n        default "";' in text
    conf = tmp_path / "nginx.conf"
    conf.write_text(text)
    assert _findings(conf) == []

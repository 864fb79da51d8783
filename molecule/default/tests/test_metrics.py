"""Role tpgen_metrics from the installed collection: the exporters serve the tpgen series."""

from __future__ import annotations

from typing import Any

import metrics_checks as metrics  # tests/ansible, put on sys.path by conftest.py
import pytest

NODE_EXPORTER = "http://127.0.0.1:28506/metrics"
NGINX_EXPORTER = "http://127.0.0.1:28507/metrics"


@pytest.fixture(scope="module")
def page(host: Any) -> str:
    # The tests before these fill the cache: write the series now, as the timer's next run would,
    # so that they and df describe the same moment.
    host.run_expect([0], "systemctl start tpgen-metrics.service")
    result: str = metrics.scrape(host, NODE_EXPORTER)
    return result


@pytest.mark.parametrize("name", ["d1", "d2", "d3"])
def test_every_disk_active_mounted_and_free_bytes_within_one_percent_of_df(
    host: Any, page: str, name: str
) -> None:
    samples = metrics.parse(metrics.tpgen_lines(page))
    assert samples[("tpgen_disk_state", metrics.disk(name, state="active"))] == 1
    assert samples[("tpgen_disk_mounted", metrics.disk(name))] == 1
    avail = metrics.df_avail(host, f"/srv/cache/{name}")
    assert samples[("tpgen_disk_free_bytes", metrics.disk(name))] == pytest.approx(avail, rel=0.01)


def test_nginx_exporter_reads_the_stub_status(host: Any) -> None:
    assert metrics.parse(metrics.scrape(host, NGINX_EXPORTER))[("nginx_up", ())] == 1


def test_promtool_accepts_the_tpgen_series(page: str) -> None:
    result = metrics.promtool(metrics.tpgen_lines(page))
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")

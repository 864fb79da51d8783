"""The series after site.yml and disk_fail: scraped on loopback, checked against the node."""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any

import pytest

NODE_EXPORTER = "http://127.0.0.1:29173/metrics"
NGINX_EXPORTER = "http://127.0.0.1:29174/metrics"
PROM_FILE = "/var/lib/prometheus/node-exporter/tpgen.prom"
FAILED, ACTIVE = "d2", ("d1", "d3")


@pytest.fixture(scope="module")
def page(host: Any, metrics: ModuleType) -> str:
    result: str = metrics.scrape(host, NODE_EXPORTER)
    return result


@pytest.fixture(scope="module")
def samples(page: str, metrics: ModuleType) -> dict[Any, float]:
    result: dict[Any, float] = metrics.parse(metrics.tpgen_lines(page))
    return result


@pytest.mark.parametrize("port", [29173, 29174])
def test_exporters_listen_on_loopback_only(host: Any, port: int) -> None:
    assert host.socket(f"tcp://127.0.0.1:{port}").is_listening
    assert not host.socket(f"tcp://0.0.0.0:{port}").is_listening


@pytest.mark.parametrize("unit", ["tpgen-metrics.timer", "tpgen-metrics.path"])
def test_units_that_write_the_series_are_enabled_and_active(host: Any, unit: str) -> None:
    assert host.service(unit).is_enabled
    assert host.run("systemctl is-active %s", unit).stdout.strip() == "active"


def test_failed_disk_shows_failed_and_unmounted(
    samples: dict[Any, float], metrics: ModuleType
) -> None:
    disk = metrics.disk
    assert samples[("tpgen_disk_state", disk(FAILED, state="failed"))] == 1
    assert samples[("tpgen_disk_state", disk(FAILED, state="active"))] == 0
    assert samples[("tpgen_disk_mounted", disk(FAILED))] == 0
    assert samples[("tpgen_disk_bucket_share_ratio", disk(FAILED))] == 0
    assert ("tpgen_disk_free_bytes", disk(FAILED)) not in samples


@pytest.mark.parametrize("name", ACTIVE)
def test_active_disks_free_bytes_within_one_percent_of_df(
    host: Any, samples: dict[Any, float], metrics: ModuleType, name: str
) -> None:
    disk = metrics.disk
    assert samples[("tpgen_disk_state", disk(name, state="active"))] == 1
    assert samples[("tpgen_disk_mounted", disk(name))] == 1
    assert samples[("tpgen_disk_writable", disk(name))] == 1
    avail = metrics.df_avail(host, f"/srv/cache/{name}")
    assert samples[("tpgen_disk_free_bytes", disk(name))] == pytest.approx(avail, rel=0.01)
    assert samples[("tpgen_disk_bucket_share_ratio", disk(name))] == pytest.approx(0.5, abs=0.02)
    assert samples[("tpgen_disk_io_errors", disk(name))] == 0


def test_node_series_threads_no_drift_and_the_guard_state(
    samples: dict[Any, float], metrics: ModuleType
) -> None:
    assert samples[("tpgen_nginx_threads", ())] == 1
    assert samples[("tpgen_config_drift", ())] == 0
    assert samples[("tpgen_guard_state_readable", ())] == 1
    assert samples[("tpgen_guard_disk_state", metrics.disk("d2", state="slow"))] == 1


def test_nginx_exporter_reads_the_stub_status(host: Any, metrics: ModuleType) -> None:
    found = metrics.parse(metrics.scrape(host, NGINX_EXPORTER))
    assert found[("nginx_up", ())] == 1
    assert found[("nginx_connections_accepted", ())] >= 1
    # the dashboard's nginx panels read series this exporter has
    dashboard = (metrics.REPO / "dashboards" / "tpgen-storage-node.json").read_text()
    read = set(re.findall(r"(?<![a-z_])nginx_[a-z_]+", dashboard))
    assert read - {name for name, _ in found} == set()


def test_promtool_accepts_the_file_and_the_scraped_series(
    host: Any, page: str, metrics: ModuleType
) -> None:
    for text in (host.file(PROM_FILE).content_string, metrics.tpgen_lines(page)):
        result = metrics.promtool(text)
        assert (result.returncode, result.stdout, result.stderr) == (0, "", "")

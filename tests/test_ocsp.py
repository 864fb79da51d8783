"""OCSP stapling: what the certificates say reaches the plan as input (the plan reads no file),
`auto` staples where a certificate names a responder and a resolver is set, `on` is refused
where it cannot work, and the offline check loads the stapling with its throwaway certificates."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from tpgen.api import load_plan, make_plan, spec_from_mapping, tls_file_facts
from tpgen.check import check_plan
from tpgen.cli import main
from tpgen.errors import SpecError
from tpgen.plan.types import Decision
from tpgen.render import render_config
from tpgen.spec.certs import (
    certificate_facts,
    throwaway_issuer,
    write_throwaway_pair,
)
from tpgen.spec.facts import CertificateFacts

from .conftest import CASES
from .specs import spec

RESPONDER = "http://ocsp.example.net/"
RESOLVER = ["192.0.2.53"]


def edge(tls: dict[str, Any], resolver: list[str] | None = RESOLVER) -> dict[str, Any]:
    data = spec("origin", disks=1, listen=[{"address": "*", "port": 443, "tls": True}], tls=tls)
    if resolver:
        data["workload"]["resolver"] = resolver
    return data


def certs(*paths: str, **options: Any) -> dict[str, Any]:
    entries: list[dict[str, Any]] = [{"cert": f"{p}.crt", "key": f"{p}.key"} for p in paths]
    for index, entry in enumerate(entries[1:], 1):
        entry["server_names"] = [f"n{index}.example.net"]
    return {"certificates": entries, **options}


def pair(tmp_path: Path, name: str, ocsp_url: str | None) -> str:
    """A certificate (signed by a throwaway CA, with or without an OCSP responder) and its key
    at tmp_path/name.crt and .key; returns tmp_path/name."""
    base = tmp_path / name
    write_throwaway_pair(
        Path(f"{base}.crt"),
        Path(f"{base}.key"),
        ("edge.example.net",),
        issuer=throwaway_issuer(),
        ocsp_url=ocsp_url,
    )
    return str(base)


def staple_lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if "ssl_stapling" in line]


def refusals(data: dict[str, Any], facts: CertificateFacts | None = None) -> list[str]:
    with pytest.raises(SpecError) as caught:
        parsed = spec_from_mapping(data, "edge.yaml")
        make_plan(parsed, "edge.yaml", certificates=facts or CertificateFacts())
    return [str(p) for p in caught.value.problems]


# ---------------------------------------------------------------------- reading certificates
def test_facts_name_each_certificates_responders_or_none_where_unread(tmp_path: Path) -> None:
    with_url, without = pair(tmp_path, "a", RESPONDER), pair(tmp_path, "b", None)
    parsed = spec_from_mapping(edge(certs(with_url, without, "/nowhere/c")))
    assert certificate_facts(parsed).ocsp_urls == ((RESPONDER,), (), None)
    # The Ansible plugin's way: only the mapped node paths are read (controller copies).
    parsed = spec_from_mapping(edge(certs("/etc/nginx/tls/a", "/etc/nginx/tls/b")))
    facts = tls_file_facts(parsed, {"/etc/nginx/tls/a.crt": f"{with_url}.crt"})
    assert facts.ocsp_urls == ((RESPONDER,), None)


# -------------------------------------------------------------------------------- the plan
def test_auto_staples_each_server_whose_certificate_names_a_responder() -> None:
    parsed = spec_from_mapping(edge(certs("/etc/nginx/tls/a", "/etc/nginx/tls/b")))
    plan = make_plan(parsed, certificates=CertificateFacts(((RESPONDER,), ())))
    first, second = plan.servers
    assert first.ocsp_stapling is not None and first.ocsp_stapling.value == "on"
    assert f"names its OCSP responder ({RESPONDER})" in first.ocsp_stapling.because
    assert second.ocsp_stapling is not None and second.ocsp_stapling.value == "off"
    assert "/etc/nginx/tls/b.crt names no OCSP responder" in second.ocsp_stapling.because
    assert first.ocsp_stapling_verify is not None
    assert first.ocsp_stapling_verify.value == "off"
    assert "no tls.trusted_certificate" in first.ocsp_stapling_verify.because
    text = render_config(plan)
    assert staple_lines(text) == ["ssl_stapling on;", "ssl_stapling_verify off;"]
    assert "    resolver 192.0.2.53;" in text
    assert plan.resolver_addresses is not None
    assert "the OCSP responders' names" in plan.resolver_addresses.because


def test_auto_without_what_the_certificates_say_staples_nothing_and_says_why() -> None:
    plan = make_plan(spec_from_mapping(edge(certs("/etc/nginx/tls/a"))))
    (server,) = plan.servers
    assert server.ocsp_stapling is not None and server.ocsp_stapling.value == "off"
    assert "was not read here" in server.ocsp_stapling.because
    assert "--tls-files" in server.ocsp_stapling.because
    text = render_config(plan)
    assert staple_lines(text) == []
    assert "resolver" not in text  # nothing asks DNS while nginx runs


def test_auto_without_a_resolver_and_off_staple_nothing() -> None:
    facts = CertificateFacts(((RESPONDER,),))
    plan = make_plan(
        spec_from_mapping(edge(certs("/etc/nginx/tls/a"), resolver=None)), certificates=facts
    )
    assert plan.servers[0].ocsp_stapling is not None
    assert plan.servers[0].ocsp_stapling.because.startswith("no workload.resolver")
    data = edge(certs("/etc/nginx/tls/a", ocsp_stapling="off"), resolver=None)
    plan = make_plan(spec_from_mapping(data), certificates=facts)
    assert plan.servers[0].ocsp_stapling == Decision("off", "tls.ocsp_stapling: off in the spec")
    assert staple_lines(render_config(plan)) == []


def test_a_trusted_certificate_turns_verification_on() -> None:
    data = edge(certs("/etc/nginx/tls/a", trusted_certificate="/etc/nginx/tls/chain.pem"))
    plan = make_plan(spec_from_mapping(data), certificates=CertificateFacts(((RESPONDER,),)))
    text = render_config(plan)
    assert "    ssl_trusted_certificate /etc/nginx/tls/chain.pem;" in text
    assert staple_lines(text) == ["ssl_stapling on;", "ssl_stapling_verify on;"]


# ------------------------------------------------------------------------------- refusals
def test_on_without_a_resolver_is_refused() -> None:
    assert refusals(edge(certs("/etc/nginx/tls/a", ocsp_stapling="on"), resolver=None)) == [
        "edge.yaml: tls.ocsp_stapling: on needs workload.resolver: nginx looks up the OCSP "
        'responder\'s name while it runs; add resolver: ["192.0.2.53"] (your DNS servers), '
        "or set auto or off"
    ]


def test_on_with_a_certificate_that_names_no_responder_is_refused() -> None:
    data = edge(certs("/etc/nginx/tls/a", "/etc/nginx/tls/b", ocsp_stapling="on"))
    assert refusals(data, CertificateFacts(((RESPONDER,), ()))) == [
        "edge.yaml: tls.certificates.1.cert: /etc/nginx/tls/b.crt names no OCSP responder (no "
        "OCSP URL in its Authority Information Access), so nginx has nothing to staple: set "
        "tls.ocsp_stapling: auto or off"
    ]


def test_resolver_and_trusted_certificate_without_use_are_refused() -> None:
    data = edge(certs("/etc/nginx/tls/a", ocsp_stapling="off"))
    assert [p.split(": ")[1] for p in refusals(data)] == ["workload.resolver"]
    data = edge(certs("/etc/nginx/tls/a", ocsp_stapling="off", trusted_certificate="/t.pem"))
    data["workload"].pop("resolver")
    assert refusals(data) == [
        "edge.yaml: tls.trusted_certificate: has no effect: tls.ocsp_stapling is off (nginx "
        "verifies only OCSP answers with it): remove it, or set ocsp_stapling to auto"
    ]


def test_a_resolver_for_stapling_is_accepted_on_a_cache_node_with_ip_origins() -> None:
    data = spec(
        "cache",
        disks=1,
        workload={"upstreams": ["192.0.2.1:80"], "resolver": RESOLVER},
        origin={"servers": {"192.0.2.1:80": {"weight": 2}}},
        listen=[{"port": 443, "tls": True}],
        tls=certs("/etc/nginx/tls/a"),
    )
    plan = make_plan(spec_from_mapping(data), certificates=CertificateFacts(((RESPONDER,),)))
    assert plan.origin_name is None and plan.upstreams[0].weight == 2
    assert staple_lines(render_config(plan))[0] == "ssl_stapling on;"


# -------------------------------------------------------------------- the command line
def test_tls_files_give_the_plan_what_the_certificates_say(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with_url, without = pair(tmp_path, "a", RESPONDER), pair(tmp_path, "b", None)
    path = tmp_path / "edge.yaml"
    path.write_text(yaml.safe_dump(edge(certs(with_url))))
    assert staple_lines(render_config(load_plan(str(path)))) == []
    assert staple_lines(render_config(load_plan(str(path), tls_files=True)))[0] == (
        "ssl_stapling on;"
    )
    assert main(["render", "--no-check", "--tls-files", str(path)]) == 0
    assert "        ssl_stapling on;" in capsys.readouterr().out
    path.write_text(yaml.safe_dump(edge(certs(without, ocsp_stapling="on"))))
    target = tmp_path / "nginx.conf"
    assert main(["validate", str(path)]) == 0
    assert main(["validate", "--tls-files", str(path)]) == 2
    assert main(["render", "--no-check", "--tls-files", str(path), "-o", str(target)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == 2 * [
        f"{path}:17: tls.certificates.0.cert: {without}.crt names no OCSP responder (no OCSP "
        "URL in its Authority Information Access), so nginx has nothing to staple: set "
        "tls.ocsp_stapling: auto or off"
    ]
    assert not target.exists()


def test_the_offline_check_loads_the_stapling_of_its_throwaway_certificates(
    nginx_binary: str,
) -> None:
    """The throwaway certificates name a responder and come with their issuer: nginx -t sets
    stapling up as on the node, without a word (it warns when either is missing)."""
    plan = load_plan(str(CASES / "edge-ocsp-122" / "spec.yaml"))
    assert all(server.staples for server in plan.servers)
    result = check_plan(plan, nginx=nginx_binary)
    assert (result.ok, result.output) == (True, "")

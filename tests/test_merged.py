"""What nginx refuses only when it merges blocks (spec/merged.py): each case's snippets put
into tpgen's config and judged by tpgen and by the real nginx -t, which must agree."""

from __future__ import annotations

import re
import socket
import subprocess
from pathlib import Path

import pytest
from tpgen.api import extra_file_problems, make_plan
from tpgen.check import check_plan
from tpgen.plan import Plan
from tpgen.spec import pcre
from tpgen.spec.load import spec_from_mapping
from tpgen.spec.merged import merge_refusals, shown_size, whole_config_refusals
from tpgen.spec.model import NodeSpec
from tpgen.spec.nginx_syntax import parse

from .nginx_tables import NO_PCRE, STREAM
from .specs import spec

REFUSED, TAKEN = True, False
V122 = (1, 22, 1)


def _stream_log(port: int, logs: str) -> str:
    """An extra.main snippet: a stream server with these access_logs of format s."""
    return (
        f"{STREAM} stream {{ log_format s '$remote_addr'; server {{ listen 127.0.0.1:{port}; "
        f"proxy_pass 127.0.0.1:1; {logs} }} }}"
    )


# One file, one buffer: every access_log that buffers a file as the first one does. nginx
# opens a file once for http and stream alike (cycle->open_files), and each module's
# access_log compares its buffer with the one the file has, whichever module set it (their
# buffers are one layout): a stream server's log and an http one's are one file too. tpgen's
# extra.main snippets (stream) come before its http block.
LOG_BUFFER_CASES: list[tuple[dict[str, str], bool]] = [
    ({"http": "access_log LOG combined buffer=32k; access_log LOG combined buffer=64k;"}, REFUSED),
    ({"http": "access_log LOG combined buffer=32k; access_log LOG tpgen buffer=32k;"}, TAKEN),
    ({"http": "access_log LOG combined buffer=32k;", "server": "access_log LOG combined;"}, TAKEN),
    (
        {
            "http": "access_log LOG combined buffer=32k flush=5s;",
            "location": "access_log LOG combined buffer=32k;",
        },
        REFUSED,
    ),
    (
        {
            "http": "access_log LOG combined buffer=32k flush=5s;",
            "location": "access_log LOG combined flush=5000ms buffer=32768;",
        },
        TAKEN,
    ),
    (
        {"http": "access_log LOG combined gzip;", "server": "access_log LOG combined buffer=64k;"},
        REFUSED,
    ),
    (
        {
            "http": "access_log LOG combined gzip;",
            "http#2": "access_log LOG combined buffer=64k gzip=1;",
        },
        TAKEN,
    ),
    (
        {
            "http": "access_log LOG combined buffer=8k gzip;",
            "server": "access_log LOG combined gzip buffer=8k;",
        },
        TAKEN,
    ),
    (
        {"http": "access_log LOG combined gzip=2;", "server": "access_log LOG combined gzip=3;"},
        REFUSED,
    ),
    (
        {
            "main": f"{STREAM} stream {{ log_format s '$remote_addr'; "
            "server { listen 127.0.0.1:19566; "
            "proxy_pass 127.0.0.1:1; access_log LOG s buffer=16k; } }",
            "http": "access_log LOG combined buffer=32k;",
        },
        REFUSED,
    ),
    (
        {
            "main": f"{STREAM} stream {{ log_format s '$remote_addr'; "
            "server { listen 127.0.0.1:19567; "
            "proxy_pass 127.0.0.1:1; access_log LOG s buffer=16k; } }",
            "http": "access_log LOG combined buffer=16k;",
        },
        TAKEN,
    ),
    (
        {
            "main": _stream_log(19570, "access_log LOG s;"),
            "http": "access_log LOG combined buffer=32k;",
        },
        TAKEN,
    ),
    (
        {
            "main": _stream_log(19571, "access_log LOG s gzip;"),
            "http": "access_log LOG combined buffer=64k gzip=1;",
        },
        TAKEN,
    ),
    (
        {
            "main": _stream_log(19572, "access_log LOG s gzip=2;"),
            "http": "access_log LOG combined gzip;",
        },
        REFUSED,
    ),
    (
        {
            "main": _stream_log(19573, "access_log LOG s buffer=16k flush=1s;"),
            "http": "access_log LOG combined buffer=16k flush=1000ms;",
        },
        TAKEN,
    ),
    (
        {
            "main": _stream_log(19574, "access_log LOG s buffer=16k flush=1s;"),
            "location": "access_log LOG combined buffer=16k;",
        },
        REFUSED,
    ),
    (
        {
            "main": f"{STREAM} stream {{ log_format s '$remote_addr'; access_log LOG s "
            "buffer=8k; server { listen 127.0.0.1:19575; proxy_pass 127.0.0.1:1; } }",
            "server": "access_log LOG combined buffer=16k;",
        },
        REFUSED,
    ),
    (
        {
            "main": f"{STREAM} stream {{ log_format s '$remote_addr'; access_log LOG s "
            "buffer=8k; server { listen 127.0.0.1:19576; proxy_pass 127.0.0.1:1; } }",
            "server": "access_log LOG combined buffer=8k;",
        },
        TAKEN,
    ),
    ({"main": _stream_log(19577, "access_log LOG s buffer=8k; access_log LOG s gzip;")}, REFUSED),
    (
        {"main": _stream_log(19578, "access_log LOG s buffer=8k; access_log LOG s buffer=8192;")},
        TAKEN,
    ),
    ({"main": _stream_log(19579, "access_log LOG s buffer=8k; access_log LOG s;")}, TAKEN),
]
# (snippets by extra context, "http#2" a second http one; whether nginx refuses the config).
# Sizes: nginx's defaults on a 64-bit machine with 4 KiB pages (proxy_buffers 8 4k,
# connection_pool_size 512).
MERGE_CASES: list[tuple[dict[str, str], bool]] = [
    ({"server": "ssl on;"}, REFUSED),  # tpgen's server here has no certificate
    ({"server": "ssl on; ssl_reject_handshake on;"}, TAKEN),
    ({"http": "proxy_buffers 2 4k;"}, REFUSED),  # busy 8k > one buffer
    ({"http": "proxy_buffers 3 4k;"}, TAKEN),  # busy 8k = two buffers
    ({"http": "proxy_buffers 1 4k;"}, REFUSED),
    ({"http": "proxy_buffer_size 64k;"}, REFUSED),  # busy 128k > 7 × 4k
    ({"http": "proxy_buffer_size 64k; proxy_buffers 33 4k;"}, TAKEN),
    ({"http": "proxy_buffer_size 64k; proxy_buffers 32 4k;"}, REFUSED),
    ({"http": "proxy_buffer_size 64k; proxy_buffers 17 4k; proxy_busy_buffers_size 64k;"}, TAKEN),
    ({"http": "proxy_buffer_size 64k; proxy_buffers 16 4k; proxy_busy_buffers_size 64k;"}, REFUSED),
    ({"location": "proxy_busy_buffers_size 1m;"}, REFUSED),
    ({"location": "proxy_busy_buffers_size 2k;"}, REFUSED),  # below the largest buffer
    ({"location": "proxy_busy_buffers_size 4k;"}, TAKEN),
    ({"server": "proxy_temp_file_write_size 1k;"}, REFUSED),
    ({"server": "proxy_temp_file_write_size 4k;"}, TAKEN),
    ({"location": "proxy_max_temp_file_size 1k;"}, REFUSED),
    ({"location": "proxy_max_temp_file_size 0;"}, TAKEN),
    ({"location": "proxy_buffer_size 0;"}, TAKEN),
    ({"http": "fastcgi_buffer_size 64k;"}, REFUSED),
    ({"http": "uwsgi_buffers 1 8k;"}, REFUSED),
    ({"http": "scgi_busy_buffers_size 64k;"}, REFUSED),
    ({"http": "scgi_busy_buffers_size 28k;"}, TAKEN),
    ({"http": "large_client_header_buffers 4 64;"}, REFUSED),
    ({"http": "large_client_header_buffers 4 512;"}, TAKEN),
    ({"http": "large_client_header_buffers 4 511;"}, REFUSED),
    ({"http": "connection_pool_size 16k;"}, REFUSED),
    ({"http": "connection_pool_size 16k; large_client_header_buffers 4 16k;"}, TAKEN),
    ({"server": "large_client_header_buffers 2 256;"}, REFUSED),
    ({"http": "server { listen 127.0.0.1:19561; location / { proxy_buffers 2 4k; } }"}, REFUSED),
    (
        {
            "http": "server { listen 127.0.0.1:19562; proxy_buffer_size 64k; proxy_buffers 33 4k;"
            " location / { proxy_buffers 8 4k; } }"
        },
        REFUSED,
    ),
    ({"http": "proxy_buffer_size 64k;", "location": "proxy_buffers 33 4k;"}, REFUSED),
    ({"http": "proxy_buffers 33 4k;", "location": "proxy_buffer_size 64k;"}, TAKEN),
    ({"location": "proxy_buffer_size 64k; proxy_buffers 33 4k;"}, TAKEN),
    ({"server": "proxy_buffering off; proxy_buffers 16 8k;"}, TAKEN),
    # The order nginx reads log formats in: tpgen's http block, its http snippets in turn,
    # then its servers (with their snippets).
    ({"http": "access_log LOG late; log_format late '$remote_addr';"}, REFUSED),
    ({"http": "log_format late '$remote_addr'; access_log LOG late;"}, TAKEN),
    (
        {
            "http": "server { listen 127.0.0.1:19563; access_log LOG late; }\n"
            "log_format late '$remote_addr';"
        },
        REFUSED,
    ),
    ({"http": "log_format late '$uri';", "server": "access_log LOG late;"}, TAKEN),
    ({"http": "access_log LOG late;", "http#2": "log_format late '$uri';"}, REFUSED),
    ({"http": "log_format late '$uri';", "http#2": "access_log LOG late;"}, TAKEN),
    ({"location": "access_log LOG tpgen;"}, TAKEN),
    *LOG_BUFFER_CASES,
    # Shared zones: one list for the whole config, each name of one module and one size.
    (
        {
            "http": "limit_req_zone $uri zone=one:1m rate=1r/s; "
            "limit_req_zone $uri zone=one:1m rate=2r/s;"
        },
        REFUSED,
    ),
    (
        {
            "http": "limit_req_zone $uri zone=a:1m rate=1r/s;",
            "http#2": "limit_req_zone $uri zone=a:2m rate=1r/s;",
        },
        REFUSED,
    ),
    ({"http": "limit_req_zone $binary_remote_addr zone=cache_d1:1m rate=1r/s;"}, REFUSED),
    ({"http": "limit_conn_zone $uri zone=z:1m; limit_req_zone $uri zone=z:1m rate=1r/s;"}, REFUSED),
    ({"http": "limit_conn_zone $uri zone=z:1m; limit_req_zone $uri zone=y:1m rate=1r/s;"}, TAKEN),
    ({"http": "upstream u { server 127.0.0.1; zone z; }"}, REFUSED),
    (
        {
            "http": "upstream u { server 127.0.0.1; zone z; } "
            "upstream v { server 127.0.0.1; zone z 64k; }"
        },
        TAKEN,
    ),
    (
        {
            "http": "upstream u { server 127.0.0.1; zone z 64k; } "
            "upstream v { server 127.0.0.1; zone z 128k; }"
        },
        REFUSED,
    ),
    (
        {
            "http": "upstream u { server 127.0.0.1; zone z 64k; } "
            "upstream v { server 127.0.0.1; zone z 64k; }"
        },
        TAKEN,
    ),
    ({"http": "limit_conn_zone $uri zone=z:64k;", "location": "limit_conn z 1;"}, TAKEN),
    # a limit zone's first argument is its key, whatever it looks like
    ({"http": "limit_conn_zone zone=1d zone=z:1m;"}, TAKEN),
    ({"http": "limit_req_zone zone=a zone=r:1m rate=1r/s;"}, TAKEN),
    ({"http": "limit_conn_zone zone=a:1m zone=b:1m;", "location": "limit_conn a 1;"}, REFUSED),
    ({"http": "limit_conn_zone zone=a:1m zone=b:1m;", "location": "limit_conn b 1;"}, TAKEN),
    (
        {"http": "limit_req_zone zone=a:1m zone=b:1m rate=1r/s;", "location": "limit_req zone=b;"},
        TAKEN,
    ),
]

# MERGE_CASES' buffer sizes: nginx 1.22 to 1.31 check them alike (tests/test_nginx_versions.py).
MERGED_BUFFER_CASES = [
    case for case in MERGE_CASES if re.search(r"_buffer|_pool_size|_temp_file", str(case[0]))
]
_HUGE, _NO_TEMP = 4611686018427387904, "max_temp_file_size 0;"  # 2^62, and no temp file cap
# nginx counts all buffers but one, (count - 1) × size, in size_t: past 2^64 it wraps around
# and refuses a busy size the buffers would hold. Every server and location is checked where
# the values end up: tpgen's status server has no extra.server snippet but inherits http's.
BUFFER_CASES: list[tuple[dict[str, str], bool]] = [
    ({"http": f"proxy_buffers 5 {_HUGE}; proxy_{_NO_TEMP}"}, REFUSED),  # 4 × 2^62 wraps to 0
    ({"http": f"proxy_buffers 4 {_HUGE}; proxy_{_NO_TEMP}"}, TAKEN),
    ({"location": "fastcgi_buffers 4503599627370497 4k;"}, REFUSED),  # 2^52 × 4k wraps to 0
    ({"location": "fastcgi_buffers 4503599627370496 4k;"}, TAKEN),
    ({"location": "fastcgi_buffers 4503599627370498 4k;"}, REFUSED),  # wraps to 4k, below 8k
    ({"server": f"uwsgi_buffers 8 9223372036854775807; uwsgi_{_NO_TEMP}"}, REFUSED),
    ({"server": f"uwsgi_buffers 3 9223372036854775807; uwsgi_{_NO_TEMP}"}, TAKEN),
    (
        {"http": f"scgi_buffers 9 {_HUGE}; scgi_busy_buffers_size {_HUGE}; scgi_{_NO_TEMP}"},
        REFUSED,
    ),
    ({"http": f"scgi_buffers 2 {_HUGE}; scgi_busy_buffers_size {_HUGE}; scgi_{_NO_TEMP}"}, TAKEN),
    ({"http": "proxy_buffers 1 4k;", "server": "proxy_buffers 8 4k;"}, REFUSED),
    ({"http": "proxy_buffer_size 64k;", "server": "proxy_buffers 33 4k;"}, REFUSED),
    (
        {
            "http": "large_client_header_buffers 4 256;",
            "server": "large_client_header_buffers 4 1k;",
        },
        REFUSED,
    ),
    ({"server": "connection_pool_size 16k;"}, REFUSED),
    ({"server": "connection_pool_size 8k;"}, TAKEN),
    ({"server": "location @x { proxy_buffers 2 4k; }"}, REFUSED),
    (
        {
            "server": "location /x { proxy_buffers 16 4k; if ($uri) { return 404; } "
            "limit_except GET { deny all; } location /x/y { proxy_buffer_size 8k; } }"
        },
        TAKEN,
    ),
    (
        {"server": "location /x { proxy_buffers 3 4k; location /x/y { proxy_buffer_size 8k; } }"},
        REFUSED,
    ),
    ({"location": "uwsgi_max_temp_file_size 1k;"}, REFUSED),
    ({"location": "scgi_temp_file_write_size 2k;"}, REFUSED),
    ({"location": "fastcgi_busy_buffers_size 2k;"}, REFUSED),
    ({"location": "fastcgi_buffers 1 8k;"}, REFUSED),
    # One page of 4 KiB: proxy_buffers 8 4k and proxy_buffer_size 4k unless set.
    ({"location": "proxy_buffer_size 14k;"}, TAKEN),  # busy 28k, all but one of 8 × 4k
    ({"location": "proxy_buffer_size 15k;"}, REFUSED),
    ({"location": "grpc_buffer_size 1m; memcached_buffer_size 1m;"}, TAKEN),  # no such check
]


CA_FILE = "/etc/ssl/certs/ca-certificates.crt"  # Debian's ca-certificates
# A TLS node's: tpgen's content server has a certificate, its redirect and status servers none.
TLS_CASES: list[tuple[dict[str, str], bool]] = [
    ({"server": "ssl_verify_client on;"}, REFUSED),
    ({"server": "ssl_verify_client optional;"}, REFUSED),
    ({"server": "ssl_verify_client optional_no_ca;"}, TAKEN),
    ({"server": "ssl_verify_client OPTIONAL;"}, REFUSED),  # an enum's values are caseless
    ({"server": f"ssl_verify_client on; ssl_client_certificate {CA_FILE};"}, TAKEN),
    # 1.27.2 takes the trusted certificates too; 1.22 does not.
    ({"server": f"ssl_verify_client on; ssl_trusted_certificate {CA_FILE};"}, REFUSED),
    ({"http": "ssl_verify_client on;"}, REFUSED),
    ({"http": f"ssl_client_certificate {CA_FILE};", "server": "ssl_verify_client on;"}, TAKEN),
    ({"http": "server { listen 127.0.0.1:19564; ssl_verify_client on; }"}, TAKEN),
    # "" is no CAs (the path's length is checked), and a server's "" is not its http block's.
    ({"server": 'ssl_verify_client on; ssl_client_certificate "";'}, REFUSED),
    (
        {
            "http": f"ssl_client_certificate {CA_FILE};",
            "server": 'ssl_verify_client on; ssl_client_certificate "";',
        },
        REFUSED,
    ),
    ({"server": 'ssl_verify_client optional_no_ca; ssl_client_certificate "";'}, TAKEN),
    # ssl on (up to 1.24) needs a certificate in force, or handshakes rejected; tpgen's status
    # server has none, and a flag's values are caseless.
    ({"server": "ssl on;"}, TAKEN),
    ({"http": "ssl on;"}, REFUSED),
    ({"http": "ssl ON;"}, REFUSED),
    ({"http": "ssl off;"}, TAKEN),
    ({"http": "server { listen 127.0.0.1:19566; ssl on; }"}, REFUSED),
    ({"http": "server { listen 127.0.0.1:19567; ssl on; ssl_reject_handshake on; }"}, TAKEN),
    ({"server": "ssl_session_cache shared:tpgen_tls:1m;"}, REFUSED),
    ({"server": "ssl_session_cache shared:mine:1m;"}, TAKEN),
    (
        {
            "http": "server { listen 127.0.0.1:19565; "
            "ssl_session_cache builtin shared:tpgen_tls:1m; }"
        },
        REFUSED,
    ),
]
# An upstream certificate "" (proxy_, grpc_, uwsgi_) where the pass talks TLS: nginx 1.22 loads
# the prefix directory, 1.23.0 on read it as none (tests/test_nginx_versions.py: 1.26 takes all).
EMPTY_CERTIFICATE_CASES: list[tuple[dict[str, str], bool]] = [
    ({"location": 'proxy_ssl_certificate "";'}, REFUSED),  # tpgen's proxy_pass https://
    ({"location": 'proxy_ssl_certificate ""; proxy_ssl_certificate_key "";'}, REFUSED),
    ({"location": 'proxy_ssl_certificate ""; proxy_ssl_certificate_key $host.key;'}, TAKEN),
    (
        {"server": 'location /x { proxy_pass http://127.0.0.1:1; proxy_ssl_certificate ""; }'},
        TAKEN,
    ),
    (
        {
            "http": 'proxy_ssl_certificate "";',
            "server": "location /x { proxy_pass http://127.0.0.1:1; }",
        },
        REFUSED,  # in tpgen's location too, whose proxy_pass is https://
    ),
    (
        {"http": 'proxy_ssl_certificate "";', "server": "location /x { proxy_pass http://$host; }"},
        REFUSED,
    ),
    (
        {"server": 'location /x { grpc_pass grpcs://127.0.0.1:1; grpc_ssl_certificate ""; }'},
        REFUSED,
    ),
    ({"server": 'location /x { grpc_pass grpc://127.0.0.1:1; grpc_ssl_certificate ""; }'}, TAKEN),
    (
        {"server": 'location /x { uwsgi_pass SUWSGI://127.0.0.1:1; uwsgi_ssl_certificate ""; }'},
        REFUSED,
    ),
    ({"server": 'location /x { uwsgi_pass 127.0.0.1:1; uwsgi_ssl_certificate ""; }'}, TAKEN),
    (
        {
            "main": f'{STREAM} stream {{ proxy_ssl_certificate ""; server {{ listen '
            "127.0.0.1:19568; proxy_pass 127.0.0.1:1; proxy_ssl ON; } }"
        },
        REFUSED,
    ),
    (
        {
            "main": f'{STREAM} stream {{ proxy_ssl_certificate ""; server {{ listen '
            "127.0.0.1:19569; proxy_pass 127.0.0.1:1; } }"
        },
        TAKEN,
    ),
]
ORIGIN_TLS = {"origin": {"tls": True}}
# A location's if and limit_except blocks are locations merged with it: a *_pass there that
# talks TLS loads the certificate they inherit (tpgen's own origin here is plain http).
_CERTIFICATE = 'proxy_ssl_certificate "";'
_TLS_PASS = "proxy_pass https://127.0.0.1:1;"
_PLAIN_PASS = "proxy_pass http://127.0.0.1:1;"
INNER_CERTIFICATE_CASES: list[tuple[dict[str, str], bool]] = [
    ({"server": f"location /x {{ {_CERTIFICATE} if ($uri) {{ {_TLS_PASS} }} }}"}, REFUSED),
    (
        {"server": f"location /x {{ {_CERTIFICATE} if ($uri) {{ {_PLAIN_PASS} }} }}"},
        TAKEN,
    ),
    ({"server": f"location /x {{ {_CERTIFICATE} limit_except GET {{ {_TLS_PASS} }} }}"}, REFUSED),
    (
        {"server": f"location /x {{ {_CERTIFICATE} limit_except GET {{ {_PLAIN_PASS} }} }}"},
        TAKEN,
    ),
    ({"http": _CERTIFICATE, "server": f"location /x {{ if ($uri) {{ {_TLS_PASS} }} }}"}, REFUSED),
    (
        {
            "server": f"location /x {{ {_TLS_PASS} if ($uri) {{ {_PLAIN_PASS} }} }}",
            "http": _CERTIFICATE,
        },
        REFUSED,  # the location's own pass
    ),
    (
        {
            "server": 'location /x { grpc_ssl_certificate ""; '
            "if ($uri) { grpc_pass grpcs://127.0.0.1:1; } }"
        },
        REFUSED,
    ),
    (
        {"server": 'location /x { grpc_ssl_certificate ""; if ($uri) { grpc_pass 127.0.0.1:1; } }'},
        TAKEN,
    ),
    ({"server": f"location /x {{ {_CERTIFICATE} if ($uri) {{ return 404; }} }}"}, TAKEN),
]
# ssl_ocsp in a server with a certificate (tpgen's content server, or one rejecting
# handshakes): not beside ssl_verify_client optional_no_ca, and its responder an http:// URL
# whose address nginx reads (spec/handlers_ocsp.py); nginx 1.22 to 1.31 alike.
OCSP_CASES: list[tuple[dict[str, str], bool]] = [
    ({"server": "ssl_ocsp on; ssl_verify_client optional_no_ca;"}, REFUSED),
    ({"server": "ssl_ocsp LEAF; ssl_verify_client OPTIONAL_NO_CA;"}, REFUSED),
    ({"server": "ssl_ocsp off; ssl_verify_client optional_no_ca;"}, TAKEN),
    ({"http": "ssl_ocsp on;", "server": "ssl_verify_client optional_no_ca;"}, REFUSED),
    (
        {
            "http": "server { listen 127.0.0.1:19580; ssl_ocsp on; "
            "ssl_verify_client optional_no_ca; }"
        },
        TAKEN,
    ),
    ({"server": "ssl_ocsp on; ssl_ocsp_responder https://127.0.0.1/;"}, REFUSED),
    ({"server": "ssl_ocsp on; ssl_ocsp_responder http://;"}, REFUSED),
    ({"server": "ssl_ocsp on; ssl_ocsp_responder HTTP://127.0.0.1:8080/ocsp;"}, TAKEN),
    ({"server": "ssl_ocsp on; ssl_ocsp_responder http://127.0.0.1:0/;"}, REFUSED),
    ({"server": "ssl_ocsp on; ssl_ocsp_responder http://127.0.0.1:80:80;"}, REFUSED),
    ({"server": "ssl_ocsp on; ssl_ocsp_responder http://127.0.0.1?x;"}, TAKEN),
    ({"server": "ssl_ocsp on; ssl_ocsp_responder http://[::1/;"}, REFUSED),
    ({"server": "ssl_ocsp on; ssl_ocsp_responder http://[::1]:8080/ocsp?x;"}, TAKEN),
    ({"server": "ssl_ocsp on; ssl_ocsp_responder http://:80/;"}, REFUSED),
    ({"server": "ssl_ocsp on; ssl_ocsp_responder http://a..b/;"}, REFUSED),
    ({"server": "ssl_ocsp on; ssl_ocsp_responder http://unix:/tmp/x.sock:/ocsp;"}, TAKEN),
    ({"server": 'ssl_ocsp on; ssl_ocsp_responder "";'}, TAKEN),
    ({"server": "ssl_ocsp off; ssl_ocsp_responder https://127.0.0.1/;"}, TAKEN),
    (
        {"http": "server { listen 127.0.0.1:19581; ssl_ocsp on; ssl_ocsp_responder https://x/; }"},
        TAKEN,
    ),
    (
        {
            "http": "server { listen 127.0.0.1:19582; ssl_reject_handshake on; ssl_ocsp on; "
            "ssl_ocsp_responder https://x/; }"
        },
        REFUSED,
    ),
]
# ngx_http_ssl_merge_srv_conf compiles the certificate paths of each server with a
# certificate in force, its own or its http block's (tpgen's status server sets none), once
# one of them or its paired key has a $: a variable nothing defines is refused there. A key
# past the certificates (tpgen's content server's comes first), or where none is in force,
# never. Checked without tpgen's TLS (sections {}) and with it (TLS).
CERTIFICATE_PATH_CASES: list[tuple[dict[str, str], bool]] = [
    ({"http": "ssl_certificate a$nope; ssl_certificate_key k;"}, REFUSED),
    ({"http": "ssl_certificate a.crt; ssl_certificate_key k$nope;"}, REFUSED),
    ({"http": "ssl_certificate a$ssl_server_name; ssl_certificate_key k$ssl_server_name;"}, TAKEN),
    ({"http": "ssl_certificate_key k$nope;"}, TAKEN),
    ({"server": "ssl_certificate a$nope; ssl_certificate_key k;"}, REFUSED),
    ({"server": "ssl_certificate_key k$nope;"}, TAKEN),
    ({"server": "ssl_certificate_key k$;"}, TAKEN),
    (
        {
            "http": "ssl_certificate a$ssl_server_name; ssl_certificate_key k;",
            "server": "ssl_certificate_key k$nope;",
        },
        REFUSED,
    ),
    (
        {
            "http": "map $uri $m { default a; }",
            "server": "ssl_certificate $m.crt; ssl_certificate_key $M.key;",
        },
        TAKEN,
    ),
    ({"location": "fastcgi_param A $nope;"}, REFUSED),
    ({"http": "uwsgi_param A $nope;"}, REFUSED),
    ({"server": "proxy_set_body $nope;"}, REFUSED),
    ({"server": "set $b 1; proxy_set_body $b; scgi_param A $b if_not_empty;"}, TAKEN),
]
TLS_CERTIFICATE_PATH_CASES: list[tuple[dict[str, str], bool]] = [
    ({"server": "ssl_certificate_key k$nope;"}, TAKEN),
    ({"server": "ssl_certificate b$nope; ssl_certificate_key k;"}, REFUSED),
    ({"server": "ssl_certificate b.crt; ssl_certificate_key k$nope;"}, REFUSED),
    ({"http": "ssl_certificate a$nope; ssl_certificate_key k;"}, REFUSED),
]

TLS = {
    "listen": [{"port": 443, "tls": True}],
    "tls": {"certificates": [{"cert": "/etc/nginx/tls/a.crt", "key": "/etc/nginx/tls/a.key"}]},
}

# Server names: tpgen's content server is on 0.0.0.0:80 (server_name _), its status server
# alone on 127.0.0.1:8081. nginx hashes the names of an address with two servers or more, or
# whose default server has a regex name with captures: a key takes 8 + its length and 2
# aligned to 8 bytes, and the bucket keeps 8 for its end (64 bytes hold 46 characters).
A46, A47 = "a" * 42 + ".net", "a" * 43 + ".net"
A110, A111 = "a" * 106 + ".net", "a" * 107 + ".net"


def _on_80(names: str, before: str = "") -> dict[str, str]:
    """An http snippet with a server beside tpgen's on 0.0.0.0:80."""
    return {"http": f"{before}server {{ listen 0.0.0.0:80; server_name {names}; }}"}


def _short_names(count: int) -> str:
    return " ".join(f"n{index}" for index in range(count))  # each 16 bytes of a bucket


NAMES_CASES: list[tuple[dict[str, str], bool]] = [
    (_on_80(A46), TAKEN),  # the bucket's 64 bytes exactly
    (_on_80(A47), REFUSED),  # one byte over
    ({"http": f"server {{ listen 127.0.0.1:19570; server_name {A47}; }}"}, TAKEN),  # alone
    ({"http": f"server {{ listen 127.0.0.1:19571 default_server; server_name {A47}; }}"}, TAKEN),
    ({"http": f"server {{ listen 127.0.0.1:19572; server_name ~^(?<h>.+)$ {A47}; }}"}, REFUSED),
    ({"http": f"server {{ listen 127.0.0.1:19573; server_name ~^.+$ {A47}; }}"}, TAKEN),
    ({"http": f"server {{ server_name {A47}; }}"}, REFUSED),  # no listen: *:80 under root
    ({"server": f"server_name {A47};"}, TAKEN),  # tpgen's server alone on its address
    ({"server": f"server_name {A47};", "http": "server { listen 0.0.0.0:80; }"}, REFUSED),
    (_on_80(A47, "server_names_hash_bucket_size 128; "), TAKEN),
    (_on_80(A110, "server_names_hash_bucket_size 128; "), TAKEN),
    (_on_80(A111, "server_names_hash_bucket_size 128; "), REFUSED),
    (_on_80(A110, "server_names_hash_bucket_size 65; "), TAKEN),  # rounded up to 128
    (_on_80(A111, "server_names_hash_bucket_size 256; "), TAKEN),
    # A wildcard's labels are the keys, each of its own hash.
    (_on_80(f"*.{'a' * 46}.{'b' * 46}"), TAKEN),
    (_on_80(f"*.{'a' * 47}.net"), REFUSED),
    (_on_80(f"{'a' * 47}.example.*"), REFUSED),
    (_on_80(f"www.{'a' * 46}.*"), TAKEN),
    # .example.com takes example.com too: the exact name after it is ignored, not hashed.
    (_on_80(f".{A47} {A47}"), TAKEN),
    (_on_80(f"{A47} .{A47}"), REFUSED),
    (_on_80("a*b"), REFUSED),
    ({"http": "server { listen 127.0.0.1:19574; server_name a*b; }"}, TAKEN),
    # Past max_size nginx only warns, and refuses a bucket past 65472 bytes: with tpgen's _,
    # 4091 names of 16 bytes fill one bucket to 65464 after its pointer.
    (_on_80(_short_names(4090), "server_names_hash_max_size 1; "), TAKEN),
    (_on_80(_short_names(4091), "server_names_hash_max_size 1; "), REFUSED),
    (_on_80(_short_names(4091)), TAKEN),  # 512 buckets
    ({"http": "server_names_hash_max_size 0; server { listen 0.0.0.0:80; }"}, REFUSED),
    ({"http": "server_names_hash_max_size 0;"}, TAKEN),  # no address hashes names
    # The bucket as set, rounded up to a cache line: 0 holds no name, 65472 is the most.
    ({"http": "server_names_hash_bucket_size 0; server { listen 0.0.0.0:80; }"}, REFUSED),
    ({"http": "server_names_hash_bucket_size 65473; server { listen 0.0.0.0:80; }"}, REFUSED),
    ({"http": "server_names_hash_bucket_size 65472; server { listen 0.0.0.0:80; }"}, TAKEN),
    # A server with regex names alone has no "" name (ngx_http_core_merge_srv_conf): one more
    # 16-byte key would pass the bucket above.
    (
        _on_80(_short_names(4090), "server_names_hash_max_size 1; server { server_name ~^x$; } "),
        TAKEN,
    ),
    # $hostname is the node's host name (lowercase): too short here to need room.
    (_on_80("$hostname"), TAKEN),
    (_on_80(f"$HOSTNAME {A47}"), REFUSED),
    # A listen of a host name is on each address it resolves to: localhost's 127.0.0.1 is
    # tpgen's status server's (127.0.0.1:8081); its servers share them.
    ({"http": f"server {{ listen localhost:8081; server_name {A47}; }}"}, REFUSED),
    ({"http": f"server {{ listen LocalHost:19575; server_name {A47}; }}"}, TAKEN),
    (
        {
            "http": f"server {{ listen localhost:19576; server_name {A47}; }} "
            "server { listen localhost:19576; }"
        },
        REFUSED,
    ),
    ({"http": f"server {{ listen localhost:19577; server_name ~^(?<h>.+)$ {A47}; }}"}, REFUSED),
    ({"http": f"server {{ listen localhost:19578; server_name ~^.+$ {A47}; }}"}, TAKEN),
]
# A listen of localhost is on 127.0.0.1, where tpgen's status server listens (127.0.0.1:8081,
# after the http snippets' servers).
LISTEN_NAME_CASES: list[tuple[dict[str, str], bool]] = [
    ({"http": "server { listen localhost:8081 ssl; }"}, REFUSED),
    ({"http": "server { listen localhost:8081 ssl; ssl_reject_handshake on; }"}, REFUSED),
    ({"http": "server { listen localhost:8081 default_server; }"}, TAKEN),
    ({"http": "server { listen localhost:8081 backlog=10; }"}, TAKEN),
    (
        {
            "http": "server { listen localhost:19591 default_server; } "
            "server { listen 127.0.0.1:19591 default_server; }"
        },
        REFUSED,
    ),
]
# Two certificates: tpgen's two servers share 0.0.0.0:443 and tpgen sets a bucket of 128 for
# its 47-character name.
TLS_NAMES = {
    "listen": [{"port": 443, "tls": True}],
    "tls": {
        "certificates": [
            {"cert": "/etc/nginx/tls/a.crt", "key": "/etc/nginx/tls/a.key"},
            {"cert": "/etc/nginx/tls/b.crt", "key": "/etc/nginx/tls/b.key", "server_names": [A47]},
        ]
    },
}
TLS_NAMES_CASES: list[tuple[dict[str, str], bool]] = [
    ({"server": f"server_name {A110};"}, TAKEN),
    ({"server": f"server_name {A111};"}, REFUSED),
]
# The other hashes nginx builds of the config's keys (spec/merged_hashes.py): a bucket of 64
# holds a key of 46 characters; max_size 0 and a bucket past 65472 are refused wherever nginx
# builds the hash, and a max_size whose test array (2 bytes a bucket) passes any address
# space. tpgen's config has maps before the http snippets (their sizes are settled there),
# types in its http block, and proxy_set_header in its cache location.
K46, K47 = "k" * 46, "k" * 47
HASH_CASES: list[tuple[dict[str, str], bool]] = [
    ({"http": "variables_hash_max_size 0;"}, REFUSED),
    ({"http": "variables_hash_max_size 1;"}, TAKEN),  # past max_size nginx only warns
    ({"http": "variables_hash_bucket_size 0;"}, REFUSED),
    ({"http": "variables_hash_bucket_size 65472;"}, TAKEN),
    ({"http": "variables_hash_bucket_size 65473;"}, REFUSED),  # rounded up to 65536
    ({"location": f"set ${K46} 1;"}, TAKEN),
    ({"location": f"set ${K47} 1;"}, REFUSED),
    ({"http": f"variables_hash_bucket_size 65; map $uri ${K47} {{ default 1; }}"}, TAKEN),
    ({"http": f"split_clients $uri ${K47} {{ * a; }}"}, REFUSED),
    ({"http": f"map $uri $hm {{ {K46} 1; }}"}, TAKEN),
    ({"http": f"map $uri $hm {{ {K47} 1; }}"}, REFUSED),
    ({"http": f"map $uri $hm {{ ~{K47} 1; default {K47}; }}"}, TAKEN),
    ({"http": f"map $uri $hm {{ \\{K46} 1; }}"}, TAKEN),  # the \ escapes: not hashed
    ({"http": f"map $uri $hm {{ hostnames; *.{K47}.net 1; }}"}, REFUSED),
    ({"http": f"map $uri $hm {{ hostnames; *.{K46}.net 1; }}"}, TAKEN),
    ({"http": "map_hash_bucket_size 128;"}, REFUSED),  # after tpgen's maps: a duplicate
    ({"http": "types_hash_max_size 0;"}, REFUSED),
    ({"http": "types_hash_max_size 9223372036854775807;"}, REFUSED),
    ({"http": "types_hash_max_size 4096;"}, TAKEN),
    # The server names' hash alike (two servers on 0.0.0.0:80 with tpgen's).
    (_on_80("x", "server_names_hash_max_size 70368744177664; "), REFUSED),
    ({"server": "types_hash_bucket_size 0;"}, REFUSED),
    ({"server": "types_hash_bucket_size 65536;"}, REFUSED),
    ({"location": "types_hash_max_size 0;"}, TAKEN),  # the location's types are its server's
    ({"location": "types_hash_max_size 0; types { text/x x; }"}, REFUSED),
    ({"http": f"types {{ text/x {K46}; }}"}, TAKEN),
    ({"http": f"types {{ text/x {K47}; }}"}, REFUSED),
    ({"http": f"types_hash_bucket_size 128; types {{ text/x {K47}; }}"}, TAKEN),
    ({"http": "proxy_headers_hash_max_size 0;"}, REFUSED),
    ({"server": "proxy_headers_hash_bucket_size 65473;"}, REFUSED),
    ({"location": "proxy_headers_hash_max_size 0;"}, REFUSED),  # tpgen's proxy_set_header
    ({"location": f"proxy_set_header {K46} 1;"}, TAKEN),
    ({"location": f"proxy_set_header {K47} 1;"}, REFUSED),
    ({"location": f"proxy_hide_header {K47};"}, REFUSED),
    ({"location": f"proxy_pass_header {K47};"}, TAKEN),  # passes what nginx does not hide
    # Each server builds its proxy hashes (the set headers' source, none, is not the http
    # block's, unset); a location that lists no headers inherits its server's built.
    (
        {
            "http": "server { listen 127.0.0.1:19640; } "
            "server { listen 127.0.0.1:19641; proxy_headers_hash_max_size 0; }"
        },
        REFUSED,
    ),
    (
        {
            "http": "server { listen 127.0.0.1:19642; "
            "location / { proxy_headers_hash_max_size 0; } }"
        },
        TAKEN,
    ),
    ({"main": f"{STREAM} stream {{ map $remote_addr $sm {{ {K47} 1; }} }}"}, REFUSED),
    ({"main": f"{STREAM} stream {{ map $remote_addr ${K47} {{ default 1; }} }}"}, REFUSED),
    ({"main": f"{STREAM} stream {{ variables_hash_bucket_size 0; }}"}, REFUSED),
    (
        {"main": f"{STREAM} stream {{ map_hash_max_size 0; map $remote_addr $sm {{ a 1; }} }}"},
        REFUSED,
    ),
    (
        {
            "main": f"{STREAM} stream {{ map_hash_max_size 0; "
            "map $remote_addr $sm { default 1; } }"
        },
        TAKEN,
    ),
    # Hashes whose bucket nginx fixes at 64 bytes (no directive sets it).
    ({"http": f"gzip_types a/{K46[2:]};"}, TAKEN),
    ({"http": f"gzip_types a/{K46};"}, REFUSED),
    ({"http": f"gzip_types * a/{K46};"}, TAKEN),  # any type: no hash
    ({"server": f"ssi_types a/{K46};"}, REFUSED),
    ({"location": f"sub_filter_types a/{K46};"}, REFUSED),
    ({"location": f"fastcgi_hide_header {K46};"}, TAKEN),
    ({"location": f"fastcgi_hide_header {K47};"}, REFUSED),
    ({"location": f"fastcgi_hide_header {K47}; fastcgi_pass_header {K47};"}, TAKEN),
    ({"http": f"uwsgi_hide_header {K47};"}, REFUSED),
    ({"location": f"grpc_set_header {K47} 1;"}, REFUSED),
    ({"location": f"grpc_hide_header {K47};"}, REFUSED),
    ({"location": f"fastcgi_param HTTP_{K46} 1;"}, TAKEN),
    ({"location": f"fastcgi_param HTTP_{K47} 1;"}, REFUSED),
    ({"location": f"scgi_param HTTP_{K47} 1;"}, REFUSED),
    ({"location": f"uwsgi_param http_{K47} 1;"}, TAKEN),  # HTTP_ alone, in capitals
]


def with_snippets(
    tmp_path: Path, snippets: dict[str, str], **sections: object
) -> tuple[NodeSpec, Plan, dict[str, str]]:
    """A cache node's spec with the snippets at their paths under tmp_path, its plan, and
    each snippet's node path mapped to itself (read where it is)."""
    extra: dict[str, list[str]] = {}
    for name, text in snippets.items():
        path = tmp_path / f"{name.replace('#', '-')}.conf"
        # nginx -t opens each access log: one under tmp_path, not on the host's paths.
        path.write_text(text.replace("LOG", str(tmp_path / "t.log")) + "\n", encoding="utf-8")
        extra.setdefault(name.partition("#")[0], []).append(str(path))
    node = spec_from_mapping(spec(extra=extra, **sections), "s.yaml")
    paths = {path: path for listed in extra.values() for path in listed}
    return node, make_plan(node, "s.yaml"), paths


@pytest.mark.parametrize(
    ("cases", "sections"),
    [
        (MERGE_CASES, {}),
        (BUFFER_CASES, {}),
        (TLS_CASES, TLS),
        (OCSP_CASES, TLS),
        (NAMES_CASES, {}),
        (LISTEN_NAME_CASES, {}),
        (TLS_NAMES_CASES, TLS_NAMES),
        (EMPTY_CERTIFICATE_CASES, ORIGIN_TLS),
        (INNER_CERTIFICATE_CASES, {}),
        (CERTIFICATE_PATH_CASES, {}),
        (TLS_CERTIFICATE_PATH_CASES, TLS),
        (HASH_CASES, {}),
    ],
    ids=[
        "merges",
        "buffers",
        "tls",
        "ocsp",
        "names",
        "listen-names",
        "tls-names",
        "empty-certificates",
        "inner-certificates",
        "certificate-paths",
        "tls-certificate-paths",
        "hashes",
    ],
)
def test_tpgen_refuses_a_merge_where_the_real_nginx_does(
    nginx_binary: str,
    tmp_path: Path,
    cases: list[tuple[dict[str, str], bool]],
    sections: dict[str, object],
) -> None:
    assert merge_disagreements(nginx_binary, tmp_path, cases, sections) == []


def merge_disagreements(
    nginx: str, root: Path, cases: list[tuple[dict[str, str], bool]], sections: dict[str, object]
) -> list[tuple[dict[str, str], list[str]]]:
    """The cases where tpgen's verdict is not the ``nginx`` binary's (each case's expected
    verdict is asserted to be nginx's first)."""
    wrong = []
    for index, (snippets, nginx_refuses) in enumerate(cases):
        case = root / str(index)
        case.mkdir()
        node, plan, paths = with_snippets(case, snippets, **sections)
        said = check_plan(plan, nginx=nginx)
        assert said.ok != nginx_refuses, (snippets, said.output)
        refused = extra_file_problems(node, paths)
        if bool(refused) != nginx_refuses:
            wrong.append((snippets, [item.message for item in refused]))
    return wrong


def test_a_refusal_names_the_snippet_directive_nearest_the_block_and_the_fix(
    tmp_path: Path,
) -> None:
    node, _, paths = with_snippets(
        tmp_path, {"http": "proxy_buffer_size 64k;\nproxy_buffers 8 4k;"}
    )
    (found,) = extra_file_problems(node, paths)
    assert found.message == (
        f"{tmp_path}/http.conf line 2: proxy_buffers: with proxy_buffers 8 4k and "
        "proxy_buffer_size 64k in force, proxy_busy_buffers_size 128k (unset: twice 64k) "
        'exceeds all proxy_buffers but one, 28k (nginx: "proxy_busy_buffers_size" must be less '
        'than the size of all "proxy_buffers" minus one buffer): give proxy_buffers at least 33 '
        "buffers of 4k"
    )


def test_buffers_whose_size_wraps_past_2_64_are_refused_with_counts_that_do_not(
    tmp_path: Path,
) -> None:
    """All buffers but one as nginx counts them (size_t); the fix names the counts that hold
    the busy size without wrapping, or the size to lower where none does."""
    node, _, paths = with_snippets(
        tmp_path, {"http": f"proxy_buffers 5 {_HUGE};\nproxy_max_temp_file_size 0;"}
    )
    (found,) = extra_file_problems(node, paths)
    assert found.message == (
        f"{tmp_path}/http.conf line 1: proxy_buffers: with proxy_buffers 5 4398046511104m and "
        "proxy_buffer_size 4k in force, proxy_busy_buffers_size 8796093022208m (unset: twice "
        "4398046511104m) exceeds all proxy_buffers but one as nginx counts them: 4 × "
        "4398046511104m passes 2^64 bytes and wraps around to 0 (nginx: "
        '"proxy_busy_buffers_size" must be less than the size of all "proxy_buffers" minus one '
        "buffer): give proxy_buffers 3 to 4 buffers of 4398046511104m"
    )
    node, _, paths = with_snippets(tmp_path, {"http": "proxy_buffer_size 9223372036854775807;"})
    (found,) = extra_file_problems(node, paths)
    assert found.message.endswith(
        'exceeds all proxy_buffers but one, 28k (nginx: "proxy_busy_buffers_size" must be '
        'less than the size of all "proxy_buffers" minus one buffer): lower proxy_buffer_size: '
        "no count of 4k buffers holds twice it below 2^64 bytes"
    )


def test_a_log_buffered_unlike_tpgen_s_own_log_to_that_file_is_refused(tmp_path: Path) -> None:
    """tpgen's access_log buffers its file first (buffer= and flush=, from the spec): a
    snippet that buffers the same file needs the same settings; an unbuffered one shares it."""
    own = "/var/log/nginx/access.log"
    node, _, paths = with_snippets(tmp_path, {"http": f"access_log {own} combined buffer=8k;"})
    (found,) = extra_file_problems(node, paths)
    assert found.message == (
        f"{tmp_path}/http.conf line 1: access_log: buffers '{own}' (buffer=8k, no flush, no "
        "gzip) where tpgen's access_log buffers it (buffer=64k, flush=5s, no gzip) (nginx: "
        f'access_log "{own}" already defined with conflicting parameters): give both the same '
        "buffer=, flush= and gzip, or log to another file"
    )
    node, _, paths = with_snippets(tmp_path, {"http": f"access_log {own} combined;"})
    assert extra_file_problems(node, paths) == []


def test_a_stream_log_buffered_unlike_tpgen_s_own_log_to_that_file_is_refused(
    tmp_path: Path,
) -> None:
    """A stream server's access_log opens the file tpgen's http one opens: read first (extra.main
    comes before the http block), it sets the buffer tpgen's must match."""
    own = "/var/log/nginx/access.log"
    node, _, paths = with_snippets(
        tmp_path, {"main": _stream_log(19580, f"access_log {own} s buffer=8k gzip;")}
    )
    (found,) = extra_file_problems(node, paths)
    assert found.message == (
        f"{tmp_path}/main.conf line 1: access_log: buffers '{own}' (buffer=8k, no flush, gzip=1) "
        "where tpgen's access_log buffers it (buffer=64k, flush=5s, no gzip) (nginx: "
        f'access_log "{own}" already defined with conflicting parameters): give both the same '
        "buffer=, flush= and gzip, or log to another file"
    )
    node, _, paths = with_snippets(
        tmp_path, {"main": _stream_log(19580, f"access_log {own} s buffer=64k flush=5s;")}
    )
    assert extra_file_problems(node, paths) == []


def test_an_ocsp_setting_nginx_refuses_in_a_tls_server_is_said_with_the_fix(
    tmp_path: Path,
) -> None:
    node, _, paths = with_snippets(
        tmp_path, {"server": "ssl_ocsp on;\nssl_verify_client optional_no_ca;"}, **TLS
    )
    (found,) = extra_file_problems(node, paths)
    assert found.message == (
        f"{tmp_path}/server.conf line 1: ssl_ocsp: has ssl_ocsp check the clients' certificates "
        'where ssl_verify_client optional_no_ca checks none (nginx: "ssl_ocsp" is incompatible '
        'with "ssl_verify_client optional_no_ca"): set ssl_verify_client on or optional (with '
        "ssl_client_certificate), or ssl_ocsp off"
    )


def test_tpgen_s_own_ssl_stapling_is_not_blamed_for_a_snippet_s_compression() -> None:
    """From 1.29.3 ssl_stapling on refuses ssl_certificate_compression on beside it."""
    config = parse(
        "http { server { ssl_certificate a.crt; ssl_certificate_key a.key; ssl_stapling on; "
        "include /x.conf; } }\n"
    )
    snippets = {"/x.conf": parse("ssl_certificate_compression on;\n")}
    refused = merge_refusals(config, snippets, (1, 29, 3))
    assert [(d.name, why.split(" (")[0]) for d, why in refused] == [
        (
            "ssl_certificate_compression",
            "has ssl_stapling staple OCSP answers to certificates ssl_certificate_compression "
            "compresses ahead of any answer",
        )
    ]
    assert merge_refusals(config, snippets, (1, 29, 2)) == []


def test_tpgen_s_own_settings_alone_are_never_blamed_on_a_snippet() -> None:
    config = parse("http { proxy_buffers 1 4k; server { include /x.conf; } }\n")
    assert merge_refusals(config, {"/x.conf": parse("gzip on;\n")}, (1, 22, 1)) == []
    refused = merge_refusals(config, {"/x.conf": parse("proxy_buffer_size 8k;\n")}, (1, 22, 1))
    assert [(d.name, why.split(": ")[1]) for d, why in refused] == [
        ("proxy_buffer_size", "nginx needs at least two proxy_buffers (nginx")
    ]


@pytest.mark.parametrize(
    ("value", "shown"), [(0, "0"), (1000, "1000"), (4096, "4k"), (1 << 20, "1m"), (1536, "1536")]
)
def test_sizes_are_shown_as_nginx_reads_them(value: int, shown: str) -> None:
    assert shown_size(value) == shown


def test_a_server_name_nginx_cannot_hash_is_refused_with_the_size_to_set(tmp_path: Path) -> None:
    node, _, paths = with_snippets(
        tmp_path, _on_80(f"a.net {A47}", "server_names_hash_max_size 1;\n")
    )
    (found,) = extra_file_problems(node, paths)
    assert found.message == (
        f"{tmp_path}/http.conf line 2: server_name: names '{A47}' (47 characters) on "
        "0.0.0.0:80, where nginx hashes the names of the address's 2 servers; the name takes "
        "72 bytes of a hash bucket with the pointer that ends it, more than "
        "server_names_hash_bucket_size 64 holds (nginx: could not build server_names_hash, you "
        "should increase server_names_hash_bucket_size: 64): add server_names_hash_bucket_size "
        "128; to an extra.http snippet"
    )
    (tmp_path / "m").mkdir()
    node, _, paths = with_snippets(
        tmp_path / "m", _on_80(_short_names(4091), "server_names_hash_max_size 1; ")
    )
    (found,) = extra_file_problems(node, paths)
    assert found.message.endswith(
        "server_names_hash_max_size: is too small for the server names on 0.0.0.0:80, where "
        "nginx hashes the names of the address's 2 servers: nginx spreads the 4092 names over "
        "at most server_names_hash_max_size 1 buckets, and a bucket would pass 65472 bytes "
        "(nginx: could not build server_names_hash, you should increase "
        "server_names_hash_max_size: 1): raise it to 512"
    )


def test_a_regex_name_s_captures_count_only_where_nginx_compiles_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A build without PCRE refuses the regex name itself (said once, by the server_name
    check), before any hash; without libpcre2 here the captures are unknown, and a hash nginx
    may not build refuses nothing (~^.+$ beside the long name: nginx -t takes it, NAMES_CASES)."""
    captures = _on_80_alone(f"~^(?<h>.+)$ {A47}")
    node, _, paths = with_snippets(
        tmp_path, captures, nginx={"version": "1.22.1", "configure": NO_PCRE}
    )
    (found,) = extra_file_problems(node, paths)
    assert "line 1: server_name: uses the regex '~^(?<h>.+)$', and nginx 1.22.1 as built" in (
        found.message
    )

    def missing(name: str) -> None:
        raise OSError(f"{name}: cannot open shared object file")

    pcre._library.cache_clear()
    monkeypatch.setattr("ctypes.CDLL", missing)
    try:
        for names in (f"~^.+$ {A47}", f"~^(?<h>.+)$ {A47}"):
            node, _, paths = with_snippets(tmp_path, _on_80_alone(names))
            assert extra_file_problems(node, paths) == []
    finally:
        monkeypatch.undo()
        pcre._library.cache_clear()
    node, _, paths = with_snippets(tmp_path, captures)
    assert len(extra_file_problems(node, paths)) == 1


def test_a_map_key_s_named_captures_define_variables_only_where_nginx_has_pcre(
    tmp_path: Path,
) -> None:
    """Without PCRE a map's ~ key is a plain string: its (?<y>...) defines no $y
    (NO_PCRE_CASES hold the no-PCRE nginx's verdicts)."""
    snippets = {"http": "map $uri $x { ~^/(?<y>a) 1; }\nmap $y $z { default 0; }"}
    node, _, paths = with_snippets(tmp_path, snippets, nginx={"version": "1.22.1"})
    assert extra_file_problems(node, paths) == []
    built = {"version": "1.22.1", "configure": NO_PCRE}
    node, _, paths = with_snippets(tmp_path, snippets, nginx=built)
    (found,) = extra_file_problems(node, paths)
    assert found.message == (
        f"{tmp_path}/http.conf line 2: map: uses $y, which neither nginx 1.22.1 nor the config "
        'defines (nginx: unknown "y" variable): check the spelling, or define it (set, map)'
    )


def test_the_servers_on_one_host_name_are_hashed_together(
    nginx_binary: str, tmp_path: Path
) -> None:
    """Every listen of a name and port is on each address the name resolves to (this
    machine's host name: its /etc/hosts), caseless; a server alone there is not hashed."""
    host = socket.gethostname()
    assert socket.getaddrinfo(host, None)  # else nginx says "host not found"
    cases = [
        ({"http": f"server {{ listen {host}:19579; server_name {A47}; }} "
                  f"server {{ listen {host.upper()}:19579; }}"}, REFUSED),
        ({"http": f"server {{ listen {host}:19580; server_name {A47}; }}"}, TAKEN),
        ({"http": f"server {{ listen {host}:19581; server_name ~^(?<h>.+)$ {A47}; }}"}, REFUSED),
        ({"http": f"server {{ listen {host}:19582; server_name {A47}; }} "
                  f"server {{ listen {host}:19583; }}"}, TAKEN),
    ]  # fmt: skip
    assert merge_disagreements(nginx_binary, tmp_path, cases, {}) == []
    node, _, paths = with_snippets(tmp_path, cases[0][0])
    (found,) = extra_file_problems(node, paths)
    assert f"(47 characters) on each address of {host.lower()}:19579, where nginx hashes the " in (
        found.message
    )


def test_the_listens_of_one_host_name_are_merged_on_each_of_its_addresses(
    nginx_binary: str, tmp_path: Path
) -> None:
    """A second default server, or socket options, among the listens of one name and port
    is refused on every node (this machine's host name: its /etc/hosts); the name against an
    address, or a server on it that may not be the first, is not known here."""
    host = socket.gethostname()
    assert socket.getaddrinfo(host, None)  # else nginx says "host not found"
    cases = [
        ({"http": f"server {{ listen {host}:19584 default_server; }} "
                  f"server {{ listen {host.upper()}:19584 default_server; }}"}, REFUSED),
        ({"http": f"server {{ listen {host}:19585 backlog=10; }} "
                  f"server {{ listen {host}:19585 reuseport; }}"}, REFUSED),
        ({"http": f"server {{ listen {host}:19586; listen {host}:19586; }}"}, REFUSED),
        ({"http": f"server {{ listen {host}:19587 ssl default_server; }}"}, REFUSED),
        ({"http": f"server {{ listen {host}:19588 default_server; }} "
                  f"server {{ listen {host}:19589 default_server; }}"}, TAKEN),
        ({"http": f"server {{ listen {host}:19590 backlog=10; }} "
                  f"server {{ listen {host}:19590; }}"}, TAKEN),
        ({"http": f"server {{ listen {host}:19592 ssl; ssl_reject_handshake on; }}"}, TAKEN),
    ]  # fmt: skip
    assert merge_disagreements(nginx_binary, tmp_path, cases, {}) == []
    node, _, paths = with_snippets(tmp_path, cases[0][0])
    (found,) = extra_file_problems(node, paths)
    assert found.message.endswith(
        f"makes a second default server for each address of {host.lower()}:19584, where the "
        f"snippet has one as well (nginx: a duplicate default server for <an address of "
        f"{host.lower()}:19584>): keep one default_server"
    )
    node, _, paths = with_snippets(tmp_path, cases[2][0])
    (twice,) = extra_file_problems(node, paths)
    assert twice.message.endswith(
        f"listens on each address of {host.lower()}:19586 twice in one server (nginx: a "
        f"duplicate listen <an address of {host.lower()}:19586>): keep one"
    )


def _on_80_alone(names: str) -> dict[str, str]:
    """An http snippet with a server alone on its address."""
    return {"http": f"server {{ listen 127.0.0.1:19572; server_name {names}; }}"}


# Access logs one file by its full name (ngx_conf_full_name: the prefix before a relative
# path, no other spelling folded): PREFIX is nginx's prefix (-p here, configure's --prefix on
# a node). (the snippet, whether nginx refuses it).
_FIRST_LOG = "access_log logs/a.log combined buffer=32k;"
PREFIX_LOG_CASES: list[tuple[str, bool]] = [
    (f"{_FIRST_LOG} access_log PREFIX/logs/a.log combined buffer=64k;", True),
    (f"access_log PREFIX/logs/a.log combined buffer=64k; {_FIRST_LOG}", True),
    (f"{_FIRST_LOG} access_log PREFIX/logs/a.log combined buffer=32k;", False),
    (f"{_FIRST_LOG} access_log PREFIX/logs/b.log combined buffer=64k;", False),
    (f"{_FIRST_LOG} access_log PREFIX//logs/a.log combined buffer=64k;", False),
    (f"{_FIRST_LOG} access_log ./logs/a.log combined buffer=64k;", False),
    (f"{_FIRST_LOG} access_log logs/a.log combined buffer=64k;", True),
]


def _prefixed_log_refusals(root: Path, snippet: str, prefix: str | None) -> list[str]:
    included = root / "http.conf"
    included.write_text(snippet.replace("PREFIX", str(root)) + "\n")
    config = parse(f"http {{ include {included}; }}\n")
    refused = whole_config_refusals(
        config, {str(included): parse(included.read_text())}, V122, prefix
    )
    return [why for _, why in refused]


def test_access_logs_are_one_file_by_their_full_name_after_the_prefix(
    nginx_binary: str, tmp_path: Path
) -> None:
    for index, (snippet, nginx_refuses) in enumerate(PREFIX_LOG_CASES):
        root = tmp_path / str(index)
        (root / "logs").mkdir(parents=True)
        refused = _prefixed_log_refusals(root, snippet, str(root))
        (root / "nginx.conf").write_text(
            f"pid {root}/pid;\nerror_log stderr;\nevents {{}}\n"
            f"http {{ include {root}/http.conf; }}\n"
        )
        said = subprocess.run(
            [nginx_binary, "-t", "-q", "-p", f"{root}/", "-c", str(root / "nginx.conf")],
            capture_output=True,
            text=True,
            check=False,
        )
        assert (said.returncode != 0) == nginx_refuses, (snippet, said.stderr)
        assert bool(refused) == nginx_refuses, (snippet, refused)


def test_a_relative_log_path_matches_only_itself_where_the_prefix_is_not_known(
    tmp_path: Path,
) -> None:
    """nginx.configure without --prefix (module options alone): the prefix is not known."""
    snippet, _ = PREFIX_LOG_CASES[0]
    assert _prefixed_log_refusals(tmp_path, snippet, None) == []
    (found,) = _prefixed_log_refusals(tmp_path, snippet, str(tmp_path))
    assert found == (
        f"buffers '{tmp_path}/logs/a.log' (buffer=64k, no flush, no gzip) where another "
        "access_log buffers it (buffer=32k, no flush, no gzip) (nginx: access_log "
        f'"{tmp_path}/logs/a.log" already defined with conflicting parameters): give both the '
        "same buffer=, flush= and gzip, or log to another file"
    )


def test_a_key_nginx_cannot_hash_is_refused_with_the_size_to_set(tmp_path: Path) -> None:
    node, _, paths = with_snippets(tmp_path, {"location": f"set ${K47} 1;"})
    (found,) = extra_file_problems(node, paths)
    assert found.message == (
        f"{tmp_path}/location.conf line 1: set: adds variable '{K47}' (47 characters), which "
        "takes 72 bytes of a hash bucket with the pointer that ends it, more than "
        "variables_hash_bucket_size 64 holds (nginx: could not build variables_hash, you should "
        "increase variables_hash_bucket_size: 64): set variables_hash_bucket_size 128 in an "
        "extra.http snippet"
    )


def test_a_key_past_a_bucket_nginx_fixes_is_refused_with_its_length(tmp_path: Path) -> None:
    node, _, paths = with_snippets(tmp_path, {"http": "gzip_types text/plain\n  a/" + K46 + ";"})
    (found,) = extra_file_problems(node, paths)
    assert found.message == (
        f"{tmp_path}/http.conf line 1: gzip_types: adds MIME type 'a/{K46}' (48 characters), "
        "which takes 72 bytes of a hash bucket with the pointer that ends it, more than "
        "test_types_hash_bucket_size 64 holds (nginx: could not build test_types_hash, you "
        "should increase test_types_hash_bucket_size: 64): shorten it to 46 characters or "
        "fewer: no directive sets this bucket"
    )


def test_a_map_size_after_tpgen_s_maps_is_refused_as_nginx_s_duplicate(tmp_path: Path) -> None:
    node, _, paths = with_snippets(tmp_path, {"http": "map_hash_max_size 4096;"})
    (found,) = extra_file_problems(node, paths)
    assert found.message == (
        f"{tmp_path}/http.conf line 1: map_hash_max_size: comes after a map block, which "
        'settles the map hashes\' sizes (nginx: "map_hash_max_size" directive is duplicate): '
        "remove it: tpgen's maps come first"
    )

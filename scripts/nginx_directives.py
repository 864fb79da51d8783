#!/usr/bin/env python3
"""Write generator/tpgen/data/nginx-directives.json from nginx's own source.

For every nginx release from tpgen's oldest supported one on, each module's command table
(``ngx_command_t``): the directive's name, the contexts it is allowed in, the arguments it
takes, whether a second one in the same block is refused ("is duplicate"), the value its
handler parses (a standard slot, or a handler spec/directive_handlers.py ports) and the check
its post handler adds; and the HTTP and the stream variables the modules define (a prefix
one, like http_, stands for every name it starts) and whether a config may define one
again. Each names its source file, and per source file the ways configure builds it
(auto/modules, and on Linux auto/os/linux and auto/threads): the condition on configure's
switches, the link (static or dynamic) and the module a dynamic build names its .so after;
with auto/options' switches (option -> the switches it sets) and their defaults, so that
tpgen reads from a build's configure arguments which modules it has.
Versions where an entry is the same are merged into ranges.

    ./scripts/nginx_directives.py NGINX_GIT_DIR > generator/tpgen/data/nginx-directives.json

NGINX_GIT_DIR: a clone of github.com/nginx/nginx with its release tags (the tool library's
``fetch github:nginx/nginx`` brings one). Standard library only; nothing is built.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tarfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

OLDEST = (1, 19, 1)  # spec/edge.py OLDEST_NGINX
COMMENT = re.compile(r"/\*.*?\*/", re.S)
# Code nginx never compiles (nothing nests inside these in nginx's tables).
DISABLED = re.compile(r"^#if 0\b.*?^#endif", re.M | re.S)
TAG = re.compile(r"^release-(\d+)\.(\d+)\.(\d+)$")
DEFINE = re.compile(r"^#define\s+(NGX_\w+)\s+(0x[0-9a-fA-F]+|\([^)]*\)[^\n]*?)\s*$", re.M)
COMMAND = re.compile(r'\{\s*ngx_string\("([^"]+)"\),(.*?)\}', re.S)
CHOICES = re.compile(r"ngx_conf_(?:enum|bitmask)_t\s+(\w+)\[\]\s*=\s*\{(.*?)\n\};", re.S)
CHOICE = re.compile(r'ngx_string\("([^"]+)"\)')
# limit_except's methods: the names ngx_http_core_limit_except looks each argument up in.
METHODS = re.compile(r"ngx_http_method_name_t\s+ngx_methods_names\[\]\s*=\s*\{(.*?)\n\};", re.S)
METHOD = re.compile(r'\(u_char \*\) "([^"]+)"')
# What a handler calls when it compiles its arguments as scripts with variables: a handler
# that calls none of these, itself or through the functions it calls, never looks a $variable
# up (what a merge compiles: MERGE_COMPILED).
# A lookup of one of the module's own names (&ngx_http_memcached_key) is not the directive's
# values: that handler compiles none of them, and needs the variable it names (FIXED_LOOKUP).
SCRIPTING = re.compile(
    r"compile_complex_value|script_compile|script_variables_count|get_variable_index\(cf, &(?!ngx_)"
    r"|set_complex_value|set_predicate_slot|log_compile_format"
)
FIXED_LOOKUP = re.compile(r"get_variable_index\(cf, &(ngx_\w+)\)")
# Compiling a regex defines its named captures: it looks no variable up.
DEFINING_ONLY = frozenset({"ngx_http_regex_compile", "ngx_stream_regex_compile"})
FUNCTION = re.compile(r"^(\w+)\([^;{]*?\)\n\{\n(.*?)\n\}", re.M | re.S)
CALL = re.compile(r"\b(\w+)\(")
DELEGATE = re.compile(r"^    rv = (\w+)\(cf, cmd, conf\);$", re.M)
# The standard handlers (ngx_conf_file.c) and the value each parses; "enum" and "bitmask" take
# the names of the table in the command's post field.
SLOTS = {
    "ngx_conf_set_num_slot": "number",
    "ngx_conf_set_size_slot": "size",
    "ngx_conf_set_off_slot": "offset",
    "ngx_conf_set_msec_slot": "msec",
    "ngx_conf_set_sec_slot": "sec",
    "ngx_conf_set_bufs_slot": "bufs",
    "ngx_conf_set_enum_slot": "enum",
    "ngx_conf_set_bitmask_slot": "bitmask",
    # ngx_file.c's slots (spec/file_slots.py): a temp path's levels, stored files' rights.
    "ngx_conf_set_path_slot": "path_levels",
    "ngx_conf_set_access_slot": "access_rights",
    # A size, or a value with variables read per request (ngx_http_script.c).
    "ngx_http_set_complex_value_size_slot": "complex_size",
    "ngx_stream_set_complex_value_size_slot": "complex_size",
    # The custom handlers ported (spec/directive_handlers.py).
    "ngx_http_rewrite_return": "return",
    "ngx_http_core_location": "location",
    "ngx_http_core_limit_except": "methods",
    "ngx_http_rewrite_if": "if",
    "ngx_http_rewrite": "rewrite",
    "ngx_http_core_server_name": "server_name",
    "ngx_stream_core_server_name": "server_name",
    "ngx_http_map_block": "map",
    "ngx_stream_map_block": "map",
    "ngx_conf_split_clients_block": "split_clients",
    "ngx_http_proxy_redirect": "proxy_redirect",
    "ngx_http_proxy_cookie_domain": "cookie_domain",
    "ngx_http_proxy_cookie_path": "cookie_path",
    "ngx_http_proxy_cookie_flags": "cookie_flags",
    "ngx_http_valid_referers": "valid_referers",
    "ngx_http_gzip_disable": "gzip_disable",
    "ngx_http_fastcgi_split_path_info": "split_path_info",
    "ngx_http_access_rule": "access",
    "ngx_stream_access_rule": "access",
    "ngx_http_core_error_page": "error_page",
    "ngx_http_headers_expires": "expires",
    "ngx_http_core_keepalive": "keepalive_timeout",
    "ngx_http_limit_req_zone": "limit_req_zone",
    "ngx_http_limit_conn_zone": "limit_conn_zone",
    "ngx_http_limit_req": "limit_req",
    "ngx_http_limit_conn": "limit_conn",
    # Stream's copies of http's handlers (the same code, but for the module's names).
    "ngx_stream_limit_conn_zone": "limit_conn_zone",
    "ngx_stream_limit_conn": "limit_conn",
    "ngx_http_headers_add": "always",
    "ngx_http_ssl_session_cache": "session_cache",
    "ngx_stream_ssl_session_cache": "session_cache",
    "ngx_mail_ssl_session_cache": "session_cache",
    "ngx_http_ssl_ocsp_cache": "ocsp_cache",
    "ngx_http_upstream_bind_set_slot": "bind",
    "ngx_stream_proxy_bind": "bind",
    "ngx_http_rewrite_set": "variable_name",
    "ngx_http_auth_request_set": "variable_name",
    "ngx_http_perl_set": "variable_name",
    "ngx_stream_set": "variable_name",
    "ngx_http_core_set_aio": "aio",
    "ngx_http_fastcgi_pass": "upstream_pass",
    "ngx_http_scgi_pass": "upstream_pass",
    "ngx_http_memcached_pass": "memcached_pass",
    "ngx_stream_proxy_pass": "upstream_pass",
    "ngx_http_uwsgi_pass": "uwsgi_pass",
    "ngx_http_grpc_pass": "grpc_pass",
    "ngx_http_core_open_file_cache": "open_file_cache",
    "ngx_http_log_open_file_cache": "open_log_file_cache",
    "ngx_stream_log_open_file_cache": "open_log_file_cache",
    "ngx_http_upstream_zone": "upstream_zone",
    "ngx_stream_upstream_zone": "upstream_zone",
    "ngx_set_worker_processes": "worker_processes",
    "ngx_set_priority": "priority",
    "ngx_http_core_directio": "directio",
    "ngx_http_userid_expires": "userid_expires",
    "ngx_http_userid_mark": "userid_mark",
    "ngx_http_upstream_param_set_slot": "upstream_param",
    "ngx_thread_pool": "thread_pool",
    "ngx_http_disable_symlinks": "disable_symlinks",
    "ngx_http_file_cache_set_slot": "cache_path",
    "ngx_http_file_cache_valid_set_slot": "cache_valid",
    "ngx_stream_ssl_ocsp_cache": "ocsp_cache",
    "ngx_http_proxy_pass": "proxy_pass",
    "ngx_http_core_root": "root",
    "ngx_http_try_files": "try_files",
    "ngx_http_index_set_index": "index",
    "ngx_error_log": "error_log",
    "ngx_http_core_error_log": "error_log",
    "ngx_stream_core_error_log": "error_log",
    "ngx_mail_core_error_log": "error_log",
    "ngx_http_log_set_format": "log_format",
    "ngx_http_core_listen": "listen",
    "ngx_stream_core_listen": "listen",
    "ngx_http_geo_block": "geo",
    "ngx_stream_geo_block": "geo",
    "ngx_http_upstream": "upstream",
    "ngx_stream_upstream": "upstream",
    # spec/handlers_targets.py: access_log's parameters and syslog target, the resolvers.
    "ngx_http_log_set_log": "access_log",
    "ngx_stream_log_set_log": "access_log",
    "ngx_http_core_resolver": "resolver",
    "ngx_stream_core_resolver": "resolver",
    "ngx_mail_core_resolver": "resolver",
    "ngx_http_upstream_resolver": "resolver",
    "ngx_stream_upstream_resolver": "resolver",
    # spec/handlers_image_filter.py.
    "ngx_http_image_filter": "image_filter",
    "ngx_http_image_filter_jpeg_quality": "image_quality",
    "ngx_http_image_filter_webp_quality": "image_quality",
    "ngx_http_image_filter_sharpen": "image_sharpen",
    "ngx_set_cpu_affinity": "cpu_affinity",  # spec/handlers_cpu_affinity.py
    "ngx_http_modern_browser": "modern_browser",  # spec/handlers_browser.py
    "ngx_http_charset_map_block": "charset_map",  # spec/handlers_charset_map.py
    "ngx_http_sub_filter": "sub_filter",  # spec/handlers_sub_filter.py
    "ngx_conf_include": "include",  # spec/handlers_include.py
    # spec/handlers_mail.py.
    "ngx_mail_core_protocol": "mail_protocol",
    "ngx_mail_core_listen": "mail_listen",
    "ngx_mail_core_server": "mail_server",
}
FLAG_SLOT = "ngx_conf_set_flag_slot"
# ngx_conf_file.c's slots (and ngx_file.c's), which a handler may call to parse its value.
STANDARD = frozenset({FLAG_SLOT, *(name for name in SLOTS if name.startswith("ngx_conf_set_"))})
# Which arguments a handler runs through nginx's script compiler, where nginx refuses a $ with
# no name or an unclosed ${ (ngx_http_script_compile, ngx_http_log_compile_format): "first",
# "second", "last", "all"; "log" (access_log's path unless syslog:, and each if=), "format"
# (log_format's after its name, not escape=), "pattern" (the first unless a ~ regex, and all
# after it: proxy_redirect, proxy_cookie_*), "threads" (aio's pool name after threads=),
# "from" (each from='s value: disable_symlinks), "filter" (image_filter's sizes after resize or
# crop, its angle after rotate), "params" (xslt_stylesheet's after the stylesheet's path, which
# it loads as it reads). Each handler compiles only what has a $
# (ngx_http_script_variables_count), so a value with none is never refused. A handler listed
# must compile scripts, itself or in its module's merge, in the version read.
SCRIPT_ARGUMENTS = {
    "ngx_http_set_complex_value_slot": "first",
    "ngx_http_set_complex_value_size_slot": "first",
    "ngx_http_set_complex_value_zero_slot": "first",
    "ngx_stream_set_complex_value_slot": "first",
    "ngx_stream_set_complex_value_size_slot": "first",
    "ngx_stream_set_complex_value_zero_slot": "first",
    "ngx_http_set_predicate_slot": "all",
    "ngx_http_upstream_bind_set_slot": "first",
    "ngx_stream_proxy_bind": "first",
    "ngx_http_upstream_param_set_slot": "second",
    "ngx_http_headers_add": "second",
    "ngx_http_rewrite_set": "second",
    "ngx_stream_set": "second",
    "ngx_http_auth_request_set": "second",
    "ngx_http_rewrite_return": "last",
    "ngx_stream_return": "first",
    "ngx_http_rewrite": "second",
    "ngx_http_proxy_pass": "first",
    "ngx_http_fastcgi_pass": "first",
    "ngx_http_grpc_pass": "first",
    "ngx_http_scgi_pass": "first",
    "ngx_http_uwsgi_pass": "first",
    "ngx_stream_proxy_pass": "first",
    "ngx_http_core_root": "first",
    "ngx_http_index_set_index": "all",
    "ngx_http_try_files": "all",
    "ngx_http_core_error_page": "last",
    "ngx_http_log_set_log": "log",
    "ngx_stream_log_set_log": "log",
    "ngx_http_log_set_format": "format",
    "ngx_stream_log_set_format": "format",
    "ngx_http_proxy_cache_key": "first",
    "ngx_http_fastcgi_cache_key": "first",
    "ngx_http_scgi_cache_key": "first",
    "ngx_http_uwsgi_cache_key": "first",
    "ngx_http_proxy_cache": "first",
    "ngx_http_fastcgi_cache": "first",
    "ngx_http_scgi_cache": "first",
    "ngx_http_uwsgi_cache": "first",
    "ngx_http_proxy_store": "first",
    "ngx_http_fastcgi_store": "first",
    "ngx_http_scgi_store": "first",
    "ngx_http_uwsgi_store": "first",
    "ngx_http_auth_basic_user_file": "first",
    "ngx_http_limit_req_zone": "first",
    "ngx_http_limit_conn_zone": "first",
    "ngx_stream_limit_conn_zone": "first",
    "ngx_http_upstream_hash": "first",
    "ngx_stream_upstream_hash": "first",
    "ngx_http_sub_filter": "all",
    "ngx_http_v2_push": "first",
    "ngx_stream_pass": "first",
    "ngx_http_headers_expires": "last",
    "ngx_http_proxy_redirect": "pattern",
    "ngx_http_proxy_cookie_domain": "pattern",
    "ngx_http_proxy_cookie_path": "pattern",
    "ngx_http_proxy_cookie_flags": "pattern",
    "ngx_http_core_set_aio": "threads",
    "ngx_http_disable_symlinks": "from",
    "ngx_http_image_filter": "filter",
    "ngx_http_image_filter_jpeg_quality": "first",
    "ngx_http_image_filter_webp_quality": "first",
    "ngx_http_image_filter_sharpen": "first",
    "ngx_http_xslt_stylesheet": "params",
    "ngx_http_xslt_param": "second",
}
# Shared slots that compile for some directives only (the keyval slot also reads
# ssl_conf_command; the str array slot many paths): by directive name.
COMPILING = re.compile(r"compile_complex_value|script_compile")
# (ssl_certificate and its key are compiled by http's and stream's merges only where a server
# has them in force, and which keys pair with one is not the handler's to say:
# spec/handlers_http_ssl and handlers_stream_ssl port them, not the table.)
SCRIPT_ARGUMENTS_BY_NAME = {
    "proxy_set_body": "first",
    "proxy_set_header": "second",
    "grpc_set_header": "second",
}
# Values a slot keeps as text that the module's merge compiles in every block that has them,
# its own or inherited (tpgen's config always has a server to merge them into): the function
# that compiles them. A value with an unknown variable is refused there.
MERGE_COMPILED = {
    # The keyval slot keeps them; ssl_conf_command's, kept by the same slot, are never compiled.
    "proxy_set_header": "ngx_http_proxy_init_headers",
    "grpc_set_header": "ngx_http_grpc_init_headers",
    "fastcgi_param": "ngx_http_fastcgi_init_params",
    "scgi_param": "ngx_http_scgi_init_params",
    "uwsgi_param": "ngx_http_uwsgi_init_params",
    "proxy_set_body": "ngx_http_proxy_merge_loc_conf",
}
# Compiling a regex at configuration time; a handler that does so (itself or through what it
# calls) must be one ported above, or validate would take a regex nginx refuses. (map's body
# handler is not called by its block handler but set as cf->handler: it is listed by hand.)
REGEX_COMPILE = re.compile(
    r"\b(?:ngx_http_regex_compile|ngx_regex_compile|ngx_stream_regex_compile"
    r"|ngx_http_proxy_rewrite_regex)\("
)
# What a command's post field runs after the slot has parsed the value: ngx_conf_post_t,
# ngx_conf_num_bounds_t (with its bounds), ngx_conf_deprecated_t, or a bare handler pointer.
POST_STRUCT = re.compile(
    r"ngx_conf_(?:post|num_bounds|deprecated)_t\s+(\w+)\s*=\s*\{\s*(\w+)\s*"
    r"(?:,\s*(-?\d+)\s*,\s*(-?\d+)\s*)?[,}]",
    re.S,
)
POST_POINTER = re.compile(r"ngx_conf_post_handler_pt\s+(\w+)\s*=\s*(\w+)\s*;")
# The post handlers that refuse a value, and the check of spec/directive_values.py that does
# what each does; the others only warn (a deprecated name, send_lowat where the system has no
# SO_SNDLOWAT) or change the value nginx keeps (userid's domain, path and p3p).
POSTS = {
    "ngx_conf_check_num_bounds": "bounds",
    "ngx_http_core_pool_size": "pool_size",
    "ngx_http_v2_pool_size": "pool_size",
    "ngx_http_gzip_window": "gzip_window",
    "ngx_http_gzip_hash": "gzip_hash",
    "ngx_http_v2_recv_buffer_size": "above",
    "ngx_http_v2_preread_size": "v2_preread_size",
    "ngx_http_v2_streams_index_mask": "power_of_two",
    "ngx_http_v2_chunk_size": "not_zero",
}
WARNING_ONLY = re.compile(r"deprecated|lowat|ssl_conf_command|userid_(?:domain|path|p3p)|pcre_jit")
TABLE = re.compile(r"ngx_command_t\s+(\w+)\[\]\s*=\s*\{(.*?)\n\};", re.S)
MODULE = re.compile(
    r"ngx_module_t\s+\w+\s*=\s*\{\s*NGX_MODULE_V1\s*,\s*[^,]+,\s*(\w+)\s*,\s*(NGX_\w+_MODULE)\s*,",
    re.S,
)
# Per family of modules (src/http, src/stream), the variables' tables and the names added one
# by one; each family has variables of its own (a stream config has no $uri).
VARIABLE_FAMILIES = ("http", "stream")
VARIABLE = re.compile(r'\{\s*ngx_string\("([^"]+)"\)([^}]*)\}', re.S)
FIXED_NAME = re.compile(r'ngx_str_t\s+(\w+)\s*=\s*ngx_string\("([^"]+)"\)')


def _tables(family: str) -> re.Pattern[str]:
    return re.compile(rf"ngx_{family}_variable_t\s+\w+\[\]\s*=\s*\{{(.*?)\n\}};", re.S)


def _added(family: str) -> re.Pattern[str]:
    return re.compile(rf"ngx_{family}_add_variable\(cf,\s*&(\w+)\s*,\s*([^)]*)\)")


# A condition that reads the arguments or an "off" state: a repeat it refuses is not every one.
ARGUMENT_TEST = re.compile(r"value\[|ngx_str\w*cmp|cf->args|==\s*(?:0|NULL)\b")
BODY_INDENT = 4
# A module's type and which of its context bits name which block (ngx_conf_handler checks
# both: the module type against the block's, the bits against the block's command type).
CONTEXTS = {
    "NGX_CORE_MODULE": {"NGX_MAIN_CONF": "main"},
    "NGX_EVENT_MODULE": {"NGX_EVENT_CONF": "events"},
    "NGX_HTTP_MODULE": {
        "NGX_HTTP_MAIN_CONF": "http",
        "NGX_HTTP_SRV_CONF": "server",
        "NGX_HTTP_LOC_CONF": "location",
        "NGX_HTTP_UPS_CONF": "upstream",
        "NGX_HTTP_SIF_CONF": "server_if",
        "NGX_HTTP_LIF_CONF": "location_if",
        "NGX_HTTP_LMT_CONF": "limit_except",
    },
    "NGX_STREAM_MODULE": {
        "NGX_STREAM_MAIN_CONF": "stream",
        "NGX_STREAM_SRV_CONF": "stream_server",
        "NGX_STREAM_UPS_CONF": "stream_upstream",
    },
    "NGX_MAIL_MODULE": {"NGX_MAIL_MAIN_CONF": "mail", "NGX_MAIL_SRV_CONF": "mail_server"},
}
EVERY_CONTEXT = sorted({name for bits in CONTEXTS.values() for name in bits.values()})


def version_tags(git_dir: str) -> list[tuple[tuple[int, int, int], str]]:
    tags = subprocess.run(
        ["git", "--git-dir", git_dir, "tag"], check=True, capture_output=True, text=True
    ).stdout.split()
    found = []
    for tag in tags:
        match = TAG.match(tag)
        if match:
            version = (int(match[1]), int(match[2]), int(match[3]))
            if version >= OLDEST:
                found.append((version, tag))
    return sorted(found)


def _archive(git_dir: str, tag: str, folder: str) -> dict[str, str]:
    """The text of each file under ``folder`` at ``tag``."""
    archive = subprocess.run(
        ["git", "--git-dir", git_dir, "archive", "--format=tar", tag, folder],
        check=True,
        capture_output=True,
    ).stdout
    texts = {}
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            if member.isfile():
                handle = tar.extractfile(member)
                assert handle is not None
                texts[member.name] = handle.read().decode("utf-8", "replace")
    return texts


def sources(git_dir: str, tag: str) -> dict[str, str]:
    return {
        path: DISABLED.sub("", COMMENT.sub(" ", text))
        for path, text in _archive(git_dir, tag, "src").items()
        if path.endswith((".c", ".h"))
    }


def flag_values(texts: dict[str, str]) -> dict[str, int]:
    raw = {
        name: value
        for text in texts.values()
        for name, value in DEFINE.findall(text)
        if name.endswith("_CONF") or name.startswith("NGX_CONF_")
    }
    values: dict[str, int] = {}

    def value(name: str) -> int:
        if name not in values:
            text = raw[name].strip()
            if text.startswith("0x"):
                values[name] = int(text, 16)
            else:
                values[name] = 0
                for part in re.findall(r"NGX_\w+", text):
                    values[name] |= value(part)
        return values[name]

    for name in raw:
        try:
            value(name)
        except (KeyError, ValueError):
            values.pop(name, None)
    return values


def arguments(mask: int, flags: dict[str, int]) -> str:
    """nginx's argument-count rule for the mask, in ngx_conf_handler's order."""
    if mask & flags["NGX_CONF_ANY"]:
        return "any"
    if mask & flags["NGX_CONF_FLAG"]:
        return "flag"
    if mask & flags["NGX_CONF_1MORE"]:
        return "1+"
    if mask & flags["NGX_CONF_2MORE"]:
        return "2+"
    counts = [
        str(count)
        for count, name in enumerate(
            ["NGX_CONF_NOARGS", *(f"NGX_CONF_TAKE{n}" for n in range(1, 8))]
        )
        if mask & flags[name]
    ]
    return ",".join(counts)


def refuses_duplicate(functions: dict[str, str], handler: str) -> bool:
    """Whether the handler refuses a plain second use ("is duplicate" where nothing but "set
    before" leads): not a repeat of a list whose "off" or values it compares (proxy_redirect
    after "off", limit_req of the same zone)."""
    body = functions.get(handler, "")
    lines = body.split("\n")
    plain = any(
        _plain_repeat(lines, index)
        for index, line in enumerate(lines)
        if line.strip() == 'return "is duplicate";'
    )
    # A handler that first hands the directive to another (ngx_http_set_complex_value_size_slot
    # to ngx_http_set_complex_value_slot) refuses what that one refuses.
    delegates = DELEGATE.findall(body)
    return plain or any(refuses_duplicate(functions, name) for name in delegates if name != handler)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _plain_repeat(lines: list[str], index: int) -> bool:
    """Whether every block around the return at ``index`` opens on "already set" alone."""
    depth = _indent(lines[index])
    for at in range(index - 1, -1, -1):
        line = lines[at]
        if not line.strip() or line.strip() == "{" or _indent(line) >= depth:
            continue
        depth = _indent(line)
        continued = [
            following.strip()
            for following in lines[at + 1 : index]
            if following.strip() and _indent(following) > depth
        ]
        header = " ".join([line.strip(), *continued[:3]])
        if not header.startswith("if (") or ARGUMENT_TEST.search(header):
            return False
        if depth <= BODY_INDENT:
            return True
    return False


def _fields(text: str) -> list[str]:
    """A C initializer's fields: its commas outside parentheses."""
    fields, depth, start = [], 0, 0
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "," and depth == 0:
            fields.append(text[start:index].strip())
            start = index + 1
    fields.append(text[start:].strip())
    return fields


def read_by(functions: dict[str, str], handler: str) -> str:
    """The standard slot that parses the handler's value: itself, or the one it hands the
    directive to first (ngx_http_ssl_enable to ngx_conf_set_flag_slot, then more of its own)."""
    standard = [name for name in DELEGATE.findall(functions.get(handler, "")) if name in STANDARD]
    return handler if handler in SLOTS or not standard else standard[0]


def _value(handler: str, post: str, choices: dict[str, list[str]]) -> dict[str, object]:
    kind = SLOTS.get(handler)
    if kind in ("enum", "bitmask", "methods"):
        names = choices.get("ngx_methods_names" if kind == "methods" else post.lstrip("&").strip())
        return {"value": kind, "choices": names} if names else {}
    return {"value": kind} if kind else {}


Post = tuple[str, int | None, int | None]


def post_handlers(texts: dict[str, str]) -> dict[str, Post]:
    """Each post struct or pointer by its name: (its handler, bounds low and high)."""
    found: dict[str, Post] = {}
    for text in texts.values():
        for name, handler, low, high in POST_STRUCT.findall(text):
            found[name] = (handler, int(low) if low else None, int(high) if high else None)
        for name, handler in POST_POINTER.findall(text):
            found[name] = (handler, None, None)
    return found


NUMBER_DEFINE = re.compile(r"^#define\s+(NGX_\w+)\s+(\d+)\s*$", re.M)
TOO_SMALL = re.compile(r"\*sp <= ([\w *]+)\)")


def _refused_up_to(body: str, texts: dict[str, str]) -> int:
    """What a post handler that refuses small values (if (*sp <= A * B)) refuses up to:
    ngx_http_v2_recv_buffer_size's 2 * NGX_HTTP_V2_STATE_BUFFER_SIZE until 1.25, then 1 *."""
    numbers = {
        name: int(value) for text in texts.values() for name, value in NUMBER_DEFINE.findall(text)
    }
    found = TOO_SMALL.search(body)
    if found is None:
        raise SystemExit(f"no 'if (*sp <= …)' in {body[:80]!r}: read the handler again")
    product = 1
    for factor in found.group(1).split("*"):
        product *= int(factor) if factor.strip().isdigit() else numbers[factor.strip()]
    return product


def _post(
    post: str, posts: dict[str, Post], functions: dict[str, str], texts: dict[str, str]
) -> dict[str, object]:
    """The check a command's post handler adds after its slot, as the table records it."""
    found = posts.get(post.lstrip("&").strip())
    if found is None:
        return {}
    handler, low, high = found
    if handler in POSTS:
        check: dict[str, object] = {"post": POSTS[handler]}
        if POSTS[handler] == "bounds":
            # ngx_conf_check_num_bounds: a high of -1 is no upper bound.
            check["bounds"] = [low, None if high == -1 else high]
        if POSTS[handler] == "above":
            check["bounds"] = [_refused_up_to(functions[handler], texts) + 1, None]
        return check
    if WARNING_ONLY.search(handler):
        return {}
    raise SystemExit(f"{handler}: a post handler this script does not know: add it to POSTS")


def calls(
    functions: dict[str, str], handler: str, pattern: re.Pattern[str], depth: int = 3
) -> bool:
    """Whether the handler, or a function it calls (``depth`` calls deep), matches
    ``pattern`` (its name or its body)."""
    if pattern.search(handler):
        return True
    body = functions.get(handler, "")
    if pattern.search(body):
        return True
    callees = {
        name
        for name in CALL.findall(body)
        if name in functions and name != handler and name not in DEFINING_ONLY
    }
    return depth > 0 and any(calls(functions, name, pattern, depth - 1) for name in callees)


def fixed_lookups(functions: dict[str, str], handler: str, text: str) -> dict[str, object]:
    """The variables the handler itself looks up by a name of its module's (memcached_pass:
    $memcached_key): nginx -t refuses the config where none defines them."""
    names = []
    for symbol in FIXED_LOOKUP.findall(functions.get(handler, "")):
        found = re.search(rf"^static ngx_str_t\s+{symbol} = ngx_string\(\"(\w+)\"\);", text, re.M)
        if found is None:
            raise SystemExit(f"{handler} looks up {symbol}, not a name of its module: read it")
        names.append(found.group(1))
    return {"looks_up": names} if names else {}


def scripting(functions: dict[str, str], handler: str) -> bool:
    """Whether the handler compiles scripts, itself or through what it calls."""
    return calls(functions, handler, SCRIPTING)


def merge_compiled(functions: dict[str, str], name: str, text: str) -> bool:
    """Whether the module's merge compiles the directive's values (MERGE_COMPILED), checked
    against the module's source."""
    compiler = MERGE_COMPILED.get(name)
    if compiler is None:
        return False
    if not (re.search(rf"^{compiler}\(", text, re.M) and COMPILING.search(functions[compiler])):
        raise SystemExit(f"{compiler} ({name}) compiles no script: read MERGE_COMPILED again")
    return True


def script_arguments(
    functions: dict[str, str], handler: str, name: str, text: str
) -> dict[str, object]:
    """Which arguments the handler compiles as scripts (SCRIPT_ARGUMENTS), checked against
    the source: the handler, or its module's merge (proxy_set_header and proxy_set_body are
    compiled there), compiles scripts."""
    by_name = SCRIPT_ARGUMENTS_BY_NAME.get(name)
    if by_name is not None:
        return {"script": by_name} if COMPILING.search(text) else {}
    kind = SCRIPT_ARGUMENTS.get(handler)
    if kind is None:
        return {}
    if not (scripting(functions, handler) or SCRIPTING.search(text)):
        raise SystemExit(f"{handler} ({name}) compiles no script: read SCRIPT_ARGUMENTS again")
    return {"script": kind}


def _compiles_regex(functions: dict[str, str], handler: str) -> bool:
    return calls(functions, handler, REGEX_COMPILE)


def entries(texts: dict[str, str]) -> Iterator[tuple[str, dict[str, object]]]:
    flags = flag_values(texts)
    functions = {name: body for text in texts.values() for name, body in FUNCTION.findall(text)}
    choices = {
        table: CHOICE.findall(body)
        for text in texts.values()
        for table, body in CHOICES.findall(text)
    }
    choices["ngx_methods_names"] = [
        name
        for text in texts.values()
        for body in METHODS.findall(text)
        for name in METHOD.findall(body)
    ]
    posts = post_handlers(texts)
    for path, text in texts.items():
        module_types = dict(MODULE.findall(text))
        for table, body in TABLE.findall(text):
            module_type = module_types.get(table)
            if module_type is None:
                continue
            for name, rest in COMMAND.findall(body):
                symbols, handler, _, _, post = _fields(rest.strip().strip(","))[:5]
                if handler not in SLOTS and _compiles_regex(functions, handler):
                    raise SystemExit(
                        f"{handler} ({name}) compiles a regex and no check of "
                        "spec/directive_handlers.py ports it: add it to SLOTS"
                    )
                names = [symbol.strip() for symbol in symbols.split("|") if symbol.strip()]
                mask = 0
                for symbol in names:
                    mask |= flags[symbol]
                if "NGX_ANY_CONF" in names:
                    contexts = EVERY_CONTEXT
                else:
                    bits = CONTEXTS.get(module_type, {})
                    contexts = sorted(bits[symbol] for symbol in names if symbol in bits)
                yield (
                    name,
                    {
                        "contexts": contexts,
                        "args": arguments(mask, flags),
                        "block": bool(mask & flags["NGX_CONF_BLOCK"]),
                        "once": refuses_duplicate(functions, handler),
                        "on_off": read_by(functions, handler) == FLAG_SLOT,
                        "literal": not (
                            scripting(functions, handler) or merge_compiled(functions, name, text)
                        ),
                        **script_arguments(functions, handler, name, text),
                        **fixed_lookups(functions, handler, text),
                        **_value(read_by(functions, handler), post, choices),
                        **_post(post, posts, functions, texts),
                        "source": path,
                    },
                )


def variables(texts: dict[str, str], family: str) -> Iterator[tuple[str, dict[str, object]]]:
    """The variables the modules of ``family`` (http, stream) define: their tables
    (ngx_http_variable_t) and the fixed names they add one by one (ngx_http_add_variable of a
    static ngx_str_t); and whether a config may define one again (set, map, a named capture:
    "changeable")."""
    tables, added = _tables(family), _added(family)
    for path, text in texts.items():
        if not path.startswith(f"src/{family}/"):
            continue
        for body in tables.findall(text):
            for name, flags in VARIABLE.findall(body):
                yield name, _variable_flags(flags, path, family)
        fixed = dict(FIXED_NAME.findall(text))
        for symbol, flags in added.findall(text):
            if symbol in fixed:
                yield fixed[symbol], _variable_flags(flags, path, family)


def _variable_flags(flags: str, path: str, family: str) -> dict[str, object]:
    mark = f"NGX_{family.upper()}_VAR_"
    return {
        "prefix": f"{mark}PREFIX" in flags,
        "changeable": f"{mark}CHANGEABLE" in flags,
        "source": path,
    }


# How configure decides which of nginx's modules a build has: auto/options sets the switches
# (defaults, then each option), then the scripts below read them. On the Linux nodes tpgen
# configures, auto/os/linux adds epoll and sets what its feature tests find, auto/threads the
# thread pool; auto/modules makes each ". auto/module" call. Read symbolically, each gives per
# source file the ways it is built: a condition on the switches, the link ("YES", "DYNAMIC" or
# the switch whose value says which) and the module that call names first (a dynamic one's
# .so is named after it). The last way whose condition holds decides, as the shell's last
# assignment does.
BUILT_BY = ("auto/os/linux", "auto/threads", "auto/modules")
# Systems whose auto/os files add sources a Linux build never has (kqueue, iocp, …).
OTHER_SYSTEMS = ("auto/os/freebsd", "auto/os/darwin", "auto/os/solaris", "auto/os/win32")
# What configure's feature tests find on a Linux node (epoll, eventfd, SO_COOKIE, BPF).
FOUND_ON_LINUX = {"ngx_found": "yes"}
SWITCH = re.compile(r"^[A-Z][A-Z0-9_]*=[A-Z]+$")
ASSIGNMENT = re.compile(r'^(\w+)=(?:"([^"]*)"|(\S*))$', re.S)
SOURCES = re.compile(r"^(\w+)_SRCS$")
HEREDOC = re.compile(r"<<\s*'?(\w+)'?")
TEST = re.compile(r"^(?:if|elif)\s+(.*?)\s*;\s*then$")
ATOM = re.compile(r'^"?\$(\w+)"?\s*(!?=)\s*"?(\w+)"?$')
# A condition this script cannot read: fine where nothing nginx builds depends on it.
UNREAD = "?"
Condition = bool | list[Any]


def _joined(operator: str, parts: tuple[Condition, ...]) -> Condition:
    """``parts`` joined by "and" or "or", flattened and without repeats: the constant that
    decides the operator (False for and, True for or) decides, the other drops out."""
    deciding = operator == "or"
    kept: list[Condition] = []
    for part in parts:
        if part is deciding:
            return deciding
        if part is not (not deciding):
            assert isinstance(part, list)
            for each in part[1:] if part[0] == operator else [part]:
                kept += [] if each in kept else [each]
    return (not deciding) if not kept else kept[0] if len(kept) == 1 else [operator, *kept]


def _and(*parts: Condition) -> Condition:
    return _joined("and", parts)


def _or(*parts: Condition) -> Condition:
    return _joined("or", parts)


def _not(part: Condition) -> Condition:
    if isinstance(part, bool):
        return not part
    return part[1] if part[0] == "not" else ["not", part]


def logical_lines(text: str) -> Iterator[str]:
    """A shell script's statements: continued lines joined, a quoted value over several lines
    kept whole, here-documents and comments left out."""
    lines = text.replace("\\\n", " ").split("\n")
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        while len(re.findall(r'(?<!\\)"', line)) % 2 and index < len(lines):
            line += "\n" + lines[index]
            index += 1
        heredoc = HEREDOC.search(line)
        while heredoc and index < len(lines) and lines[index].strip() != heredoc[1]:
            index += 1
        index += 1 if heredoc else 0
        if line.strip() and not line.strip().startswith("#"):
            yield line.strip()


Way = dict[str, object]


@dataclass
class BuildWalk:
    """configure's scripts read symbolically: what each switch was set to and under which
    condition, the ngx_module_* values, and per source file the ways it is built."""

    shared: dict[str, list[str]]  # auto/sources' lists: CORE_SRCS, EPOLL_SRCS, EPOLL_MODULE…
    assigned: dict[str, list[tuple[Condition, str]]] = field(default_factory=dict)
    module: dict[str, str] = field(default_factory=dict)
    # What static links add to HTTP_SRCS, STREAM_SRCS, … (a dynamic stream takes them all).
    linked: dict[str, list[tuple[Condition, list[str]]]] = field(default_factory=dict)
    first_names: dict[str, str] = field(default_factory=dict)
    ways: dict[str, list[Way]] = field(default_factory=dict)

    def equals(self, name: str, value: str) -> Condition:
        if name in FOUND_ON_LINUX:
            return FOUND_ON_LINUX[name] == value
        found: Condition = ["=", name, value]
        for when, assigned in self.assigned.get(name, []):
            found = _or(when, found) if assigned == value else _and(_not(when), found)
        return found

    def condition(self, test: str) -> Condition:
        if test == ":":
            return True
        if test.startswith(("test -n", "test -f")):
            return False  # third-party modules (--add-module): not nginx's own
        bracket = re.fullmatch(r"\[\s*(.*?)\s*\]", test)
        if bracket is None:
            return [UNREAD, test]
        return _or(
            *(
                _and(*(self._atom(atom) for atom in re.split(r"\s+-a\s+", alternative)))
                for alternative in re.split(r"\s+-o\s+", bracket[1])
            )
        )

    def _atom(self, text: str) -> Condition:
        match = ATOM.match(text)
        if match is None:
            return [UNREAD, text]
        found = self.equals(match[1], match[3])
        return found if match[2] == "=" else _not(found)

    def sources(self, words: str, when: Condition) -> list[tuple[Condition, list[str]]]:
        """The source files ``words`` name, with the condition each is there under."""
        found: list[tuple[Condition, list[str]]] = []
        for word in words.split():
            name = word.removeprefix("$")
            if word.startswith("$") and name in self.linked:
                found += [(_and(when, linked), srcs) for linked, srcs in self.linked[name]]
            elif word.startswith("$"):
                found.append((when, self.shared.get(name, [])))
            else:
                found.append((when, [word]))
        return found

    def add(self, when: Condition, srcs: list[str], link: str, module: str) -> None:
        if when is False:
            return
        if f'"{UNREAD}"' in json.dumps(when):
            raise SystemExit(f"{srcs}: built under a condition this script cannot read: {when}")
        for src in srcs:
            self.ways.setdefault(src, []).append({"when": when, "link": link, "module": module})

    def read(self, text: str) -> None:
        # (the condition around the if, its branches' conditions so far, the branch's own)
        stack: list[tuple[Condition, Condition, Condition]] = []
        for line in logical_lines(text):
            when = stack[-1][2] if stack else True
            test = TEST.match(line)
            if line.startswith("if "):
                branch = self.condition(test[1]) if test else [UNREAD, line]
                stack.append((when, branch, _and(when, branch)))
            elif line.startswith("elif ") and stack:
                outer, taken, _ = stack.pop()
                branch = self.condition(test[1]) if test else [UNREAD, line]
                stack.append((outer, _or(taken, branch), _and(outer, _not(taken), branch)))
            elif line == "else" and stack:
                outer, taken, _ = stack.pop()
                stack.append((outer, True, _and(outer, _not(taken))))
            elif line == "fi" and stack:
                stack.pop()
            elif line == ". auto/module":
                self.call(when)
            else:
                self.assign(line, when)

    def assign(self, line: str, when: Condition) -> None:
        match = ASSIGNMENT.match(line)
        if match is None:
            return
        name, value = match[1], match[2] if match[2] is not None else match[3]
        target = SOURCES.match(name)
        if name.startswith("ngx_module_"):
            self.module[name] = value
        elif target and "$" in value:
            # CORE_SRCS="$CORE_SRCS $EPOLL_SRCS": linked in, as that list's module.
            for word in value.split():
                stem = SOURCES.match(word.removeprefix("$"))
                if word != f"${name}" and stem:
                    module = self.shared.get(f"{stem[1]}_MODULE", [""])[0]
                    for found, srcs in self.sources(word, when):
                        self.add(found, srcs, "YES", module)
        elif SWITCH.match(line):
            self.assigned.setdefault(name, []).append((when, value))

    def call(self, when: Condition) -> None:
        kind = self.module.get("ngx_module_type", "")
        group = "HTTP" if kind.startswith("HTTP_") else kind
        names = self.module.get("ngx_module_name", "").split()
        first = names[0] if names else ""
        if first.startswith("$"):
            first = self.first_names[first[1:]]
        link = self.module.get("ngx_module_link", "").removeprefix("$")
        static = link == "YES" or (link != "DYNAMIC" and self.equals(link, "YES"))
        for found, srcs in self.sources(self.module.get("ngx_module_srcs", ""), when):
            if link in self.assigned:
                # A switch the scripts set too (HTTP_SSL for HTTP_V3): its value here.
                dynamic = self.equals(link, "DYNAMIC")
                self.add(_and(found, _not(dynamic)), srcs, "YES", first)
                self.add(_and(found, dynamic), srcs, "DYNAMIC", first)
            else:
                self.add(found, srcs, link, first)
            if link != "DYNAMIC":
                self.linked.setdefault(f"{group}_SRCS", []).append((_and(found, static), srcs))
        if link != "DYNAMIC" and first:
            self.first_names.setdefault(f"{kind}_MODULES", first)


def shared_lists(text: str) -> dict[str, list[str]]:
    """auto/sources' lists (CORE_SRCS, EPOLL_SRCS, EPOLL_MODULE, …), the lists they name
    expanded."""
    lists: dict[str, list[str]] = {}
    for line in logical_lines(text):
        match = ASSIGNMENT.match(line)
        if match is not None:
            words = (match[2] if match[2] is not None else match[3]).split()
            lists[match[1]] = [
                item
                for word in words
                for item in (lists.get(word[1:], []) if word.startswith("$") else [word])
            ]
    return lists


def builds(auto: dict[str, str]) -> dict[str, list[Way]]:
    """Per source file, the ways configure builds it on Linux."""
    walk = BuildWalk(shared_lists(auto["auto/sources"]))
    for path in BUILT_BY:
        walk.read(auto[path])
    for path in OTHER_SYSTEMS:
        for word in re.findall(r"\$(\w+_SRCS)", auto.get(path, "")):
            for src in walk.shared.get(word, []):
                walk.ways.setdefault(src, [{"when": False, "link": "YES", "module": ""}])
    return walk.ways


def configure_switches(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """auto/options: each switch's default, and what each option sets ("STREAM=DYNAMIC");
    options that take a value of the user's (--with-cc-opt=…) set no switch here."""
    head, _, loop = text.partition("\nfor option\n")
    defaults = dict(line.split("=") for line in head.split("\n") if SWITCH.match(line))
    table = loop.split('case "$option" in')[2].split("\n    esac")[0]
    options: dict[str, str] = {}
    for arm in table.split(";;"):
        lines = [line for line in arm.split("\n") if not line.strip().startswith("#")]
        match = re.match(r"\s*([^\s()][^()]*?)\)\s*(.*)$", "\n".join(lines), re.S)
        if match is None:
            continue
        sets = [line.strip() for line in match[2].split("\n") if SWITCH.match(line.strip())]
        for option in match[1].split("|"):
            if sets and "*" not in option:
                options[option.strip()] = " ".join(sets)
    return defaults, options


def dotted(version: tuple[int, int, int]) -> str:
    return ".".join(map(str, version))


def build_entries(git_dir: str, tag: str, used: set[str]) -> list[tuple[str, str, object]]:
    """(kind, name, entry) of the switches, options and builds of the sources ``used``;
    a source with a command table or variables and no way configure builds it stops here."""
    auto = _archive(git_dir, tag, "auto")
    defaults, options = configure_switches(auto["auto/options"])
    ways = builds(auto)
    missing = sorted(used - set(ways))
    if missing:
        raise SystemExit(f"{tag}: {missing}: in no auto/modules call: read its build again")
    return [
        *(("defaults", name, {"value": value}) for name, value in defaults.items()),
        *(("options", name, {"sets": sets}) for name, sets in options.items()),
        *(("builds", path, {"ways": ways[path]}) for path in sorted(used)),
    ]


def _variable_kind(family: str) -> str:
    """The table's key of a family's variables (http's are "variables", as they came first)."""
    return "variables" if family == "http" else f"{family}_variables"


def main(git_dir: str) -> int:
    tags = version_tags(git_dir)
    # (name, entry) -> indexes of the tags that have it
    present: dict[tuple[str, str, str], list[int]] = {}
    for index, (_, tag) in enumerate(tags):
        texts = sources(git_dir, tag)
        found: list[tuple[str, str, object]] = [("directives", *item) for item in entries(texts)]
        for family in VARIABLE_FAMILIES:
            found += [(_variable_kind(family), *item) for item in variables(texts, family)]
        used = {str(entry["source"]) for _, _, entry in found if isinstance(entry, dict)}
        found += build_entries(git_dir, tag, used)
        for kind, name, entry in found:
            key = (kind, name, json.dumps(entry, sort_keys=True))
            indexes = present.setdefault(key, [])
            if not indexes or indexes[-1] != index:
                indexes.append(index)
    kinds = ("directives", "variables", "stream_variables", "builds", "options", "defaults")
    table: dict[str, dict[str, list[dict[str, object]]]] = {kind: {} for kind in kinds}
    for (kind, name, entry), indexes in sorted(present.items()):
        for first, last in _runs(indexes):
            table[kind].setdefault(name, []).append(
                {
                    **json.loads(entry),
                    "since": dotted(tags[first][0]),
                    "until": None if last == len(tags) - 1 else dotted(tags[last][0]),
                }
            )
    json.dump(
        {
            "source": "nginx command and variable tables, and how configure builds their "
            f"modules, of every release tag from {dotted(tags[0][0])} to "
            f"{dotted(tags[-1][0])}: scripts/nginx_directives.py",
            "newest": dotted(tags[-1][0]),
            **table,
        },
        sys.stdout,
        indent=1,
        sort_keys=True,
    )
    sys.stdout.write("\n")
    return 0


def _runs(indexes: list[int]) -> Iterator[tuple[int, int]]:
    """Consecutive runs of tag indexes, as (first, last)."""
    first = previous = indexes[0]
    for index in indexes[1:]:
        if index != previous + 1:
            yield first, previous
            first = index
        previous = index
    yield first, previous


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))

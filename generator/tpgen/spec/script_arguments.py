"""Where nginx runs a directive's arguments through its script compiler, which refuses a $
with no name or an unclosed ${ (spec/nginx_script): the arguments the table's "script" names
(scripts/nginx_directives.py reads which from each handler of nginx's source)."""

from __future__ import annotations

from collections.abc import Callable

from tpgen.spec.nginx_script import script_problem

# ngx_http_log_compile_format reads log_format's variables itself and says so otherwise.
_FORMAT_SAYS = "invalid parameter"
Arguments = tuple[str, ...]


def _log_values(args: Arguments) -> list[str]:
    """ngx_http_log_set_log: a syslog: target is no file path; the format's name comes
    second, then the parameters, if='s condition a value."""
    path = [] if args[0].startswith("syslog:") else [args[0]]
    return path + [arg[3:] for arg in args[2:] if arg.startswith("if=")]


def _format_values(args: Arguments) -> list[str]:
    return [arg for index, arg in enumerate(args[1:]) if index or not arg.startswith("escape=")]


def _pattern_values(args: Arguments) -> list[str]:
    """ngx_http_proxy_redirect, proxy_cookie_*: a first argument after ~ is a regex."""
    return [arg for index, arg in enumerate(args) if index or not arg.startswith("~")]


def _threads_values(args: Arguments) -> list[str]:
    """ngx_http_core_set_aio: the pool's name after threads= (a bare threads names none)."""
    return [args[0][8:]] if args[0].startswith("threads=") else []


def _from_values(args: Arguments) -> list[str]:
    """ngx_http_disable_symlinks: each from='s value."""
    return [arg[5:] for arg in args if arg.startswith("from=")]


def _image_filter_values(args: Arguments) -> list[str]:
    """ngx_http_image_filter: rotate's angle, resize's and crop's width and height; it
    refuses any other first word before it compiles anything."""
    if len(args) == 2 and args[0] == "rotate":
        return [args[1]]
    if len(args) == 3 and args[0] in ("resize", "crop"):
        return list(args[1:])
    return []


def _stylesheet_values(args: Arguments) -> list[str]:
    """ngx_http_xslt_stylesheet: the stylesheet is a file it loads, not a script."""
    return list(args[1:])


_READERS: dict[str, Callable[[Arguments], list[str]]] = {
    "log": _log_values,
    "format": _format_values,
    "pattern": _pattern_values,
    "threads": _threads_values,
    "from": _from_values,
    "filter": _image_filter_values,
    "params": _stylesheet_values,
}


def compiled_values(args: Arguments, kind: str) -> list[str]:
    """The values nginx compiles of ``args`` for a handler of ``kind``."""
    reader = _READERS.get(kind)
    if reader is not None:
        return reader(args)
    chosen = {"first": args[:1], "second": args[1:2], "last": args[-1:], "all": args}
    return list(chosen[kind])


def script_refusal(args: Arguments, kind: str | None) -> str | None:
    """Why nginx's script compiler refuses one of ``args``, or None."""
    if kind is None or not args:
        return None
    said = _FORMAT_SAYS if kind == "format" else "invalid variable name"
    for value in compiled_values(args, kind):
        problem = script_problem(value, said)
        if problem is not None:
            return problem
    return None

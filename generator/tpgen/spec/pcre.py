"""Regexes compiled as nginx compiles them: by PCRE2 itself (libpcre2-8, the library Debian's
nginx links), with nginx's options (ngx_regex_compile). Python's re is another dialect: it
refuses PCRE's \\p{L} or (?<name>…) forms that nginx takes. Without the library nothing is
compiled and the regex is nginx -t's to judge, as before.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from functools import cache

# pcre2.h
_CASELESS = 0x00000008
_INFO_CAPTURECOUNT = 4
_INFO_NAMECOUNT = 17
_INFO_NAMEENTRYSIZE = 18
_INFO_NAMETABLE = 19
_LIBRARY = "libpcre2-8.so.0"
_MESSAGE_BYTES = 256


@dataclass(frozen=True)
class Compiled:
    """What PCRE2 said of a pattern: its error (None: it compiled), its capture count and the
    names of its named captures (which nginx makes variables)."""

    error: str | None
    captures: int = 0
    names: tuple[str, ...] = ()


@cache
def _library() -> ctypes.CDLL | None:
    try:
        library = ctypes.CDLL(_LIBRARY)
    except OSError:
        return None
    library.pcre2_compile_8.restype = ctypes.c_void_p
    library.pcre2_compile_8.argtypes = [
        ctypes.c_char_p,
        ctypes.c_size_t,
        ctypes.c_uint32,
        ctypes.POINTER(ctypes.c_int),
        ctypes.POINTER(ctypes.c_size_t),
        ctypes.c_void_p,
    ]
    library.pcre2_get_error_message_8.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]
    library.pcre2_pattern_info_8.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p]
    library.pcre2_code_free_8.argtypes = [ctypes.c_void_p]
    library.pcre2_code_free_8.restype = None
    return library


def available() -> bool:
    """Whether this machine has the PCRE2 library tpgen compiles regexes with."""
    return _library() is not None


def compiled(pattern: str, *, caseless: bool) -> Compiled | None:
    """PCRE2's verdict on ``pattern`` with nginx's options, or None without the library."""
    library = _library()
    if library is None:
        return None
    data = pattern.encode("utf-8")
    code, offset = ctypes.c_int(), ctypes.c_size_t()
    options = _CASELESS if caseless else 0
    regex = library.pcre2_compile_8(
        data, len(data), options, ctypes.byref(code), ctypes.byref(offset), None
    )
    if not regex:
        message = ctypes.create_string_buffer(_MESSAGE_BYTES)
        library.pcre2_get_error_message_8(code.value, message, _MESSAGE_BYTES)
        at = data[offset.value :].decode("utf-8", "replace")
        return Compiled(f"{message.value.decode('utf-8', 'replace')} at {at!r}")
    try:
        return Compiled(None, _info(library, regex, _INFO_CAPTURECOUNT), _names(library, regex))
    finally:
        library.pcre2_code_free_8(regex)


def _info(library: ctypes.CDLL, regex: int, what: int) -> int:
    value = ctypes.c_uint32()
    library.pcre2_pattern_info_8(regex, what, ctypes.byref(value))
    return value.value


def _names(library: ctypes.CDLL, regex: int) -> tuple[str, ...]:
    """The named captures, read from the name table as ngx_http_regex_compile reads it: each
    entry is two bytes of capture number, then the name, ended by a NUL."""
    count = _info(library, regex, _INFO_NAMECOUNT)
    if count == 0:
        return ()
    size = _info(library, regex, _INFO_NAMEENTRYSIZE)
    table = ctypes.c_void_p()
    library.pcre2_pattern_info_8(regex, _INFO_NAMETABLE, ctypes.byref(table))
    raw = ctypes.string_at(table.value or 0, count * size)
    entries = (raw[index * size + 2 : (index + 1) * size] for index in range(count))
    return tuple(entry.split(b"\0", 1)[0].decode("utf-8", "replace") for entry in entries)

"""What nginx's own handlers of some directives refuse of their arguments, ported from them:
return's code, location's modifier and nesting, if's condition, a map's entries, rewrite's flag,
server names, the regexes (compiled by PCRE2 with the handler's options, spec/pcre.py) of
location, if, rewrite, server_name, map, the proxy_redirect and proxy_cookie_* rewrites,
valid_referers (its host names: spec/handlers_referers.py), gzip_disable and
fastcgi_split_path_info; allow and deny's addresses, error_page's codes, expires,
keepalive_timeout, add_header's always, ssl_session_cache, ssl_ocsp_cache, set's variable,
proxy_pass's URL, the other passes' addresses, root, try_files, index, log_format's escaping,
the limit_req/limit_conn zones and limits, and split_clients' parts, fastcgi_param's
if_not_empty, disable_symlinks (error_log, access_log and resolver, listen, geo, upstream,
proxy_bind, proxy_cache_path, proxy_cache_valid, open_file_cache, worker_processes, directio,
userid_expires, thread_pool and image_filter's: the handlers of spec/handlers_*.py, registered
here). The table (data/nginx-directives.json) names the handler of each directive by the kind
below; scripts/nginx_directives.py refuses to write a table in which a handler that compiles a
regex has none.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tpgen.spec.build import Build, has_pcre
from tpgen.spec.directive_values import ZONE_MIN, fixed_point, number, size, time
from tpgen.spec.handlers_bind import bind_problem
from tpgen.spec.handlers_browser import modern_browser_problem
from tpgen.spec.handlers_cache import cache_path_problem, cache_valid_problem
from tpgen.spec.handlers_charset_map import charset_map_check
from tpgen.spec.handlers_cpu_affinity import cpu_affinity_problem
from tpgen.spec.handlers_geo import geo_check
from tpgen.spec.handlers_image_filter import (
    image_filter_problem,
    image_quality_problem,
    image_sharpen_problem,
)
from tpgen.spec.handlers_include import include_problem
from tpgen.spec.handlers_listen import listen_problem
from tpgen.spec.handlers_listen_build import unbuilt_parameter
from tpgen.spec.handlers_mail import mail_listen_problem, mail_protocol_problem, mail_server_check
from tpgen.spec.handlers_open_file_cache import (
    open_file_cache_problem,
    open_log_file_cache_problem,
)
from tpgen.spec.handlers_pass import SCHEMES, pass_problem
from tpgen.spec.handlers_pcre import (
    gzip_disable_unbuilt,
    referer_unbuilt,
    regex_unbuilt,
    split_path_info_unbuilt,
)
from tpgen.spec.handlers_referers import referers_problem
from tpgen.spec.handlers_stream_listen import stream_listen_problem
from tpgen.spec.handlers_sub_filter import sub_filter_problem
from tpgen.spec.handlers_targets import access_log, error_log, resolver
from tpgen.spec.handlers_thread_pool import aio_problem, thread_pool_problem
from tpgen.spec.handlers_upstream import upstream_check
from tpgen.spec.handlers_words import WORD_HANDLERS
from tpgen.spec.nginx_addresses import cidr_problem
from tpgen.spec.nginx_script import script_problem
from tpgen.spec.nginx_syntax import Directive
from tpgen.spec.pcre import compiled

Args = Sequence[str]


@dataclass(frozen=True)
class Place:
    """Where a directive stands, as its handler sees it: the block's context, the arguments of
    the location around it (None: none), and the variables (lowercase) a named capture of its
    HTTP regexes may not redefine."""

    context: str
    location: Args | None = None
    fixed: frozenset[str] = frozenset()
    version: tuple[int, ...] = (1, 22, 1)  # the target nginx (spec nginx.version)
    debug: bool = True  # built --with-debug (Debian's are); True where the build is unknown
    path: str | None = None  # the file's path (None: not known)
    build: Build | None = None  # the build and the modules it loads (None: not known)

    @property
    def build_without_pcre(self) -> Build | None:
        """The build, where it has no PCRE library (None: it has, or it is not known)."""
        return None if has_pcre(self.build) else self.build

    def regex(self, pattern: str, *, caseless: bool, shown: str | None = None) -> str | None:
        """regex_problem of an HTTP regex (ngx_http_regex_compile) here; or, where the build
        has no PCRE library, nginx's refusal of it (``shown``: the text nginx prints, where
        it is not the pattern)."""
        unbuilt = self.build_without_pcre
        if unbuilt is not None:
            return regex_unbuilt(unbuilt, pattern if shown is None else shown)
        return regex_problem(pattern, caseless=caseless, fixed=self.fixed)

    def location_kind(self) -> str | None:
        return location_name(self.location)[0] if self.location else None


# A redirect without a code (302) starts so (ngx_http_rewrite_return, ngx_http_rewrite).
_REDIRECT_STARTS = ("http://", "https://", "$scheme")
_FIX_REGEX = "fix the regex (nginx compiles it with PCRE2)"


def _return(args: Args, place: Place) -> str | None:
    """ngx_http_rewrite_return's status code (invalid return code)."""
    code = number(args[0])
    if code is None and len(args) == 1 and args[0].startswith(_REDIRECT_STARTS):
        return None
    if code is None or code > 999:
        return (
            "takes a status code of up to three digits (return 404; return 301 URL; return "
            f"200 TEXT) or a URL alone (http://, https:// or $scheme…), not {args[0]!r} "
            "(nginx: invalid return code)"
        )
    return None


def regex_problem(
    pattern: str,
    *,
    caseless: bool,
    captures: int | None = None,
    fixed: frozenset[str] = frozenset(),
) -> str | None:
    """Why nginx's PCRE2 refuses ``pattern``; with ``captures``, its capture count; with
    ``fixed`` (lowercase), a named capture that would redefine one of those variables."""
    verdict = compiled(pattern, caseless=caseless)
    if verdict is None:
        return None
    if verdict.error is not None:
        return (
            f"the regex {pattern!r} does not compile: {verdict.error} (nginx: pcre2_compile() "
            f"failed): {_FIX_REGEX}"
        )
    if captures is not None and verdict.captures != captures:
        return (
            f"the regex {pattern!r} has {verdict.captures} captures where nginx needs "
            f"{captures} (nginx: must have {captures} captures): {_FIX_REGEX}"
        )
    taken = [name for name in verdict.names if name.lower() in fixed]
    if taken:
        return redefined_problem(taken[0], f"the named capture (?<{taken[0]}>…) of {pattern!r}")
    return None


def redefined_problem(name: str, what: str = "") -> str:
    """A config defining a variable nginx's own modules define and let no config change
    (``what``: the part that does, where the directive alone does not say)."""
    return (
        f"{what + ' ' if what else ''}defines ${name}, a variable of nginx's own that a config "
        f'may not redefine (nginx: the duplicate "{name}" variable): give it another name'
    )


def location_regex(args: Args) -> tuple[str, bool] | None:
    """A location's regex and whether it is caseless (ngx_http_core_location), or None."""
    if len(args) == 2:
        return (args[1], args[0] == "~*") if args[0] in ("~", "~*") else None
    if args[0].startswith("~*"):
        return args[0][2:], True
    if args[0].startswith("~"):
        return args[0][1:], False
    return None


def _location(args: Args, place: Place) -> str | None:
    if len(args) == 2 and args[0] not in ("=", "^~", "~", "~*"):
        return (
            f"takes one of the modifiers =, ^~, ~, ~* before the path, not {args[0]!r} "
            "(nginx: invalid location modifier)"
        )
    found = location_regex(args)
    refused = place.regex(found[0], caseless=found[1]) if found else None
    if refused or place.location is None:
        return refused
    return nested_location_problem(place.location, args)


def location_name(args: Args) -> tuple[str, str]:
    """A location's kind (exact, prefix, regex, named) and the name nginx compares."""
    if len(args) == 2:
        kind = {"=": "exact", "^~": "prefix", "~": "regex", "~*": "regex"}.get(args[0], "prefix")
        return kind, args[1]
    found = location_regex(args)
    if found is not None:
        return "regex", found[0]
    first = args[0]
    if first.startswith("="):
        return "exact", first[1:]
    if first.startswith("^~"):
        return "prefix", first[2:]
    return ("named" if first.startswith("@") else "prefix"), first


def nested_location_problem(parent: Args, child: Args) -> str | None:
    """What ngx_http_core_location refuses of a location inside another."""
    parent_kind, parent_name = location_name(parent)
    kind, name = location_name(child)
    if parent_kind in ("exact", "named"):
        return (
            f"a location cannot be inside the {parent_kind} location {parent_name!r} (nginx: "
            f"cannot be inside the {parent_kind} location): move it beside that one"
        )
    if kind == "named":
        return (
            "a named location is allowed on the server level only (nginx: named location can "
            "be on the server level only): move it out of the location"
        )
    if kind != "regex" and not name.startswith(parent_name):
        return (
            f"the location {name!r} is not under {parent_name!r} that it is inside (nginx: is "
            "outside location): start its path with the outer one's, or move it out"
        )
    return None


_CONDITION_FORMS = "if ($var), if ($var = text), if ($var ~ regex), if (-f $path)"


def _condition(word: str) -> str:
    return (
        f"the condition {word!r} is not one nginx reads (nginx: invalid condition): write "
        f"{_CONDITION_FORMS}"
    )


def _condition_words(args: Args) -> tuple[list[str], int, int] | str:
    """The condition's words with its ( and ) taken off, the first's index and the last's,
    as ngx_http_rewrite_if_condition cuts them; or why it has no ( … )."""
    words = list(args)
    if not words[0].startswith("("):
        return _condition(words[0])
    current = 1 if words[0] == "(" else 0
    if current == 0:
        words[0] = words[0][1:]
    last = len(words) - 1
    if not words[last].endswith(")"):
        return _condition(words[last])
    if words[last] == ")":
        last -= 1
    else:
        words[last] = words[last][:-1]
    return words, current, last


def _variable_test(words: list[str], current: int, last: int, place: Place) -> str | None:
    """if ($var), ($var = text), ($var ~ regex) and their negations."""
    if current not in (last, last - 2):
        return _condition(words[current])
    if current == last:
        return None
    operator = words[current + 1]
    if operator in ("~", "~*", "!~", "!~*"):
        return place.regex(words[last], caseless=operator.endswith("*"))
    if operator not in ("=", "!="):
        return (
            f"{operator!r} is no operator of a condition (nginx: unexpected in condition): use "
            "=, !=, ~, ~*, !~ or !~*"
        )
    # ngx_http_rewrite_value: the text compared is a script (not the $var before it).
    return script_problem(words[last])


def _if(args: Args, place: Place) -> str | None:
    """ngx_http_rewrite_if_condition: the words between ( and ), a regex after ~, and the
    text compared or the file tested compiled as a script."""
    cut = _condition_words(args)
    if isinstance(cut, str):
        return cut
    words, current, last = cut
    word = words[current] if current < len(words) else ""
    if len(word) > 1 and word.startswith("$"):
        return _variable_test(words, current, last, place)
    file_test = (len(word) == 2 and word[0] == "-") or (len(word) == 3 and word[:2] == "!-")
    if file_test and current + 1 == last and word[-1] in "fdex":
        return script_problem(words[last])
    return _condition(word)


_REWRITE_FLAGS = ("last", "break", "redirect", "permanent")


def _rewrite(args: Args, place: Place) -> str | None:
    if not args[1]:
        return "takes a replacement that is not empty (nginx: empty replacement)"
    if len(args) == 3 and args[2] not in _REWRITE_FLAGS:
        return (
            f"takes a flag of {', '.join(_REWRITE_FLAGS)}, not {args[2]!r} (nginx: invalid "
            "parameter)"
        )
    return place.regex(args[0], caseless=False)


def _server_name(args: Args, place: Place) -> str | None:
    """ngx_http_core_server_name (and stream's): wildcards, and regexes, caseless when the
    pattern has a capital letter."""
    for name in args:
        if (name.startswith("*") and (len(name) < 3 or name[1] != ".")) or name == ".":
            return (
                f"{name!r} is no server name nginx takes (nginx: server name is invalid): a "
                "wildcard is *.example.com or .example.com"
            )
        if not name.startswith("~"):
            continue
        if name == "~" and place.build_without_pcre is None:
            return "has a ~ with no regex after it (nginx: empty regex in server name)"
        pattern = name[1:]
        capital = any("A" <= char <= "Z" for char in pattern)
        found = place.regex(pattern, caseless=capital, shown=name)
        if found:
            return found
    return None


def _alone(args: Args, words: tuple[str, ...]) -> str | None:
    """A lone argument of proxy_redirect and the proxy_cookie_*: one of ``words``, as written."""
    if len(args) != 1 or args[0] in words:
        return None
    return f"takes {' or '.join(words)} alone, not {args[0]!r} (nginx: invalid parameter)"


def _tilde_first(
    *, caseless: bool | None, alone: tuple[str, ...] = ("off",)
) -> Callable[[Args, Place], str | None]:
    """A handler whose first of two arguments is a regex after ~ (~* caseless when
    ``caseless`` is None, else always as given), or whose one argument is a word of ``alone``:
    proxy_redirect and the proxy_cookie_*."""

    def check(args: Args, place: Place) -> str | None:
        first = args[0]
        if len(args) != 2 or not first.startswith("~"):
            return _alone(args, alone)
        if caseless is None and first.startswith("~*"):
            return place.regex(first[2:], caseless=True)
        return place.regex(first[1:], caseless=bool(caseless))

    return check


def _proxy_redirect(args: Args, place: Place) -> str | None:
    """ngx_http_proxy_redirect: ``default`` rewrites what the block's own proxy_pass names,
    and an http or server block has none (proxy_pass is a location's)."""
    if list(args) == ["default"] and place.context in ("http", "server"):
        return (
            "takes default only in a location after its proxy_pass, whose URL it rewrites "
            '(nginx: "proxy_redirect default" should be placed after the "proxy_pass" '
            "directive): move it into the location, or write the redirect out"
        )
    return _tilde_first(caseless=None, alone=("off", "default"))(args, place)


def _cookie_flags(args: Args, place: Place) -> str | None:
    if len(args) > 1 and args[0].startswith("~"):
        return place.regex(args[0][1:], caseless=True)
    return _alone(args, ("off",))


# valid_referers, gzip_disable and fastcgi_split_path_info compile with ngx_regex_compile
# alone: their named captures name no variable.
def _valid_referers(args: Args, place: Place) -> str | None:
    for referer in args:
        if not referer:
            return "has an empty referer (nginx: invalid referer)"
        unbuilt = place.build_without_pcre
        if unbuilt is not None and referer.startswith("~"):
            return referer_unbuilt(unbuilt, referer, place.version)
        if referer == "~":
            return "has a ~ with no regex after it (nginx: empty regex)"
        if referer.startswith("~"):
            found = regex_problem(referer[1:], caseless=True)
            if found:
                return found
    return referers_problem(args) or _referers_without_host(args)


def _referers_without_host(args: Args) -> str | None:
    """ngx_http_referer_merge_conf: none or blocked needs a host name beside it (a regex is
    none; server_names brings the server's names, which tpgen takes as plain ones)."""
    hosts = [arg for arg in args if arg not in ("none", "blocked") and not arg.startswith("~")]
    if hosts or not {"none", "blocked"} & set(args):
        return None
    return (
        "takes none or blocked only beside a host name (a.example.com, *.example.com, "
        'server_names), not with regexes alone (nginx: the "none" or "blocked" referers are '
        'specified in the "valid_referers" directive without any valid referer): add the '
        "hosts"
    )


def _gzip_disable(args: Args, place: Place) -> str | None:
    for pattern in args:
        if pattern not in ("msie6", "degradation"):
            unbuilt = place.build_without_pcre
            if unbuilt is not None:
                return gzip_disable_unbuilt(unbuilt, pattern)
            found = regex_problem(pattern, caseless=True)
            if found:
                return found
    return None


def _split_path_info(args: Args, place: Place) -> str | None:
    unbuilt = place.build_without_pcre
    if unbuilt is not None:
        return split_path_info_unbuilt(unbuilt)
    return regex_problem(args[0], caseless=False, captures=2)


def _map_entry(entry: Directive, place: Place) -> str | None:
    """ngx_http_map (stream's is the same): one entry of a map's body."""
    words = (entry.name, *entry.args)
    if entry.block is not None:
        return 'an entry of a map is key value; not a block (nginx: unexpected "{")'
    if len(words) == 1 and words[0] in ("hostnames", "volatile"):
        return None
    if len(words) != 2:
        return (
            f"the map entry {' '.join(words)!r} is not key value; (nginx: invalid number of "
            "the map parameters): quote a key or value with spaces"
        )
    # Without PCRE a ~ key is a plain string (ngx_http_map).
    if not words[0].startswith("~") or place.build_without_pcre is not None:
        return None
    caseless = words[0].startswith("~*")
    return place.regex(words[0][2 if caseless else 1 :], caseless=caseless)


def _map(directive: Directive, place: Place) -> str | None:
    """ngx_http_map_block (stream's is the same): the value compiled, the variable, the body."""
    compiled = script_problem(directive.args[0])
    if compiled:
        return compiled
    if not directive.args[1].startswith("$"):
        return (
            f"defines a variable, so its second argument starts with $, not "
            f"{directive.args[1]!r} (nginx: invalid variable name)"
        )
    seen_default = False
    for entry in directive.block or ():
        found = _map_entry(entry, place)
        if found is None and entry.name == "default" and len(entry.args) == 1:
            if seen_default:
                found = "a second default in the map (nginx: duplicate default map parameter)"
            seen_default = True
        if found:
            return f"line {entry.line}: {found}"
    return None


_HUNDRED = 10000  # percent with two decimals
_UINT32 = 0xFFFFFFFF


def _split_part(entry: Directive) -> int | str:
    """ngx_http_split_clients (stream's is the same): a part's share in 0.01 % (nginx keeps
    it in 32 bits), 0 for *, or why nginx refuses the part."""
    word = entry.name
    if entry.block is not None:
        return 'a part of split_clients is PERCENT% value; not a block (nginx: unexpected "{")'
    if word == "*":
        return 0
    share = fixed_point(word[:-1], 2) if word.endswith("%") else None
    if not share:
        return (
            f"a part's share is a percent above 0 with at most two decimals (e.g. 12.5%) or *, "
            f'not {word!r} (nginx: invalid percent value "{word}")'
        )
    return share & _UINT32


def _split_clients(directive: Directive, place: Place) -> str | None:
    """ngx_conf_split_clients_block: the value compiled, the variable, each part, and the
    shares' total."""
    compiled = script_problem(directive.args[0])
    if compiled:
        return compiled
    if not directive.args[1].startswith("$") or directive.args[1] == "$":
        return (
            f"defines a variable, so its second argument is $name, not {directive.args[1]!r} "
            "(nginx: invalid variable name)"
        )
    total = 0
    for entry in directive.block or ():
        share = _split_part(entry)
        if isinstance(share, str):
            return f"line {entry.line}: {share}"
        total = (total + share) & _UINT32 if share else _HUNDRED
        if total > _HUNDRED:
            return (
                f"line {entry.line}: the shares add up to more than 100 % here (a * part counts "
                "as the rest, so nothing may follow it) (nginx: percent total is greater than "
                "100%): lower them"
            )
    return None


def _access(args: Args, place: Place) -> str | None:
    """ngx_http_access_rule (and stream's): all, unix:, or an address with /bits."""
    if args[0] in ("all", "unix:") or not cidr_problem(args[0]):
        return None
    return (
        f"takes all, unix: or an IPv4 or IPv6 address with /bits, not {args[0]!r} (nginx: "
        "invalid parameter)"
    )


def _error_page(args: Args, place: Place) -> str | None:
    """ngx_http_core_error_page: codes 300–599 (not 499), an optional =code, then the URI."""
    codes = list(args[:-1])
    if codes[-1].startswith("="):
        answer = codes.pop()
        if not codes or (len(answer) > 1 and number(answer[1:]) is None):
            return f"takes the codes, then =code, not {answer!r} first (nginx: invalid value)"
    for code in codes:
        status = number(code)
        if status is None or status == 499:
            return f"takes status codes 300 to 599 (not 499), not {code!r} (nginx: invalid value)"
        if not 300 <= status <= 599:
            return f"takes status codes 300 to 599, not {code} (nginx: must be between 300 and 599)"
    return None


def _expires(args: Args, place: Place) -> str | None:
    """ngx_http_headers_expires and ngx_http_parse_expires: [modified] time, @time of day,
    epoch, max or off; a value with a variable is read per request."""
    modified = len(args) == 2
    if modified and args[0] != "modified":
        return f"takes modified before a time, not {args[0]!r} (nginx: invalid value)"
    value = args[-1]
    if "$" in value or (not modified and value in ("epoch", "max", "off")):
        return None
    daily = value.startswith("@")
    if daily and modified:
        return (
            "takes no @time of day after modified (nginx: daily time cannot be used with modified)"
        )
    seconds = time(value[1:] if value[:1] in ("@", "+", "-") else value, seconds=True)
    if seconds is None:
        return (
            f"takes a time (1h, 30d, -1, @15h30m), epoch, max or off, not {value!r} (nginx: "
            "invalid value)"
        )
    if daily and seconds > 24 * 60 * 60:
        return (
            f"takes a time of day under 24h after @, not {value!r} (nginx: must be less than "
            "24 hours)"
        )
    return None


def _keepalive_timeout(args: Args, place: Place) -> str | None:
    """ngx_http_core_keepalive: a time, then the header's time in whole seconds."""
    if time(args[0], seconds=False) is None or (
        len(args) == 2 and time(args[1], seconds=True) is None
    ):
        return (
            f"takes a time and, for the Keep-Alive header, a time in whole seconds (75s 60s), "
            f"not {' '.join(args)!r} (nginx: invalid value)"
        )
    return None


def _zone_too_small(size_bytes: int, written: str) -> str | None:
    """A shared zone's size below nginx's eight pages (ngx_shared_memory_add's callers)."""
    if size_bytes < ZONE_MIN:
        return f"takes a zone of at least 32k, not {written!r} (nginx: zone is too small)"
    return None


def _zone_problem(word: str) -> str | None:
    _, colon, size_text = word.removeprefix("zone=").partition(":")
    size_bytes = size(size_text) if colon else None
    if size_bytes is None:
        return f"takes zone=NAME:SIZE (zone=perip:10m), not {word!r} (nginx: invalid zone size)"
    return _zone_too_small(size_bytes, word)


def _upstream_zone(args: Args, place: Place) -> str | None:
    """ngx_http_upstream_zone (and stream's): a name, then a size of at least 32k or none (a
    zone another upstream's zone gives a size: spec/directives.py reads the config's)."""
    if not args[0]:
        return "takes a zone name first, not '' (nginx: invalid zone name)"
    if len(args) < 2:
        return None
    found = size(args[1])
    if found is None:
        return f"takes a size after the name (64k, 1m), not {args[1]!r} (nginx: invalid zone size)"
    return _zone_too_small(found, args[1])


def _upstream_param(args: Args, place: Place) -> str | None:
    """ngx_http_upstream_param_set_slot (fastcgi_param, scgi_param, uwsgi_param): a name, a
    value, then if_not_empty (as written) or nothing."""
    if len(args) < 3 or args[2] == "if_not_empty":
        return None
    return f"takes if_not_empty after the value, not {args[2]!r} (nginx: invalid parameter)"


_SYMLINK_STATES = ("off", "on", "if_not_owner")


def _disable_symlinks(args: Args, place: Place) -> str | None:
    """ngx_http_disable_symlinks: off, on or if_not_owner (the last wins), and from= (its
    script: spec/script_arguments) with on or if_not_owner."""
    wrong = next((w for w in args if w not in _SYMLINK_STATES and not w.startswith("from=")), "")
    states = [word for word in args if word in _SYMLINK_STATES]
    if wrong or not states:
        return (
            f"takes off, on or if_not_owner, then from= optional, not {' '.join(args)!r} (nginx: "
            "invalid parameter, or must have off, on or if_not_owner)"
        )
    if len(args) == 2 and len(states) == 2:
        shown = " ".join(args)
        return f"takes one of off, on, if_not_owner, not {shown!r} (nginx: duplicate parameters)"
    if len(args) == 2 and states[-1] == "off":
        return 'takes from= with on or if_not_owner only (nginx: "from=" cannot be used with "off")'
    return None


def _rate_problem(word: str) -> str | None:
    text = word.removeprefix("rate=")
    if text.endswith(("r/s", "r/m")):
        text = text[:-3]
    rate = number(text)
    if not rate:
        return f"takes rate=Nr/s or rate=Nr/m above 0, not {word!r} (nginx: invalid rate)"
    return None


def _zone_parameters(name: str, *, rate: bool) -> Callable[[Args, Place], str | None]:
    """ngx_http_limit_req_zone (zone=, rate=) and ngx_http_limit_conn_zone (zone=): the key,
    then the parameters."""

    def check(args: Args, place: Place) -> str | None:
        zoned = False
        for word in args[1:]:
            if word.startswith("zone="):
                zoned = True
                found = _zone_problem(word)
            elif rate and word.startswith("rate="):
                found = _rate_problem(word)
            else:
                found = (
                    f"takes zone= {'and rate= ' if rate else ''}after the key, not {word!r} "
                    "(nginx: invalid parameter)"
                )
            if found:
                return found
        return (
            None
            if zoned
            else f'takes a zone=NAME:SIZE (nginx: "{name}" must have "zone" parameter)'
        )

    return check


def _limit_req(args: Args, place: Place) -> str | None:
    """ngx_http_limit_req: zone=, burst= and delay= above 0, nodelay."""
    zoned = False
    for word in args:
        key, equals, value = word.partition("=")
        if equals and key == "zone":
            zoned = True
        elif equals and key in ("burst", "delay"):
            if not number(value):
                return f"takes {key}= above 0, not {word!r} (nginx: invalid {key} value)"
        elif word != "nodelay":
            return (
                f"takes zone=, burst=, delay= or nodelay, not {word!r} (nginx: invalid parameter)"
            )
    return None if zoned else 'takes zone=NAME (nginx: "limit_req" must have "zone" parameter)'


def _limit_conn(args: Args, place: Place) -> str | None:
    """ngx_http_limit_conn: the zone, then 1 to 65535 connections."""
    count = number(args[1])
    if not count or count > 65535:
        return (
            f"takes 1 to 65535 connections, not {args[1]!r} (nginx: invalid number of connections)"
        )
    return None


def proxy_url_parts(url: str) -> tuple[str, str, str | None, str] | None:
    """ngx_http_proxy_pass and ngx_parse_inet_url on a URL without variables: (scheme, host,
    port text or None, URI part), or None where nginx reads the address another way (unix:,
    [IPv6]) and this does not follow it."""
    scheme, found, rest = url.partition("://")
    if not found or rest[:5].lower() == "unix:" or rest.startswith("["):
        return None
    ends = [at for at in (rest.find("/"), rest.find("?")) if at >= 0]
    uri_at = min(ends) if ends else len(rest)
    authority = rest[:uri_at]
    host, colon, port = authority.partition(":")
    return scheme, host, port if colon else None, rest[uri_at:]


def _proxy_url_problem(url: str, parts: tuple[str, str, str | None, str] | None) -> str | None:
    """ngx_http_proxy_pass and ngx_parse_inet_url: http:// or https://, then a host and a
    port nginx reads (``parts``: :func:`proxy_url_parts` of the URL)."""
    if not url[:8].lower().startswith(("http://", "https://")):
        return (
            f"takes a URL that starts http:// or https://, not {url!r} (nginx: invalid URL prefix)"
        )
    if parts is None:
        return None
    _, host, port, _ = parts
    if port is not None and not 1 <= (number(port) or 0) <= 65535:
        return f"takes a port from 1 to 65535, not {port!r} (nginx: invalid port in upstream)"
    if not host:
        return f"takes a host after the scheme, not {url!r} (nginx: no host in upstream)"
    return None


def _proxy_pass(args: Args, place: Place) -> str | None:
    """ngx_http_proxy_pass: its URL (one with a variable is read per request), and no URI
    part where nginx cannot tell which part of the request's URI it would replace."""
    url = args[0]
    if "$" in url:
        return None
    parts = proxy_url_parts(url)
    refused = _proxy_url_problem(url, parts)
    if refused or parts is None or not parts[3]:
        return refused
    if place.context in ("location_if", "limit_except") or place.location_kind() in (
        "regex",
        "named",
    ):
        return (
            f"has a URI part ({parts[3]!r}) in a regex or named location, an if or a "
            'limit_except block (nginx: "proxy_pass" cannot have URI part): remove it, or set '
            "the URI with rewrite … break before"
        )
    return None


def _root(directive: Directive, place: Place) -> str | None:
    """ngx_http_core_root (root and alias): no alias in a named location; the path may not
    use the variables it defines."""
    if directive.name == "alias" and place.location_kind() == "named":
        return (
            "is not allowed in a named location (nginx: the alias directive cannot be used "
            "inside the named location): use root"
        )
    for name in ("document_root", "realpath_root"):
        if f"${name}" in directive.args[0] or f"${{{name}}}" in directive.args[0]:
            return (
                f"uses ${name}, which this directive itself sets (nginx: the ${name} variable "
                "cannot be used): write the path"
            )
    return None


def _try_files(args: Args, place: Place) -> str | None:
    """ngx_http_try_files: a last =code of at most three digits."""
    last = args[-1]
    if last.startswith("=") and "$" not in last:
        code = number(last[1:])
        if code is None or code > 999:
            return f"takes =code of up to three digits last, not {last!r} (nginx: invalid code)"
    return None


def _index(args: Args, place: Place) -> str | None:
    """ngx_http_index_set_index: no empty name."""
    if "" in args:
        return "takes file names, not an empty one (nginx: index is invalid)"
    return None


def _log_format(args: Args, place: Place) -> str | None:
    """ngx_http_log_set_format: escape=default, json or none after the name."""
    if len(args) > 1 and args[1].startswith("escape="):
        escape = args[1].removeprefix("escape=")
        if escape not in ("default", "json", "none"):
            return (
                f"takes escape=default, json or none, not {args[1]!r} (nginx: unknown log "
                "format escaping)"
            )
    return None


def _always(args: Args, place: Place) -> str | None:
    """ngx_http_headers_add (add_header, add_trailer): a third word is always."""
    if len(args) == 3 and args[2] != "always":
        return f"takes always after the value, not {args[2]!r} (nginx: invalid parameter)"
    return None


def _session_cache_part(word: str) -> str | None:
    if word in ("off", "none", "builtin"):
        return None
    if word.startswith("builtin:") and len(word) > len("builtin:"):
        return None if number(word.removeprefix("builtin:")) is not None else "invalid"
    name, colon, size_text = word.removeprefix("shared:").partition(":")
    if not word.startswith("shared:") or not name or not colon:
        return "invalid"
    size_bytes = size(size_text)
    if size_bytes is None:
        return "invalid"
    return "too small" if size_bytes < ZONE_MIN else None


def _session_cache(args: Args, place: Place) -> str | None:
    """ngx_http_ssl_session_cache: off, none, builtin[:N], shared:NAME:SIZE (32k or more)."""
    for word in args:
        found = _session_cache_part(word)
        if found == "too small":
            return f"takes a shared cache of at least 32k, not {word!r} (nginx: is too small)"
        if found:
            return (
                f"takes off, none, builtin[:N] or shared:NAME:SIZE (shared:SSL:10m), not "
                f"{word!r} (nginx: invalid session cache)"
            )
    return None


def _ocsp_cache(args: Args, place: Place) -> str | None:
    """ngx_http_ssl_ocsp_cache (and stream's): off, or shared:NAME:SIZE (32k or more)."""
    word = args[0]
    found = _session_cache_part(word) if word.startswith("shared:") else "invalid"
    if word == "off" or found is None:
        return None
    if found == "too small":
        return f"takes a shared cache of at least 32k, not {word!r} (nginx: is too small)"
    return (
        f"takes off or shared:NAME:SIZE (shared:OCSP:10m), not {word!r} (nginx: invalid OCSP cache)"
    )


def _variable_name(args: Args, place: Place) -> str | None:
    """ngx_http_rewrite_set (set), auth_request_set, perl_set, stream's set: the variable first."""
    if args[0].startswith("$"):
        return None
    return (
        f"takes the variable it sets first, as $name, not {args[0]!r} (nginx: invalid variable "
        "name)"
    )


def _listen(args: Sequence[str], place: Place) -> str | None:
    """ngx_http_core_listen, or in a stream server ngx_stream_core_listen."""
    if place.context.startswith("stream"):
        return stream_listen_problem(args, place) or unbuilt_parameter(args, place.build, True)
    return listen_problem(args, place.version) or unbuilt_parameter(args, place.build, False)


_BY_ARGS: dict[str, Callable[[Args, Place], str | None]] = {
    "return": _return,
    "location": _location,
    "if": _if,
    "rewrite": _rewrite,
    "server_name": _server_name,
    "proxy_redirect": _proxy_redirect,
    "cookie_domain": _tilde_first(caseless=True),
    "cookie_path": _tilde_first(caseless=None),
    "cookie_flags": _cookie_flags,
    "valid_referers": _valid_referers,
    "gzip_disable": _gzip_disable,
    "split_path_info": _split_path_info,
    "access": _access,
    "error_page": _error_page,
    "expires": _expires,
    "keepalive_timeout": _keepalive_timeout,
    "limit_req_zone": _zone_parameters("limit_req_zone", rate=True),
    "limit_conn_zone": _zone_parameters("limit_conn_zone", rate=False),
    "limit_req": _limit_req,
    "limit_conn": _limit_conn,
    "always": _always,
    "proxy_pass": _proxy_pass,
    "try_files": _try_files,
    "index": _index,
    "error_log": error_log,
    "log_format": _log_format,
    "session_cache": _session_cache,
    "ocsp_cache": _ocsp_cache,
    "bind": bind_problem,
    "cache_path": cache_path_problem,
    "cache_valid": cache_valid_problem,
    "variable_name": _variable_name,
    "upstream_zone": _upstream_zone,
    **WORD_HANDLERS,
    "upstream_param": _upstream_param,
    "thread_pool": thread_pool_problem,
    "aio": aio_problem,
    "disable_symlinks": _disable_symlinks,
    "open_file_cache": open_file_cache_problem,
    "open_log_file_cache": open_log_file_cache_problem,
    "upstream_pass": pass_problem(()),
    "memcached_pass": pass_problem((), variables=False),
    "uwsgi_pass": pass_problem(SCHEMES["uwsgi_pass"]),
    "grpc_pass": pass_problem(SCHEMES["grpc_pass"]),
    "listen": _listen,
    "access_log": access_log,
    "resolver": resolver,
    "image_filter": image_filter_problem,
    "image_quality": image_quality_problem,
    "image_sharpen": image_sharpen_problem,
    "cpu_affinity": cpu_affinity_problem,
    "modern_browser": modern_browser_problem,
    "sub_filter": sub_filter_problem,
    "include": include_problem,
    "mail_protocol": mail_protocol_problem,
    "mail_listen": mail_listen_problem,
}
# Handlers that read more than the arguments: a map's body, root's or alias's name.
_BY_DIRECTIVE: dict[str, Callable[[Directive, Place], str | None]] = {
    "map": _map,
    "root": _root,
    "split_clients": _split_clients,
    "geo": geo_check,
    "upstream": upstream_check,
    "charset_map": charset_map_check,
    "mail_server": mail_server_check,
}
KINDS = frozenset({*_BY_ARGS, *_BY_DIRECTIVE})


def handler_problem(kind: str, directive: Directive, place: Place) -> str | None:
    """Why the handler of ``kind`` (the table's value of a directive) refuses the directive
    where it stands, as nginx words it, or None."""
    if kind in _BY_DIRECTIVE:
        return _BY_DIRECTIVE[kind](directive, place)
    return _BY_ARGS[kind](directive.args, place)

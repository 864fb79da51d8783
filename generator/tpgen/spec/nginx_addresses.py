"""nginx's own address parsers (ngx_inet.c), as nginx reads them: its IPv4 reader takes what
Python's ipaddress refuses (01.2.3.4, an empty part) and refuses what it takes (a zone index,
255.255.255.255), so a snippet's allow or deny is read with these.
"""

from __future__ import annotations

from tpgen.spec.directive_values import number

_INADDR_NONE = 0xFFFFFFFF


def inet_addr(text: str) -> int | None:
    """ngx_inet_addr: dotted IPv4, each part at most 255 (an empty part is 0); None for what
    nginx refuses, 255.255.255.255 too (it is INADDR_NONE to nginx)."""
    address = octet = dots = 0
    for char in text:
        if "0" <= char <= "9":
            octet = octet * 10 + ord(char) - ord("0")
            if octet > 255:
                return None
        elif char == ".":
            address, octet, dots = (address << 8) + octet, 0, dots + 1
        else:
            return None
    if dots != 3:
        return None
    address = ((address << 8) + octet) & 0xFFFFFFFF
    return None if address == _INADDR_NONE else address


_HEX = "0123456789abcdef"


def _inet6_words(text: str) -> tuple[list[int], int | None] | None:
    """ngx_inet6_addr's scan: the 16-bit words before the end and where :: stands (None:
    nginx refuses the text); an IPv4 tail counts as two words."""
    words: list[int] = []
    zero: int | None = None
    nibbles = word = 0
    digit_at: int | None = None
    rest = text[1:] if text.startswith(":") else text
    for index, char in enumerate(rest):
        if char == ":":
            if (nibbles and len(words) >= 7) or (not nibbles and zero is not None):
                return None
            digit_at = index + 1
            if nibbles:
                words.append(word)
                nibbles = word = 0
            else:
                zero = len(words)
            continue
        if char == "." and nibbles:
            tail = inet_addr(rest[digit_at:]) if digit_at is not None else None
            return (
                None if tail is None or len(words) > 6 else ([*words, *divmod(tail, 1 << 16)], zero)
            )
        nibbles += 1
        if nibbles > 4 or char.lower() not in _HEX:
            return None
        word = word * 16 + _HEX.index(char.lower())
    if nibbles == 0 and zero is None:
        return None
    return [*words, word], zero


def inet6_addr(text: str) -> bool:
    """Whether ngx_inet6_addr takes ``text``: eight words, or fewer around one ::."""
    if not text:
        return False
    scanned = _inet6_words(text)
    if scanned is None:
        return False
    words, zero = scanned
    return len(words) < 8 if zero is not None else len(words) == 8


def cidr_problem(text: str) -> bool:
    """Whether ngx_ptocidr refuses ``text``: an address, IPv4 or IPv6, and /bits at most 32 or
    128 (low bits set past the mask are only warned about)."""
    address, slash, bits = text.partition("/")
    if inet_addr(address) is not None:
        largest = 32
    elif inet6_addr(address):
        largest = 128
    else:
        return True
    if not slash:
        return False
    shift = number(bits)
    return shift is None or shift > largest


def inet6_bytes(text: str) -> bytes | None:
    """The 16 bytes ngx_inet6_addr makes of ``text`` (:: filled with zero words), or None."""
    scanned = _inet6_words(text) if inet6_addr(text) else None
    if scanned is None:
        return None
    words, zero = scanned
    if zero is not None:
        words = [*words[:zero], *[0] * (8 - len(words)), *words[zero:]]
    return b"".join(word.to_bytes(2, "big") for word in words)


def _address(text: str) -> bool:
    """ngx_parse_addr: an IPv4 or an IPv6 address."""
    return inet_addr(text) is not None or inet6_addr(text)


def addr_port(text: str) -> bool:
    """Whether ngx_parse_addr_port takes ``text``: an address, or an address and a port of
    1–65535 after its first colon (an IPv6 one in brackets, where IPv4 is taken too)."""
    if _address(text):
        return True
    if text.startswith("["):
        close = text.find("]")
        if close < 0 or text[close + 1 : close + 2] != ":":
            return False
        host, port = text[1:close], text[close + 2 :]
    else:
        host, colon, port = text.partition(":")
        if not colon:
            return False
    value = number(port)
    return value is not None and 1 <= value <= 65535 and _address(host)

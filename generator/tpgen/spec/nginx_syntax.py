"""nginx's config syntax, as nginx's own tokenizer reads it (ngx_conf_read_token), for the
snippets an operator includes (spec ``extra``): directives, their arguments and blocks.

Pure: text in, a tree out. Words end at whitespace, ``;`` or ``{`` (``${`` stays in a word,
and so does ``}``: only where a word would start does ``}`` close a block); ``#`` starts a
comment only where a word would start; ``"`` and ``'`` quote a word whose end must be followed
by whitespace, ``;``, ``{`` or ``)``; a backslash takes the next character as it is. In the
value nginx keeps, a backslash before a quote or a backslash goes, one before t, r or n makes
the control character, and any other stays.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

_SPACE = " \t\r\n"
# Blocks in blocks: a config needs a few (server, location, if); past this a file is hostile.
MAX_DEPTH = 32
_UNESCAPE = {'"': '"', "'": "'", "\\": "\\", "t": "\t", "r": "\r", "n": "\n"}
# nginx reads into a 4096-byte buffer (NGX_CONF_BUFFER): a word or # comment that fills it,
# counted from its opening quote or #, is "too long parameter".
LONGEST = 4095


class SyntaxProblem(ValueError):
    """Text nginx would refuse to parse; ``line`` is 1-based."""

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message
        super().__init__(f"line {line}: {message}")


@dataclass(frozen=True)
class Word:
    value: str
    line: int


@dataclass(frozen=True)
class Directive:
    name: str
    args: tuple[str, ...]
    line: int
    block: tuple[Directive, ...] | None = None  # None: ended by ';'


def _unescape(raw: str) -> str:
    out: list[str] = []
    index = 0
    while index < len(raw):
        char = raw[index]
        if char == "\\" and index + 1 < len(raw) and raw[index + 1] in _UNESCAPE:
            out.append(_UNESCAPE[raw[index + 1]])
            index += 2
            continue
        out.append(char)
        index += 1
    return "".join(out)


class _Lexer:
    """Yields words and the three punctuation marks ; { } with their line."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1

    def _next(self) -> str:
        char = self.text[self.pos]
        self.pos += 1
        if char == "\n":
            self.line += 1
        return char

    def tokens(self) -> list[Word | tuple[str, int]]:
        found: list[Word | tuple[str, int]] = []
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char in _SPACE:
                self._next()
            elif char == "#":
                start = self.pos
                while self.pos < len(self.text) and self.text[self.pos] != "\n":
                    self.pos += 1
                self._fits(start, self.pos, "# comment")
            elif char in ";{}":
                found.append((char, self.line))
                self._next()
            elif char in "\"'":
                found.append(self._quoted())
            else:
                found.append(self._word())
        return found

    def _fits(self, start: int, end: int, what: str) -> None:
        size = len(self.text[start:end].encode("utf-8", "surrogatepass"))
        if size > LONGEST:
            raise SyntaxProblem(
                self.line,
                f"a {what} of {size} bytes: nginx reads at most {LONGEST} (too long parameter)",
            )

    def _word(self) -> Word:
        line, raw, start = self.line, [], self.pos
        variable = False
        while self.pos < len(self.text):
            char = self.text[self.pos]
            if char in _SPACE or char == ";" or (char == "{" and not variable):
                break
            self._next()
            raw.append(char)
            if char == "\\" and self.pos < len(self.text):
                raw.append(self._next())
            variable = char == "$"
        self._fits(start, self.pos, "word")
        return Word(_unescape("".join(raw)), line)

    def _quoted(self) -> Word:
        start = self.pos
        line, quote = self.line, self._next()
        raw: list[str] = []
        while True:
            if self.pos >= len(self.text):
                raise SyntaxProblem(line, f"a {quote} quote is never closed")
            char = self._next()
            if char == quote:
                self._fits(start, self.pos - 1, "quoted word")
                break
            raw.append(char)
            if char == "\\" and self.pos < len(self.text):
                raw.append(self._next())
        if self.pos < len(self.text) and self.text[self.pos] not in _SPACE + ";{)":
            raise SyntaxProblem(
                self.line, f"unexpected {self.text[self.pos]!r} right after a quoted word"
            )
        return Word(_unescape("".join(raw)), line)


class _Tree:
    """The blocks open at this point of the text, innermost last."""

    def __init__(self) -> None:
        self.stack: list[tuple[list[Directive], Word | None, tuple[str, ...]]] = [([], None, ())]

    def end(self, words: list[Word], line: int) -> None:
        if not words:
            raise SyntaxProblem(line, 'unexpected ";"')
        self.stack[-1][0].append(_directive(words))

    def open(self, words: list[Word], line: int) -> None:
        if not words:
            raise SyntaxProblem(line, 'unexpected "{"')
        if len(self.stack) > MAX_DEPTH:
            raise SyntaxProblem(
                line, f"blocks nest more than {MAX_DEPTH} deep: tpgen reads no deeper"
            )
        self.stack.append(([], words[0], tuple(w.value for w in words[1:])))

    def close(self, words: list[Word], line: int) -> None:
        if words:
            raise SyntaxProblem(line, 'unexpected "}": the directive before it has no ";"')
        if len(self.stack) == 1:
            raise SyntaxProblem(
                line, 'unexpected "}": a snippet cannot close a block it did not open'
            )
        body, head, args = self.stack.pop()
        assert head is not None
        self.stack[-1][0].append(Directive(head.value, args, head.line, tuple(body)))

    def done(self, words: list[Word], line: int) -> tuple[Directive, ...]:
        if words:
            raise SyntaxProblem(line, f'"{words[0].value}" is not ended by ";" or a block')
        if len(self.stack) > 1:
            head = self.stack[-1][1]
            assert head is not None
            raise SyntaxProblem(head.line, f'the block of "{head.value}" is never closed by "}}"')
        return tuple(self.stack[0][0])


def parse(text: str) -> tuple[Directive, ...]:
    """The directives of an included file, or SyntaxProblem where nginx would stop."""
    tree = _Tree()
    marks = {";": tree.end, "{": tree.open, "}": tree.close}
    words: list[Word] = []
    line = 1
    for token in _Lexer(text).tokens():
        if isinstance(token, Word):
            words.append(token)
            line = token.line
            continue
        mark, line = token
        marks[mark](words, line)
        words = []
    return tree.done(words, line)


def _directive(words: list[Word]) -> Directive:
    return Directive(words[0].value, tuple(w.value for w in words[1:]), words[0].line)


def with_snippets(
    block: tuple[Directive, ...], snippets: Mapping[str, tuple[Directive, ...]], from_snippet: bool
) -> Iterator[tuple[Directive, bool]]:
    """The block's directives in order, each snippet it includes (by the path its include
    names) read in its place: (directive, whether a snippet wrote it)."""
    for directive in block:
        path = directive.args[0] if len(directive.args) == 1 else ""
        if directive.name == "include" and path in snippets:
            yield from ((inner, True) for inner in snippets[path])
        else:
            yield directive, from_snippet

"""JavaScript regular expressions, translated to Python patterns with the same meaning.

Mastra's ``checks.matches`` takes a JS ``RegExp``. :func:`js_regex` takes its source and flags
(``js_regex(r"\\d+", "i")`` for ``/\\d+/i``) and compiles a Python pattern that matches the same
strings, so a check ported from Mastra behaves as it did there. Where the two dialects differ,
the translation writes out the JS meaning explicitly (ECMA-262, Annex B for patterns without
``u``):

* ``\\d`` is ``[0-9]`` and ``\\w`` is ``[A-Za-z0-9_]`` (ASCII only, like JS; Python's are
  Unicode); ``\\s`` is JS's whitespace set (:data:`scorekit.text.whitespace.JS_WHITESPACE`);
  ``\\b`` / ``\\B`` are word boundaries over that ``\\w``. With the flags ``iu`` ``\\w`` and
  ``\\b`` also take LONG S and KELVIN SIGN, as in JS;
* ``.`` matches any character but the line terminators ``\\n``, ``\\r``, U+2028, U+2029 (flag
  ``s``: any character); ``^`` / ``$`` match only at the start / end of the text (flag ``m``:
  also after / before a line terminator; Python's ``$`` would also match before a final
  ``\\n``);
* flag ``i``: each literal and class matches the characters JS's ``Canonicalize`` pairs with it
  (:mod:`scorekit.checks.js_case`), not Python's ``IGNORECASE`` pairs; backreferences compare
  case-insensitively as Python does (``(?i:\\1)``);
* flag ``y`` (sticky): the match must start at the beginning of the text; flag ``g``: no effect
  (a check tests the whole text once; JS keeps ``lastIndex`` between ``test`` calls, so a
  reused ``g`` or ``y`` regex answers differently on the next run, which scorekit does not
  copy: row 34); flag ``d``: no effect;
* ``(?<name>…)`` and ``\\k<name>`` become ``(?P<name>…)`` and ``(?P=name)``; escapes Python reads
  differently (``\\cX``, ``\\u{…}``, legacy octal ``\\101``, identity escapes such as ``\\A``
  meaning ``A``, a ``{`` that is no quantifier) become the characters JS reads.

Not supported (``ConfigError``): the ``v`` flag, ``\\p{…}`` property escapes, lookbehinds that
are not of fixed width, and group names that are not Python identifiers. Characters are code
points, also without ``u`` (divergences.md row 2: JS would see an emoji as two UTF-16 units).
A backreference to a group that has not matched fails in Python (JS matches it as empty).

The translation adds no backtracking of its own: every construct it writes is a character class
or a one-character lookaround, so matching costs what the user's pattern costs.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from scorekit.checks.js_case import Ranges, case_closure, case_variants, merge_ranges
from scorekit.errors import ConfigError
from scorekit.text.whitespace import JS_WHITESPACE

__all__ = ["JS_FLAGS", "JsRegex", "js_regex", "translate_js_regex"]

JS_FLAGS = "dgimsuy"
"""The JS regex flags accepted, in the order JS lists them in ``RegExp.prototype.flags``."""

_MAX = 0x10FFFF
_LINE_TERMINATORS = "\n\r\u2028\u2029"
_DIGIT: Ranges = [(0x30, 0x39)]
_WORD: Ranges = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
_SPACE: Ranges = merge_ranges([(ord(c), ord(c)) for c in JS_WHITESPACE])
_LINES: Ranges = merge_ranges([(ord(c), ord(c)) for c in _LINE_TERMINATORS])
_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
_QUANTIFIER = re.compile(r"\{(\d+)(,(\d*))?\}")
_HEX = frozenset("0123456789abcdefABCDEF")
_OCTAL = frozenset("01234567")


def _complement(ranges: Ranges) -> Ranges:
    found: Ranges = []
    start = 0
    for low, high in ranges:
        if low > start:
            found.append((start, low - 1))
        start = high + 1
    if start <= _MAX:
        found.append((start, _MAX))
    return found


def _hex(cp: int) -> str:
    if cp < 0x100:
        return f"\\x{cp:02x}"
    if cp < 0x10000:
        return f"\\u{cp:04x}"
    return f"\\U{cp:08x}"


def _char(cp: int) -> str:
    # ASCII letters and digits as themselves (readable), anything else as a hex escape (safe)
    return chr(cp) if chr(cp).isascii() and chr(cp).isalnum() else _hex(cp)


def _class_text(ranges: Ranges) -> str:
    if not ranges:
        return "(?!)"  # JS [] matches nothing
    if len(ranges) == 1 and ranges[0][0] == ranges[0][1]:
        return _char(ranges[0][0])
    parts = (_char(low) if low == high else f"{_char(low)}-{_char(high)}" for low, high in ranges)
    return "[" + "".join(parts) + "]"


def _scan_groups(source: str) -> tuple[int, set[str]]:
    """The number of capturing groups and the group names of a JS pattern."""
    count = 0
    names: set[str] = set()
    index = 0
    in_class = False
    while index < len(source):
        char = source[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            if not source.startswith("(?", index):
                count += 1
            elif source.startswith("(?<", index) and source[index + 3 : index + 4] not in "=!":
                count += 1
                end = source.find(">", index)
                if end > 0:
                    names.add(source[index + 3 : end])
        index += 1
    return count, names


class _Translator:
    """One pass over a JS pattern, writing the Python pattern."""

    def __init__(self, source: str, flags: str) -> None:
        self.source = source
        self.pos = 0
        self.icase = "i" in flags
        self.multiline = "m" in flags
        self.dotall = "s" in flags
        self.unicode = "u" in flags
        self.groups, self.names = _scan_groups(source)

    def fail(self, message: str) -> ConfigError:
        return ConfigError(
            f"invalid JS regex /{self.source}/: {message} (at {self.pos})", field="pattern"
        )

    def peek(self, offset: int = 0) -> str:
        index = self.pos + offset
        return self.source[index] if index < len(self.source) else ""

    # ---- sets ----

    def chars(self, ranges: Ranges) -> str:
        if self.icase:
            ranges = case_closure(ranges, unicode=self.unicode)
        return _class_text(ranges)

    def word(self) -> Ranges:
        # with iu, WordCharacters adds the characters that fold into [A-Za-z0-9_]
        return case_closure(_WORD, unicode=True) if self.icase and self.unicode else _WORD

    def literal(self, cp: int) -> str:
        if self.icase:
            return _class_text(
                merge_ranges([(v, v) for v in case_variants(cp, unicode=self.unicode)])
            )
        return _class_text([(cp, cp)])

    def shorthand(self, letter: str) -> Ranges:
        base = {"d": _DIGIT, "w": self.word(), "s": _SPACE}[letter.lower()]
        return _complement(base) if letter.isupper() else base

    # ---- escapes shared by both contexts ----

    def hex_digits(self, count: int) -> int | None:
        text = self.source[self.pos : self.pos + count]
        if len(text) == count and all(c in _HEX for c in text):
            self.pos += count
            return int(text, 16)
        return None

    def unicode_escape(self) -> int | None:
        """After ``\\u``: the code point, or ``None`` (the caller decides what that means)."""
        if self.unicode and self.peek() == "{":
            end = self.source.find("}", self.pos)
            digits = self.source[self.pos + 1 : end] if end > 0 else ""
            if not digits or not all(c in _HEX for c in digits) or int(digits, 16) > _MAX:
                raise self.fail("invalid \\u{...} escape")
            self.pos = end + 1
            return int(digits, 16)
        cp = self.hex_digits(4)
        high_surrogate = cp is not None and 0xD800 <= cp <= 0xDBFF
        if high_surrogate and self.unicode and self.source.startswith("\\u", self.pos):
            assert cp is not None
            save = self.pos
            self.pos += 2
            low = self.hex_digits(4)
            if low is not None and 0xDC00 <= low <= 0xDFFF:
                return 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00)
            self.pos = save
        return cp

    def legacy_octal(self) -> int:
        """Annex B octal escape (the first digit is at ``pos``): up to three digits, <= 0o377."""
        digits = self.source[self.pos]
        self.pos += 1
        limit = 3 if digits in "0123" else 2
        while len(digits) < limit and self.peek() and self.peek() in _OCTAL:
            digits += self.peek()
            self.pos += 1
        return int(digits, 8)

    def character_escape(self, letter: str, *, in_class: bool) -> int:
        """The character a ``\\`` + ``letter`` escape stands for (``pos`` is after ``letter``)."""
        controls = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
        if letter in controls:
            return controls[letter]
        if letter == "c":
            following = self.peek()
            if following.isascii() and (
                following.isalpha()
                or (in_class and not self.unicode and following in "_0123456789")
            ):
                self.pos += 1
                return ord(following) % 32
            if self.unicode:
                raise self.fail("invalid \\c escape")
            self.pos -= 1  # Annex B: the backslash is itself; "c" is read next
            return ord("\\")
        if letter == "x":
            cp = self.hex_digits(2)
            if cp is not None:
                return cp
        elif letter == "u":
            found = self.unicode_escape()
            if found is not None:
                return found
        elif letter == "0" and not self.peek().isdigit():
            return 0
        elif letter in "pP" and self.unicode:
            raise self.fail("\\p{...} property escapes are not supported")
        if letter.isdigit():
            if self.unicode:
                raise self.fail("invalid escape")
            if letter in "89":
                return ord(letter)
            self.pos -= 1
            return self.legacy_octal()
        if self.unicode and letter not in _SYNTAX and not (in_class and letter == "-"):
            raise self.fail(f"invalid escape \\{letter}")
        return ord(letter)  # identity escape

    # ---- the two contexts ----

    def escape(self) -> tuple[str, bool]:
        """Read an escape outside a class (``pos`` at the backslash).

        Returns its Python text, and whether it can take a quantifier.
        """
        self.pos += 1
        letter = self.peek()
        if not letter:
            raise self.fail("\\ at end of pattern")
        self.pos += 1
        if letter in "dDwWsS":
            return self.chars(self.shorthand(letter)), True
        if letter in "bB":
            word = _class_text(self.word())
            if letter == "b":
                return f"(?:(?<={word})(?!{word})|(?<!{word})(?={word}))", False
            return f"(?:(?<={word})(?={word})|(?<!{word})(?!{word}))", False
        if letter in "123456789":
            start = self.pos - 1
            while self.peek().isdigit():
                self.pos += 1
            number = int(self.source[start : self.pos])
            if number <= self.groups:
                reference = f"\\{number}"
                return (f"(?i:{reference})" if self.icase else f"(?:{reference})"), True
            self.pos = start + 1
        if letter == "k" and (self.names or self.unicode):
            end = self.source.find(">", self.pos)
            if self.peek() != "<" or end < 0:
                raise self.fail("invalid named reference")
            name = self.source[self.pos + 1 : end]
            if name not in self.names:
                raise self.fail(f"no group named {name!r}")
            self.pos = end + 1
            return (f"(?i:(?P={name}))" if self.icase else f"(?P={name})"), True
        return self.literal(self.character_escape(letter, in_class=False)), True

    def class_atom(self) -> int | Ranges:
        """One class member (``pos`` at it): a code point, or a set for ``\\d`` and the like."""
        char = self.peek()
        self.pos += 1
        if char != "\\":
            return ord(char)
        letter = self.peek()
        if not letter:
            raise self.fail("\\ at end of pattern")
        self.pos += 1
        if letter in "dDwWsS":
            return self.shorthand(letter)
        if letter == "b":
            return 0x08
        if letter == "B" and self.unicode:
            raise self.fail("invalid class escape \\B")
        if letter == "k" and (self.names or self.unicode):
            raise self.fail("invalid class escape \\k")
        return self.character_escape(letter, in_class=True)

    def char_class(self) -> str:
        self.pos += 1  # [
        negate = self.peek() == "^"
        if negate:
            self.pos += 1
        members: Ranges = []
        while True:
            if not self.peek():
                raise self.fail("unterminated character class")
            if self.peek() == "]":
                self.pos += 1
                break
            first = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                last = self.class_atom()
                if isinstance(first, int) and isinstance(last, int):
                    if first > last:
                        raise self.fail("range out of order in character class")
                    members.append((first, last))
                    continue
                if self.unicode:
                    raise self.fail("invalid character class range")
                for atom in (first, ord("-"), last):  # Annex B: the dash is literal
                    members.extend([(atom, atom)] if isinstance(atom, int) else atom)
                continue
            members.extend([(first, first)] if isinstance(first, int) else first)
        ranges = merge_ranges(members)
        if self.icase:
            ranges = case_closure(ranges, unicode=self.unicode)
        return _class_text(_complement(ranges) if negate else ranges)

    def group_open(self) -> tuple[str, str]:
        """A group's opening (``pos`` at ``(``): its Python text and its kind."""
        rest = self.source[self.pos :]
        for opener, kind in (
            ("(?:", "group"),
            ("(?=", "lookahead"),
            ("(?!", "lookahead"),
            ("(?<=", "lookbehind"),
            ("(?<!", "lookbehind"),
        ):
            if rest.startswith(opener):
                self.pos += len(opener)
                return opener, kind
        if rest.startswith("(?<"):
            end = self.source.find(">", self.pos)
            name = self.source[self.pos + 3 : end] if end > 0 else ""
            if not name.isidentifier():
                raise self.fail(f"group name {name!r} is not supported (not an identifier)")
            self.pos = end + 1
            return f"(?P<{name}>", "capture"
        if rest.startswith("(?"):
            raise self.fail("invalid group")
        self.pos += 1
        return "(", "capture"

    def translate(self) -> str:
        out: list[str] = []
        open_groups: list[str] = []
        quantifiable = False
        while self.pos < len(self.source):
            char = self.peek()
            if char in "*+?" or (char == "{" and _QUANTIFIER.match(self.source, self.pos)):
                if not quantifiable:
                    raise self.fail("nothing to repeat")
                match = _QUANTIFIER.match(self.source, self.pos)
                text = match.group(0) if match else char
                self.pos += len(text)
                if self.peek() == "?":
                    text += "?"
                    self.pos += 1
                out.append(text)
                quantifiable = False
                continue
            if char == "\\":
                text, quantifiable = self.escape()
            elif char == "[":
                text, quantifiable = self.char_class(), True
            elif char == "(":
                text, kind = self.group_open()
                open_groups.append(kind)
                quantifiable = False
            elif char == ")":
                if not open_groups:
                    raise self.fail("unmatched )")
                kind = open_groups.pop()
                self.pos += 1
                text = ")"
                quantifiable = kind in ("group", "capture") or (
                    kind == "lookahead" and not self.unicode
                )
            elif char == "|":
                self.pos += 1
                text, quantifiable = "|", False
            elif char in "^$":
                self.pos += 1
                quantifiable = False
                if not self.multiline:
                    text = r"\A" if char == "^" else r"\Z"
                else:
                    lines = _class_text(_complement(_LINES))
                    text = f"(?<!{lines})" if char == "^" else f"(?!{lines})"
            elif char == ".":
                self.pos += 1
                text = self.chars([(0, _MAX)] if self.dotall else _complement(_LINES))
                quantifiable = True
            else:
                if self.unicode and char in "{}]":
                    raise self.fail(f"lone {char!r}")
                self.pos += 1
                text, quantifiable = self.literal(ord(char)), True
            out.append(text)
        if open_groups:
            raise self.fail("unterminated group")
        return "".join(out)


def _check_flags(flags: str) -> str:
    for flag in flags:
        if flag == "v":
            raise ConfigError("the JS regex flag 'v' is not supported", field="flags")
        if flag not in JS_FLAGS:
            raise ConfigError(f"unknown JS regex flag {flag!r}", field="flags")
    if len(set(flags)) != len(flags):
        raise ConfigError(f"JS regex flags {flags!r} repeat a flag", field="flags")
    return "".join(flag for flag in JS_FLAGS if flag in flags)


def translate_js_regex(source: str, flags: str = "") -> str:
    """Return the Python pattern text that matches what JS ``new RegExp(source, flags)`` does.

    Args:
        source: the JS pattern source (``regex.source``), e.g. ``"\\\\d{1,3}°[FC]"``.
        flags: JS flags, any of ``dgimsuy`` (the meanings are in the module docstring).

    Returns:
        A pattern for :func:`re.compile` with no flags.

    Raises:
        ConfigError: the source is not a valid JS pattern, uses an unsupported construct, or
            the flags are unknown, repeated or ``v``.

    Example:
        >>> translate_js_regex(r"\\d+$")
        '[0-9]+\\\\Z'
    """
    if not isinstance(source, str):
        raise ConfigError("a JS regex source must be a string", field="pattern")
    if not isinstance(flags, str):
        raise ConfigError("JS regex flags must be a string", field="flags")
    return _Translator(source, _check_flags(flags)).translate()


@functools.lru_cache(maxsize=256)
def _compiled(source: str, flags: str) -> re.Pattern[str]:
    text = translate_js_regex(source, flags)
    try:
        return re.compile(text)
    except (re.error, OverflowError, RecursionError) as exc:
        raise ConfigError(
            f"JS regex /{source}/{flags} is not supported: {exc}", field="pattern"
        ) from exc


def _display_source(source: str) -> str:
    # what JS RegExp.prototype.source shows: "/" escaped outside classes, line breaks escaped
    if not source:
        return "(?:)"
    out: list[str] = []
    in_class = False
    index = 0
    breaks = {"\n": "\\n", "\r": "\\r", "\u2028": "\\u2028", "\u2029": "\\u2029"}
    while index < len(source):
        char = source[index]
        if char == "\\" and index + 1 < len(source):
            following = source[index + 1]
            out.append("\\" + breaks[following][1:] if following in breaks else char + following)
            index += 2
            continue
        if char in breaks:
            out.append(breaks[char])
        elif char == "/" and not in_class:
            out.append("\\/")
        else:
            out.append(char)
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        index += 1
    return "".join(out)


@dataclass(frozen=True)
class JsRegex:
    """A JavaScript regular expression: its source and flags, compiled for Python on creation.

    Make one with :func:`js_regex`. It is plain data (it pickles, and a config can give it as
    ``{"source": ..., "flags": ...}``); ``str()`` shows it as JS does (``/\\d+/i``).

    Attributes:
        source: the JS pattern source.
        flags: the flags, in JS's canonical order.
    """

    source: str
    flags: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "flags", _check_flags(self.flags))
        _compiled(self.source, self.flags)  # raises ConfigError now, not at the first run

    @property
    def pattern(self) -> re.Pattern[str]:
        """The translated Python pattern."""
        return _compiled(self.source, self.flags)

    @property
    def sticky(self) -> bool:
        """Whether a match must start at the beginning of the text (flag ``y``)."""
        return "y" in self.flags

    def test(self, text: str) -> bool:
        """Return whether the regex matches somewhere in ``text`` (JS ``test`` from index 0)."""
        found = self.pattern.match(text) if self.sticky else self.pattern.search(text)
        return found is not None

    def test_whole(self, text: str) -> bool:
        """Return whether the regex matches the whole of ``text``."""
        return self.pattern.fullmatch(text) is not None

    def __str__(self) -> str:
        return f"/{_display_source(self.source)}/{self.flags}"


def js_regex(source: str, flags: str = "") -> JsRegex:
    """Return a JavaScript regex for :func:`scorekit.checks.matches`.

    Args:
        source: the JS pattern source, as written between the slashes of a JS literal (in a
            Python raw string: ``js_regex(r"\\d+ mm")`` for ``/\\d+ mm/``).
        flags: JS flags, any of ``d g i m s u y`` (meanings in the module docstring).

    Returns:
        The regex, already compiled.

    Raises:
        ConfigError: see :func:`translate_js_regex`.

    Example:
        >>> js_regex(r"\\d", "").test("気温は２２度です")  # JS \\d is ASCII only
        False
        >>> str(js_regex("sunny", "gi"))
        '/sunny/gi'
    """
    return JsRegex(source, flags)

"""Write a changed JSON card back in the layout its file already had.

Parsing is left to the C ``json`` module. Writing walks the new value beside
the source text: a member or item whose value did not change is copied from
the source byte for byte (odd spacing, inline arrays, ``\\uXXXX`` escapes and
all); only containers that changed are laid out again, in the style of the
container they replace (multi-line with its indentation, or inline with its
separators). New values follow the file's indentation unit, key separator,
line ending and escaping habit.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterator
from typing import Any

_DECODER = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")
_BLANKS = frozenset(" \t\n\r")
#: How much of a file the layout habits are read from: enough to see them, not a rescan of a large card.
_SAMPLE = 8192
# Strings written as runs of plain characters between escapes ("unrolled"): the same language as
# '"(?:[^"\\]|\\.)*"', without an alternation per character (this scan alone was 6% of a batch).
_KEY_SEPARATOR = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"([ \t]*:[ \t]*)')
_AFTER_QUOTE = re.compile(r'"([ \t]*:[ \t]*)')
_LIST_OF_STRINGS = re.compile(r'\[[ \t]*(\r?\n[ \t]*)?"')
#: A new list of strings goes on one line, in a file that writes them so, up to this width.
_INLINE_WIDTH = 80
# What json.dumps(text, ensure_ascii=...) does for a string, without building an encoder per call.
_ASCII_STRING, _STRING = json.encoder.encode_basestring_ascii, json.encoder.encode_basestring
_STRING_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def _same(old: Any, new: Any) -> bool:
    """Equal as JSON text: Python's ``==`` says ``1 == True`` and ignores key order."""
    if type(old) is not type(new) or old != new:
        return False
    return not isinstance(old, (dict, list)) or json.dumps(old) == json.dumps(new)


def _skip(src: str, pos: int) -> int:
    if src[pos:pos + 1] not in _BLANKS:  # no whitespace here (a key's colon, a value's comma): no regex
        return pos
    match = _WHITESPACE.match(src, pos)
    assert match is not None  # the pattern matches the empty string
    return match.end()


def object_members(src: str, start: int) -> Iterator[tuple[str, int, int, int]]:
    """Each member of the object whose ``{`` is at ``start``: its key, where the key starts,
    and where its value starts and ends. The renderer and :mod:`a2a_migrate.locate` read objects so."""
    pos = _skip(src, start + 1)
    while src[pos] == '"':
        key, key_end = _DECODER.raw_decode(src, pos)
        value_start = _skip(src, _skip(src, key_end) + 1)
        _, value_end = _DECODER.raw_decode(src, value_start)
        yield key, pos, value_start, value_end
        pos = _skip(src, value_end)
        if src[pos] != ",":
            return
        pos = _skip(src, pos + 1)


def array_items(src: str, start: int) -> Iterator[tuple[int, int]]:
    """Where each item of the array whose ``[`` is at ``start`` starts and ends."""
    pos = _skip(src, start + 1)
    if src[pos] == "]":
        return
    while True:
        _, end = _DECODER.raw_decode(src, pos)
        yield pos, end
        pos = _skip(src, end)
        if src[pos] != ",":
            return
        pos = _skip(src, pos + 1)


def document_start(src: str) -> int:
    """Where the top-level value of a JSON text starts (after leading whitespace)."""
    return _skip(src, 0)


class _Layout:
    """The whitespace habits of one source container."""

    def __init__(self, multiline: bool, member_indent: str, close_indent: str, inline_sep: str):
        self.multiline = multiline
        self.member_indent = member_indent
        self.close_indent = close_indent
        self.inline_sep = inline_sep


class JsonWriter:
    """Serialize new values of a card against the source text of the old one."""

    def __init__(self, src: str) -> None:
        self.src = src
        self.newline = "\r\n" if "\r\n" in src else "\n"
        self.unit = _indent_unit(src)
        self.ensure_ascii = _escapes_non_ascii(src)
        self._raw_strings: dict[str, str] | None = None

    # Habits only new members and new lists need: read from the source on first use.

    @functools.cached_property
    def colon(self) -> str:
        """How the file writes ``:`` between a key and its value."""
        return _key_separator(self.src)

    @functools.cached_property
    def inline_scalar_lists(self) -> bool:
        """Whether the file writes its lists of strings on one line."""
        return _writes_scalar_lists_inline(self.src)

    # -- entry point -----------------------------------------------------

    def render(self, old: Any, new: Any) -> str:
        """The whole document: leading and trailing whitespace kept as written."""
        start = _skip(self.src, 0)
        _, end = _DECODER.raw_decode(self.src, start)
        return self.src[:start] + self.value(old, start, new, "") + self.src[end:]

    # -- values that have a source ---------------------------------------

    def value(self, old: Any, start: int, new: Any, indent: str, inline: bool = False, end: int = -1) -> str:
        """Text for ``new``, whose previous value ``old`` starts at ``start`` (and ends at ``end``, if known).

        A container's walk has found where each member ends already: passing
        it on saves a second parse of every unchanged value.
        """
        if _same(old, new):
            if end < 0:
                _, end = _DECODER.raw_decode(self.src, start)
            return self.src[start:end]
        if isinstance(old, dict) and isinstance(new, dict) and old:
            return self._object(old, start, new, indent)
        if isinstance(old, list) and isinstance(new, list) and old:
            return self._array(old, start, new, indent)
        return self.fresh(new, indent, inline or self._is_one_line_container(start))

    def _object(self, old: dict[str, Any], start: int, new: dict[str, Any], indent: str) -> str:
        members: dict[str, tuple[str, int, int]] = {}
        leading: dict[str, str] = {}
        gap_start = start + 1
        separator = ""
        for key, key_start, value_start, value_end in object_members(self.src, start):
            members[key] = (self.src[key_start:value_start], value_start, value_end)
            leading[key] = self.src[gap_start:key_start]
            if not separator and gap_start > start + 1:
                separator = leading[key]
            gap_start = _skip(self.src, value_end) + 1  # past the comma (or the closing brace)
        layout = self._layout(start, _skip(self.src, start + 1), gap_start - 1, separator, indent)
        replaced = self._replacements(members, new)
        opening = next(iter(leading.values()))
        parts: list[tuple[str | None, str]] = []
        for key, value in new.items():
            if key in members:
                key_and_colon, value_start, value_end = members[key]
                text = self.value(old[key], value_start, value, layout.member_indent, not layout.multiline, value_end)
                parts.append((leading[key], key_and_colon + text))
            else:
                stood = replaced.get(key)  # a new member keeps the blank lines of the one it replaces
                one_line = stood is not None and self._is_one_line_container(members[stood][1])
                text = self.fresh(value, layout.member_indent, inline=not layout.multiline or one_line)
                parts.append((leading.get(stood) if stood else None, self.string(key) + self.colon + text))
        return self._wrap("{", _reopened(parts, opening), "}", layout)

    def _replacements(self, members: dict[str, tuple[str, int, int]], new: dict[str, Any]) -> dict[str, str]:
        """New keys, and the removed member whose place each takes.

        A transform puts a new member where the member it replaces stood, so
        the removed member right after the new one's predecessor is the one it
        replaces: ``"security": [{"k": []}]`` makes ``securityRequirements``
        one line too, and ``supportedInterfaces`` keeps the blank line ``url`` had.
        """
        old_keys = list(members)
        found: dict[str, str] = {}
        previous = -1
        for key in new:
            if key in members:
                previous = old_keys.index(key)
                continue
            following = old_keys[previous + 1] if previous + 1 < len(old_keys) else None
            if following is not None and following not in new:
                found[key] = following
                previous += 1  # the next new key replaces the member after this one
        return found

    def _is_one_line_container(self, start: int) -> bool:
        if self.src[start] not in "[{":
            return False
        value, end = _DECODER.raw_decode(self.src, start)
        return bool(value) and "\n" not in self.src[start:end]  # "[]" shows no style

    def _array(self, old: list[Any], start: int, new: list[Any], indent: str) -> str:
        starts: list[int] = []
        ends: list[int] = []
        leading: list[str] = []
        gap_start = start + 1
        separator = ""
        for item_start, item_end in array_items(self.src, start):
            starts.append(item_start)
            ends.append(item_end)
            leading.append(self.src[gap_start:item_start])
            if not separator and gap_start > start + 1:
                separator = leading[-1]
            gap_start = _skip(self.src, item_end) + 1  # past the comma (or the closing bracket)
        layout = self._layout(start, starts[0], gap_start - 1, separator, indent)
        parts: list[tuple[str | None, str]] = []
        for index, value in enumerate(new):
            if index < len(old):
                parts.append((leading[index], self.value(old[index], starts[index], value, layout.member_indent,
                                                         not layout.multiline, ends[index])))
            else:
                parts.append((None, self.fresh(value, layout.member_indent, inline=not layout.multiline)))
        return self._wrap("[", _reopened(parts, leading[0]), "]", layout)

    def _layout(self, start: int, first: int, close: int, separator: str, indent: str) -> _Layout:
        leading = self.src[start + 1 : first]
        if "\n" in leading:
            member_indent = leading.rsplit("\n", 1)[1]
            closing = self.src[: close]
            close_indent = closing[closing.rfind("\n") + 1 :] if closing.rstrip(" \t").endswith(
                ("\n", "\r")
            ) else indent
            return _Layout(True, member_indent, close_indent, "")
        return _Layout(False, indent + (self.unit or ""), indent, separator or (" " if self.unit is not None else ""))

    def _wrap(self, open_: str, parts: list[tuple[str | None, str]], close: str, layout: _Layout) -> str:
        """Join members, each after the whitespace it had in the source (new ones: the layout's)."""
        if not parts:
            return open_ + close
        if layout.multiline:
            standard = self.newline + layout.member_indent
            body = ",".join((standard if gap is None else gap) + text for gap, text in parts)
            return open_ + body + self.newline + layout.close_indent + close
        first = parts[0][0] or ""
        rest = [(layout.inline_sep if gap is None else gap) + text for gap, text in parts[1:]]
        return open_ + first + ",".join([parts[0][1], *rest]) + close

    # -- values without a source -----------------------------------------

    def fresh(self, value: Any, indent: str, inline: bool = False) -> str:
        """Lay out a new value in the file's own style (on one line inside a one-line container)."""
        if isinstance(value, dict):
            parts = [self.string(k) + self.colon + self.fresh(v, self._deeper(indent), inline) for k, v in value.items()]
            return self._fresh_wrap("{", parts, "}", indent, inline)
        if isinstance(value, list):
            parts = [self.fresh(v, self._deeper(indent), inline) for v in value]
            short_scalars = (self.inline_scalar_lists and not any(isinstance(v, (dict, list)) for v in value)
                             and sum(len(part) + 2 for part in parts) <= _INLINE_WIDTH)
            return self._fresh_wrap("[", parts, "]", indent, inline or short_scalars)
        if isinstance(value, str):
            return self.string(value)
        return json.dumps(value)

    def _deeper(self, indent: str) -> str:
        return indent + (self.unit or "")

    def _fresh_wrap(self, open_: str, parts: list[str], close: str, indent: str, inline: bool) -> str:
        if not parts:
            return open_ + close
        if self.unit is None:
            return open_ + ",".join(parts) + close
        if inline:
            return open_ + ", ".join(parts) + close
        inner = self.newline + self._deeper(indent)
        return open_ + inner + ("," + inner).join(parts) + self.newline + indent + close

    def string(self, text: str) -> str:
        """A string as the source wrote it, if it did; else in the file's escaping habit."""
        spelled = (_ASCII_STRING if self.ensure_ascii else _STRING)(text)
        if (text.isascii() and "\\" not in spelled) or spelled in self.src:
            return spelled  # nothing to spell differently, or spelled the way the file does
        if self._raw_strings is None:
            self._raw_strings = {}
            for match in _STRING_TOKEN.finditer(self.src):
                raw = match.group(0)
                if "\\" in raw:  # only escaped spellings can differ from json.dumps
                    self._raw_strings.setdefault(json.loads(raw), raw)
        return self._raw_strings.get(text, spelled)


def _reopened(parts: list[tuple[str | None, str]], opening: str) -> list[tuple[str | None, str]]:
    """The first part takes the container's opening whitespace; the part that had it, if
    now later, takes the layout's separator instead (``{"id": ..., "name": ...}``)."""
    if not parts:
        return parts
    rest = [(None if gap == opening else gap, text) for gap, text in parts[1:]]
    return [(opening, parts[0][1]), *rest]


def _writes_scalar_lists_inline(src: str) -> bool:
    """True when the file writes its lists of strings on one line (``"tags": ["a", "b"]``)."""
    openings = _LIST_OF_STRINGS.findall(src, 0, _SAMPLE)  # "" for "[\"", a line break for "[\n  \""
    return sum(not gap for gap in openings) > sum(bool(gap) for gap in openings)


def _indent_unit(src: str) -> str | None:
    """The indentation of the first nested line, or None for a one-line file."""
    match = re.search(r"[\[{][ \t]*\r?\n([ \t]+)\S", src)
    if match:
        return match.group(1)
    return "  " if "\n" in src.strip() else None


def _key_separator(src: str) -> str:
    """The most common spelling of ``:`` between a key and its value (in the first part of the file).

    Any quote followed by a colon is a cheap superset of the key separators:
    when it finds one spelling only (a file written by one tool), that is the
    answer, and the exact scan of every string token is left for mixed files.
    """
    quick = set(_AFTER_QUOTE.findall(src, 0, _SAMPLE))
    if len(quick) <= 1:
        return quick.pop() if quick else ": "
    found = _KEY_SEPARATOR.findall(src, 0, _SAMPLE)
    return max(set(found), key=found.count) if found else ": "


def _escapes_non_ascii(src: str) -> bool:
    """True when the file spells non-ASCII text as ``\\uXXXX`` and never raw."""
    return src.isascii() and re.search(r"\\u00[89a-fA-F][0-9a-fA-F]|\\u0[1-9a-fA-F]|\\u[1-9a-fA-F]", src) is not None


def render(src: str, old: Any, new: Any) -> str:
    """Text of ``new`` laid out like ``src``, whose parsed value is ``old``."""
    if _same(old, new):
        return src
    return JsonWriter(src).render(old, new)

"""Line and column of a JSON pointer in a card's input text (issue 14).

An editor, GitHub or a linter front end jumps to ``PATH:LINE:COL``; notes and
findings name a JSON pointer. :class:`Locator` maps one to the other for one
card, 1-based, at the start of the member's key (for a member) or of the item
(for an array item); the root is where the document's value starts.

Places are always in the input text. A pointer the input does not have (a note
about a member the migration added, or one at its new place) maps to its
nearest ancestor the input has: ``/supportedInterfaces/0/url`` of an upgraded
0.3 card is at the top-level object. Columns count characters (Unicode code
points), not bytes; a BOM is no column; ``\\r\\n``, ``\\r`` and ``\\n`` each end
a line.

JSON is scanned lazily, only along the pointers asked for (each object or
array on the way read once, in C, and remembered). YAML needs no scan: ruamel
recorded every key's and item's position when it parsed the card, and
:mod:`a2a_migrate.yamltext` kept each loaded collection by its path, so places
are found even after a migration moved or replaced values.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from a2a_migrate import io, jsontext, pointer
from a2a_migrate.context import Note

#: A place in a text: 1-based line and column.
Place = tuple[int, int]
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Locator:
    """Maps JSON pointers to places in one card's input text; see the module docstring."""

    def __init__(self, document: io.Document) -> None:
        self._document = document
        self._body = document.text[1:] if document.bom else document.text
        self._line_starts: list[int] | None = None
        # Each object and array on the way to a place, read only as far as a place asked for so far:
        # "{" offset -> (key -> (key, value) offsets, the rest); "[" offset -> (item offsets, the rest).
        self._objects: dict[int, tuple[dict[str, tuple[int, int]], Iterator[tuple[str, int, int, int]]]] = {}
        self._arrays: dict[int, tuple[list[int], Iterator[tuple[int, int]]]] = {}

    def place(self, where: str) -> Place:
        """The line and column of ``where`` (a JSON pointer), or of its nearest ancestor in the input."""
        try:
            tokens = pointer.split(where)
        except ValueError:  # not a pointer (a plan edited by hand): the document as a whole
            tokens = []
        if self._document.format == "yaml":
            return _yaml_place(self._document, tokens)
        return self._line_column(self._json_offset(tokens))

    # -- JSON -------------------------------------------------------------

    def _json_offset(self, tokens: Sequence[str]) -> int:
        """The offset of the deepest place along ``tokens`` that the text has."""
        src = self._body
        place = value = jsontext.document_start(src)
        for token in tokens:
            found: tuple[int, int] | None = None
            if src[value] == "{":
                found = self._member(value, token)
            elif src[value] == "[" and token.isdigit():
                found = self._item(value, int(token))
            if found is None:
                break
            place, value = found
        return place

    def _member(self, start: int, key: str) -> tuple[int, int] | None:
        """Where the member ``key`` of the object at ``start`` and its value start, if it has one."""
        entry = self._objects.get(start)
        if entry is None:
            entry = self._objects[start] = ({}, jsontext.object_members(self._body, start))
        known, rest = entry
        if key not in known:
            for name, key_start, value_start, _ in rest:
                known[name] = (key_start, value_start)
                if name == key:
                    break
        return known.get(key)

    def _item(self, start: int, index: int) -> tuple[int, int] | None:
        """Where item ``index`` of the array at ``start`` starts (twice: an item's place is its value's)."""
        entry = self._arrays.get(start)
        if entry is None:
            entry = self._arrays[start] = ([], jsontext.array_items(self._body, start))
        known, rest = entry
        if index >= len(known):
            for item_start, _ in rest:
                known.append(item_start)
                if index < len(known):
                    break
        return (known[index], known[index]) if index < len(known) else None

    def _line_column(self, offset: int) -> Place:
        body = self._body
        if "\r" not in body:  # the common case, counted in C without a table of lines
            return body.count("\n", 0, offset) + 1, offset - body.rfind("\n", 0, offset)
        if self._line_starts is None:  # once per card: "\r\n" and a lone "\r" end lines too
            self._line_starts = [0, *(match.end() for match in _LINE_BREAK.finditer(body))]
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1


def _yaml_place(document: io.Document, tokens: Sequence[str]) -> Place:
    """The place along ``tokens`` from ruamel's positions of the collections as loaded."""
    nodes: dict[tuple[Any, ...], Any] = document.yaml_styles.nodes  # io.parse keeps them for every YAML card
    node = nodes[()]
    line, column = node.lc.line, node.lc.col
    path: tuple[Any, ...] = ()
    for token in tokens:
        key = _yaml_key(node, token)
        if key is None:
            break
        line, column = node.lc.data[key][:2]
        path = (*path, key)
        node = nodes.get(path)
        if node is None:  # a scalar: nothing below it
            break
    return line + 1, column + 1  # ruamel counts from 0


def _yaml_key(node: Any, token: str) -> Any:
    """The key or index of ``node`` that ``token`` names, if the source had it (None otherwise)."""
    positions = getattr(getattr(node, "lc", None), "data", None)
    if not positions:
        return None
    if isinstance(node, list):
        return int(token) if token.isdigit() and int(token) in positions else None
    if token in positions:
        return token
    # A key that is no string in YAML (200:, true:) is a string in the card's JSON value.
    return next((key for key in positions if not isinstance(key, str) and _json_key(key) == token), None)


def _json_key(key: Any) -> str:
    return str(next(iter(io.to_plain({key: 0}))))


def located(document: io.Document, notes: Iterable[Note], severities: Iterable[str] | None = None) -> list[Note]:
    """``notes`` with their line and column in ``document`` (only those of ``severities``, if given)."""
    chosen = None if severities is None else frozenset(severities)
    locator = Locator(document)
    out = []
    for note in notes:
        if note.line is None and (chosen is None or note.severity in chosen):
            line, column = locator.place(note.pointer)
            note = note.at(line, column)
        out.append(note)
    return out

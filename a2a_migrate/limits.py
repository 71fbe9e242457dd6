"""Limits against hostile input: how deep, how large and which numbers a card may hold.

A card is data from anywhere. Whatever a file holds, reading it must end in a
parsed card or a one-line :class:`LimitError` naming the place, within a
bounded time and memory, so that a batch reports that card and goes on:

* nesting deeper than :data:`MAX_DEPTH` levels is refused before any
  recursive code (ruamel's composer and constructor, ``copy.deepcopy``,
  ``jsonpatch``, the validator, ruamel's dumper) sees it: those use a few
  Python frames per level against a limit of 1000;
* a YAML card may hold at most :data:`MAX_YAML_NODES` nodes, and aliases may
  add at most :data:`MAX_ALIAS_NODES` nodes by expansion
  (a "billion laughs" card is a few hundred bytes that expand to 10^9 nodes),
  and an alias inside its own anchor (a cycle) is refused;
* numbers JSON cannot carry (``NaN``, ``Infinity``, YAML's ``.nan``/``.inf``,
  and floats out of range such as ``1e400``, which Python reads as infinity)
  are refused: they are not JSON, and written back they would not be either.

The JSON checks cost next to nothing on ordinary cards: the depth scan runs
only when the text holds more brackets than the limit, and the number hooks run
only for floats and the non-standard constants.
"""

from __future__ import annotations

import itertools
import math
import re
import sys
from typing import Any, NoReturn

#: Containers (objects, arrays) nested deeper than this are refused. Real cards nest
#: about a dozen levels. The deepest-recursing code a card meets, ruamel's YAML
#: constructor, takes 4 Python frames per level: 128 levels leave about half of
#: Python's default limit of 1000 frames to whoever calls us (224 is the most the
#: whole suite of commands survived under pytest; 256 crashed the constructor).
MAX_DEPTH = 128
#: Nodes that YAML aliases may add by expansion, over the card's own nodes.
MAX_ALIAS_NODES = 10_000
#: Nodes (scalars and collections) a YAML card may hold. ruamel reads some thousands of
#: nodes a second and a migration reads and writes each several times: a card of a few
#: hundred nodes takes milliseconds, a 10 MB one (a million nodes) minutes and a gigabyte.
#: JSON, read in C, has no such limit.
MAX_YAML_NODES = 10_000

#: A JSON string token (the unrolled form: one alternation per string is what made it slow).
JSON_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'
_JSON_TOKEN = re.compile(JSON_STRING + r"|[\[\]{}]", re.DOTALL)
_ESCAPE = re.compile(r"\\.", re.DOTALL)
_FLOAT_TAG = "tag:yaml.org,2002:float"
#: YAML text as far as flow brackets go: quoted scalars and comments (which start only
#: after a blank, a flow indicator or a line start) hide their brackets.
_YAML_TOKEN = re.compile(r"""(?:(?<=[\s\[{,:?-])|^)(?:'(?:[^']|'')*'|"(?:[^"\\]|\\.)*")|(?:(?<=\s)|^)#[^\n]*|[\[\]{}]""",
                         re.MULTILINE)
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}
_BRACKET_STEP = {ord(bracket): step for bracket, step in _STEP.items()}
_NOT_SYNTAX_BYTES = bytes(byte for byte in range(256) if byte not in _BRACKET_STEP and byte != ord('"'))


class LimitError(ValueError):
    """Input refused by a limit; the message names the place (``line L column C: ...``)."""


def place(text: str, offset: int) -> str:
    """``line L column C`` (both from 1) of a character offset in ``text``."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line} column {column}"


def too_deep(where: str) -> LimitError:
    """The error for nesting deeper than :data:`MAX_DEPTH`, at ``where``."""
    return LimitError(f"{where}: nesting deeper than {MAX_DEPTH} levels")


# -- JSON ----------------------------------------------------------------------------


def check_json_depth(text: str) -> None:
    """Refuse parsed JSON text nested deeper than :data:`MAX_DEPTH`, before any recursive code sees it.

    Call it on text ``json`` parsed. Fewer brackets than the limit cannot
    nest deeper (the usual card: two ``str.count`` calls). Otherwise, in C
    passes: escapes are dropped and all but quotes and brackets deleted, so
    that (the JSON being valid) every other ``"``-split piece is outside
    strings; the depth is the running sum of its brackets. The place is looked
    up only for a card that is refused.
    """
    if text.count("[") + text.count("{") <= MAX_DEPTH:
        return
    unescaped = _ESCAPE.sub("", text) if "\\" in text else text
    quotes_and_brackets = unescaped.encode("utf-8", "surrogatepass").translate(None, _NOT_SYNTAX_BYTES)
    brackets = b"".join(quotes_and_brackets.split(b'"')[::2])
    if max(itertools.accumulate(map(_BRACKET_STEP.__getitem__, brackets)), default=0) <= MAX_DEPTH:
        return
    _scan_depth(text, _JSON_TOKEN)


def json_depth_error(text: str) -> LimitError:
    """The error for JSON text too deep for ``json`` itself (it raised RecursionError).

    The scan stops at the first bracket past the limit, which ``json`` had
    read: the text before it is valid, so this is linear too.
    """
    try:
        _scan_depth(text, _JSON_TOKEN)
    except LimitError as error:
        return error
    return LimitError(f"nesting deeper than {MAX_DEPTH} levels")


def check_yaml_depth(text: str) -> None:
    """Refuse YAML text whose flow collections (``[[[...]]]``) nest deeper than :data:`MAX_DEPTH`.

    The composer refuses deep nesting too (block nesting included), but
    ruamel's scanner looks ahead through a run of ``[`` at a cost that grows
    with the square of its length: a megabyte of them would take hours before
    the composer saw the first node. Nesting in block style costs a line per
    level and is left to the composer.
    """
    if text.count("[") + text.count("{") > MAX_DEPTH:
        _scan_depth(text, _YAML_TOKEN)


def _scan_depth(text: str, tokens: re.Pattern[str]) -> None:
    depth = 0
    for token in tokens.finditer(text):
        depth += _STEP.get(token.group(), 0)
        if depth > MAX_DEPTH:
            raise too_deep(place(text, token.start()))


class NonStandardNumber(ValueError):
    """Raised from inside ``json.loads``: a number JSON does not allow, as spelled."""

    def __init__(self, spelling: str) -> None:
        super().__init__(spelling)
        self.spelling = spelling


def refuse_constant(spelling: str) -> NoReturn:
    """``parse_constant`` hook: ``NaN``, ``Infinity`` and ``-Infinity`` are not JSON."""
    raise NonStandardNumber(spelling)


def finite_float(spelling: str) -> float:
    """``parse_float`` hook: a float out of range (``1e400``) would be read as infinity."""
    value = float(spelling)
    if math.isinf(value):
        raise NonStandardNumber(spelling)
    return value


def number_error(text: str, spelling: str, problem: str) -> LimitError:
    """A refused number, at its first place outside strings in ``text``."""
    pattern = re.compile(r'"(?:[^"\\]|\\.)*"|(?<![\w.+-])' + re.escape(spelling) + r"(?![\w.+-])", re.DOTALL)
    found = next((m for m in pattern.finditer(text) if not m.group().startswith('"')), None)
    where = place(text, found.start()) + ": " if found else ""
    return LimitError(f"{where}{problem}")


def long_number_error(text: str) -> LimitError:
    """A number of more digits than Python converts (``sys.get_int_max_str_digits``), at its place."""
    digits = getattr(sys, "get_int_max_str_digits", lambda: 4300)()  # Python 3.10.7 and later
    found = re.search(r"\d{%d,}" % (digits + 1), text)
    where = place(text, found.start()) + ": " if found else ""
    return LimitError(f"{where}a number of more than {digits} digits")


def describe_number(spelling: str) -> str:
    """Why a number is refused: ``NaN``/``Infinity`` (YAML ``.nan``/``.inf``), or out of range."""
    if spelling.lstrip("+-").lower() in ("nan", "infinity", ".nan", ".inf"):
        return f"{spelling} is not a JSON number"
    return f"the number {spelling} is out of range (it would be read as infinity)"


# -- YAML ----------------------------------------------------------------------------


def limited_composer(base: Any) -> Any:
    """A subclass of ruamel's ``Composer`` that enforces the limits while composing.

    The composer is where depth, aliases and scalar tags are all known with
    their marks, and it runs before the constructor builds any Python value, so
    a refused card costs only the nodes read up to the place of refusal.
    """

    class LimitedComposer(base):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.containers = 0  # collections open around the node being composed
            self.anchored = 0  # anchored nodes open around it: their sizes will be wanted
            self.alias_nodes = 0
            self.nodes = 0
            self.measured: dict[int, tuple[int, int]] = {}

        def compose_node(self, parent: Any, index: Any) -> Any:
            from ruamel.yaml.events import AliasEvent, CollectionStartEvent

            event = self.parser.peek_event()
            self.nodes += 1
            if self.nodes > MAX_YAML_NODES:
                raise LimitError(f"{mark_place(event.start_mark)}: more than {MAX_YAML_NODES} YAML nodes: too large a card")
            if isinstance(event, AliasEvent):
                target = self.anchors.get(event.anchor)
                if target is not None:
                    self._expand(target, event.start_mark)
                return super().compose_node(parent, index)
            if not isinstance(event, CollectionStartEvent):
                return super().compose_node(parent, index)
            if self.containers >= MAX_DEPTH:
                raise too_deep(mark_place(event.start_mark))
            measure = self.anchored > 0 or event.anchor is not None
            self.containers += 1
            self.anchored += measure
            try:
                node = super().compose_node(parent, index)
            finally:
                self.containers -= 1
                self.anchored -= measure
            if measure:
                self.measured[id(node)] = self._measure(node)
            return node

        def compose_scalar_node(self, anchor: Any) -> Any:
            node = super().compose_scalar_node(anchor)
            if node.tag == _FLOAT_TAG and not _finite_yaml_float(node.value):
                raise LimitError(f"{mark_place(node.start_mark)}: {describe_number(node.value)}")
            return node

        def _expand(self, target: Any, mark: Any) -> None:
            """Count what an alias adds; refuse cycles, depth and a blown budget."""
            if target.end_mark is None:  # still being composed: the alias is inside its anchor
                raise LimitError(f"{mark_place(mark)}: a YAML alias inside its own anchor (the card would be infinite)")
            size, height = self.measured.get(id(target), (1, 0))
            if self.containers + height > MAX_DEPTH:
                raise too_deep(mark_place(mark))
            self.alias_nodes += size
            if self.alias_nodes > MAX_ALIAS_NODES:
                raise LimitError(f"{mark_place(mark)}: YAML aliases expand to more than {MAX_ALIAS_NODES} nodes")

        def _measure(self, node: Any) -> tuple[int, int]:
            """``(nodes, container height)`` of a composed collection, aliases expanded.

            Its child collections were measured when they were composed (or are
            anchors, measured then), so this looks one level down only: no recursion.
            """
            children = [child for pair in node.value for child in pair] if node.id == "mapping" else node.value
            sizes = [self.measured.get(id(child), (1, 0)) for child in children]
            return 1 + sum(size for size, _ in sizes), 1 + max((height for _, height in sizes), default=0)

    return LimitedComposer


def _finite_yaml_float(value: str) -> bool:
    try:
        return math.isfinite(float(value.replace("_", "")))
    except ValueError:  # .nan, .inf and their spellings, or a sexagesimal 1:30.5 (YAML 1.1)
        return value.lstrip("+-").lower() not in (".nan", ".inf")


def mark_place(mark: Any) -> str:
    """``line L column C`` of a ruamel mark (0-based inside): the one spelling of a place in the text."""
    return f"line {mark.line + 1} column {mark.column + 1}"

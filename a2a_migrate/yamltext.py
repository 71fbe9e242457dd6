"""Read a YAML card and write it back in the layout its file had.

ruamel.yaml (round-trip mode) keeps comments, quoting and key order; this
module adds what it does not keep on its own:

* the text around the document (comments and directives such as
  ``%YAML 1.2`` before ``---``, and the ``...`` end marker with what follows
  it) is copied from the source, byte for byte;
* anchors and aliases are written only where the input had them: a value the
  migration put in two places is written out twice, so editing one place of
  the output never changes the other;
* a new mapping or sequence is written in flow style (``{a: 1}``) when it
  stands where a flow-style one stood, or is a value the input wrote in flow
  style and the migration moved, whether a transform or a reviewed patch
  (whose values are plain) put it there;
* the indentation follows the source's.

Reading goes through :mod:`a2a_migrate.limits`, which refuses deep nesting,
alias bombs and non-JSON numbers.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from a2a_migrate import limits

_DOCUMENT_END = re.compile(r"^\.\.\.", re.MULTILINE)
_MARKER_LINE = re.compile(r"(---|\.\.\.)([ \t]+#[^\r\n]*)?[ \t]*(\r?\n|$)")


class YamlError(ValueError):
    """Text that is not a YAML card; the message names the place."""


@dataclass(frozen=True)
class Frame:
    """Where the document's body lies in the source: ``source[start:end]``.

    Before ``start``: comments and directives up to and including a ``---``
    line; from ``end``: a ``...`` line and the comments after it. Both are
    copied verbatim; ``loadable`` is the source with comments on those marker
    lines blanked, so that ruamel does not move them into the body.
    """

    start: int
    end: int
    loadable: str


def frame(source: str) -> Frame:
    """Find the document's body between its directives and ``---`` and its ``...``."""
    start, loadable = _prologue_end(source), source
    end = len(source)
    found = _DOCUMENT_END.search(source, start)
    marker = _MARKER_LINE.match(source, found.start()) if found else None
    if marker is not None:
        end = marker.start()
        loadable = _blank_comment(loadable, marker)
    if start:
        marker = _MARKER_LINE.match(source, _last_line_start(source, start))
        if marker is not None:
            loadable = _blank_comment(loadable, marker)
    return Frame(start, end, loadable)


def _prologue_end(source: str) -> int:
    """The offset just after a ``---`` line preceded only by comments, directives and blank lines; else 0."""
    for offset in _line_starts(source, 0):
        line = source[offset:source.find("\n", offset) + 1 or len(source)]
        if line.startswith("---"):
            marker = _MARKER_LINE.match(source, offset)
            return marker.end() if marker is not None else 0
        if line.strip() and not line.lstrip().startswith(("#", "%")):
            return 0
    return 0


def _line_starts(source: str, start: int) -> Iterator[int]:
    offset = start
    while offset < len(source):
        yield offset
        newline = source.find("\n", offset)
        if newline < 0:
            return
        offset = newline + 1


def _last_line_start(source: str, end: int) -> int:
    return source.rfind("\n", 0, end - 1) + 1


def _blank_comment(text: str, marker: re.Match[str]) -> str:
    if marker.group(2) is None:
        return text
    start, end = marker.span(2)
    return text[:start] + " " * (end - start) + text[end:]


def _yaml() -> Any:
    from ruamel.yaml import YAML
    from ruamel.yaml.composer import Composer
    from ruamel.yaml.representer import RoundTripRepresenter

    yaml = YAML(typ="rt")
    yaml.Composer = limits.limited_composer(Composer)
    yaml.Representer = _representer(RoundTripRepresenter)
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap long lines the author kept on one line
    return yaml


def _representer(base: Any) -> Any:
    class InputAnchorsOnly(base):
        """Writes an alias only for a value that had an anchor in the input.

        ruamel writes ``&id001`` ... ``*id001`` for any object met twice; a
        migration that put one object in two places means two values.
        """

        def ignore_aliases(self, data: Any) -> bool:
            anchor = getattr(data, "anchor", None)
            return getattr(anchor, "value", None) is None

    return InputAnchorsOnly


def load(text: str) -> Any:
    """Parse YAML text into ruamel's round-trip values; raises :class:`YamlError` or :class:`limits.LimitError`."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    limits.check_yaml_depth(text)
    try:
        return _yaml().load(frame(text).loadable)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"{limits.mark_place(mark)}: " if mark else ""
        raise YamlError(f"{where}not valid YAML: {error.problem or error.context}") from None
    except YAMLError as error:
        raise YamlError(f"not valid YAML: {error}") from None


def dump(data: Any, source: str, styles: Any = None) -> str:
    """``data`` as YAML text laid out like ``source`` (see the module docstring).

    ``styles`` are :func:`styles` of the source as it was parsed; without them
    the source is parsed again to find them, which doubles a YAML card's cost.
    """
    framed = frame(source)
    _restyle(data, styles if styles is not None else _Styles(load(source)))
    yaml = _yaml()
    yaml.indent(**dict(zip(("mapping", "sequence", "offset"), _indents(source))))
    yaml.explicit_start = not framed.start and source.lstrip().startswith("---")  # "--- {name: x}": no frame
    stream = io.StringIO()
    yaml.dump(data, stream)
    text = stream.getvalue()
    if "\r\n" in source:
        text = text.replace("\n", "\r\n")
    epilogue = source[framed.end:]
    if not epilogue and not source.endswith(("\n", "\r")):
        text = text.rstrip("\r\n")
    return source[:framed.start] + text + epilogue


def styles(source: Any) -> Any:
    """The styles :func:`dump` keeps, read from values just loaded (before anything changes them)."""
    return _Styles(source)


class _Styles:
    """The flow styles of the source's collections, by path and by value; and ``nodes``, each
    collection as loaded by its path, whose ruamel positions (``.lc``) say where its members were
    in the source even after a migration moved or replaced them (:mod:`a2a_migrate.locate`)."""

    def __init__(self, source: Any) -> None:
        self.by_path: dict[tuple[Any, ...], bool] = {}
        self.nodes: dict[tuple[Any, ...], Any] = {}
        self.flow_values: set[str] = set()
        self.quoted: dict[str, Any] = {}  # text -> the quoted scalar the source wrote it as
        for path, value in _collections(source):
            self.nodes[path] = value  # a reference, no copy: what a migration changes is the tree, not .lc
            flow = bool(value.fa.flow_style()) or not value  # ruamel gives "[]" no style: it can only be flow
            self.by_path[path] = flow
            if flow:
                self.flow_values.add(_key(value))
            for item in value.values() if isinstance(value, dict) else value:
                if isinstance(item, str) and type(item) is not str:
                    self.quoted.setdefault(str(item), item)

    def flow(self, path: tuple[Any, ...], value: Any) -> bool:
        """A new collection at ``path`` is flow when the one there was, or it is a moved flow value."""
        return self.by_path.get(path) or (bool(self.flow_values) and _key(value) in self.flow_values)


def _key(value: Any) -> str:
    return json.dumps(value, default=str)


def _collections(root: Any) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every mapping and sequence under ``root`` with its path, parents first, without recursion."""
    stack: list[tuple[tuple[Any, ...], Any]] = [((), root)]
    while stack:
        path, value = stack.pop()
        yield path, value
        items = value.items() if isinstance(value, dict) else enumerate(value)
        stack.extend(((*path, key), child) for key, child in items if isinstance(child, (dict, list)))


def _restyle(root: Any, styles: _Styles) -> None:
    """Give new collections the flow style of the one they replace or the value they moved from.

    A plain collection comes from a reviewed patch, whose values are JSON: its
    strings take the quoting the source gave the same text (a moved value).
    """
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    for path, value in _collections(root):
        fa = getattr(value, "fa", None)
        if fa is None and styles.quoted:
            _requote(value, styles.quoted)
        if not path or (fa is not None and fa.flow_style() is not None) or not styles.flow(path, value):
            continue
        if fa is None:
            styled: Any = CommentedMap(value) if isinstance(value, dict) else CommentedSeq(value)
            _parent(root, path)[path[-1]] = styled
            value = styled
        value.fa.set_flow_style()


def _requote(plain: Any, quoted: dict[str, Any]) -> None:
    for key, item in list(plain.items() if isinstance(plain, dict) else enumerate(plain)):
        if type(item) is str and item in quoted:
            plain[key] = quoted[item]


def _parent(root: Any, path: tuple[Any, ...]) -> Any:
    for key in path[:-1]:
        root = root[key]
    return root


def _indents(source: str) -> tuple[int, int, int]:
    """Guess ruamel's (mapping, sequence, offset) indents from the source."""
    mapping = 2
    match = re.search(r"^([ \t]*)[^\s#-][^\n]*:[ \t]*\r?\n\1([ ]+)[^\s#-]", source, re.M)
    if match:
        mapping = len(match.group(2))
    dash = re.search(r"^([ \t]*)[^\s#-][^\n]*:[ \t]*\r?\n(?:\1[ ]*#[^\n]*\r?\n)*\1([ ]*)-( +)", source, re.M)
    if dash:
        offset = len(dash.group(2))
        return mapping, offset + len(dash.group(3)) + 1, offset
    return mapping, mapping, 0

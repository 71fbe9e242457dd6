"""Reading and writing card files: JSON or YAML in, the same layout out.

JSON goes through the C ``json`` module and :mod:`a2a_migrate.jsontext`;
ruamel.yaml is imported only for YAML files, in round-trip mode so comments,
quoting and key order survive.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from a2a_migrate import jsontext

Format = Literal["json", "yaml"]
BOM = "\ufeff"
YAML_SUFFIXES = (".yaml", ".yml")


class CardError(Exception):
    """A card that cannot be read or written; the message names the place."""


@dataclass
class Document:
    """One card file: its text, its format, the working copy and the original value."""

    text: str
    format: Format
    data: Any
    original: Any
    bom: bool = False

    def render(self) -> str:
        """The working copy as text, laid out like the input."""
        body = self.text[1:] if self.bom else self.text
        if self.format == "yaml":
            rendered = _yaml_dump(self.data, body) if self.data != self.original else body
        else:
            rendered = jsontext.render(body, self.original, self.data)
        return (BOM if self.bom else "") + rendered


#: The member of the object that stands for a YAML timestamp in plain values.
TIMESTAMP = "$yamlTimestamp"


def to_plain(value: Any) -> Any:
    """A deep copy made of dict, list, str, int, float, bool and None only.

    A YAML timestamp (``version: 2024-01-01`` reads as a date) has no JSON
    form: it becomes ``{"$yamlTimestamp": "2024-01-01"}``, which no card
    member accepts, so validation names it and it never equals the string a
    repair writes in its place.
    """
    return json.loads(json.dumps(value, default=_non_json))


def _non_json(value: Any) -> Any:
    import datetime

    if isinstance(value, (datetime.date, datetime.datetime)):
        return {TIMESTAMP: value.isoformat()}
    return str(value)


def guess_format(name: str, text: str) -> Format:
    """YAML by suffix; for other names JSON unless the text cannot be JSON."""
    if name.lower().endswith(YAML_SUFFIXES):
        return "yaml"
    stripped = text.lstrip(BOM + " \t\r\n")
    if name.lower().endswith(".json") or stripped[:1] in ("{", "[", '"') or not stripped:
        return "json"
    return "yaml"


def parse(text: str, name: str = "-", format: Format | None = None) -> Document:
    """Parse card text. Raises :class:`CardError` with the line and column."""
    bom = text.startswith(BOM)
    body = text[1:] if bom else text
    fmt = format or guess_format(name, body)
    if not body.strip():
        raise CardError("the file is empty")
    if fmt == "json":
        data = _json_load(body)
        original = json.loads(body)
    else:
        data = _yaml_load(body)
        original = to_plain(data)
    if not isinstance(data, dict):
        kind = type(original).__name__ if original is not None else "null"
        raise CardError(f"the top level is a {_json_kind(kind)}, not an object")
    return Document(text, fmt, data, original, bom)


def _json_kind(python_name: str) -> str:
    return {"list": "list", "str": "string", "int": "number", "float": "number", "bool": "boolean"}.get(
        python_name, python_name
    )


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) != len(pairs):
        seen: set[str] = set()
        duplicate = next(key for key, _ in pairs if key in seen or seen.add(key))  # type: ignore[func-returns-value]
        raise CardError(f"duplicate member {duplicate!r}: JSON readers disagree on which one wins")
    return mapping


def _json_load(body: str) -> Any:
    try:
        return json.loads(body, object_pairs_hook=_reject_duplicates)
    except json.JSONDecodeError as error:
        hint = " (JSON allows no comments)" if "/*" in body or "//" in body.split("\n")[error.lineno - 1] else ""
        raise CardError(f"line {error.lineno} column {error.colno}: not valid JSON: {error.msg}{hint}") from None


def _yaml() -> Any:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap long lines the author kept on one line
    return yaml


def _yaml_load(body: str) -> Any:
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        return _yaml().load(body)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"line {mark.line + 1} column {mark.column + 1}: " if mark else ""
        raise CardError(f"{where}not valid YAML: {error.problem or error.context}") from None
    except YAMLError as error:
        raise CardError(f"not valid YAML: {error}") from None


def _yaml_dump(data: Any, source: str) -> str:
    import io

    yaml = _yaml()
    mapping, sequence, offset = _yaml_indents(source)
    yaml.indent(mapping=mapping, sequence=sequence, offset=offset)
    if source.lstrip().startswith("---"):
        yaml.explicit_start = True
    stream = io.StringIO()
    yaml.dump(data, stream)
    text = stream.getvalue()
    if "\r\n" in source:
        text = text.replace("\n", "\r\n")
    if not source.endswith(("\n", "\r")):
        text = text.rstrip("\r\n")
    return text


def _yaml_indents(source: str) -> tuple[int, int, int]:
    """Guess ruamel's (mapping, sequence, offset) indents from the source."""
    import re

    mapping = 2
    match = re.search(r"^([ \t]*)[^\s#-][^\n]*:[ \t]*\r?\n\1([ ]+)[^\s#-]", source, re.M)
    if match:
        mapping = len(match.group(2))
    dash = re.search(r"^([ \t]*)[^\s#-][^\n]*:[ \t]*\r?\n(?:\1[ ]*#[^\n]*\r?\n)*\1([ ]*)-( +)", source, re.M)
    if dash:
        offset = len(dash.group(2))
        return mapping, offset + len(dash.group(3)) + 1, offset
    return mapping, mapping, 0


def read_text(path: Path) -> str:
    """Read a file as UTF-8 (a BOM is kept in the text), with a clear error."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise CardError(f"cannot read: {error.strerror or error}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CardError(f"byte {error.start}: not UTF-8 text") from None


def read(path: Path) -> Document:
    """Read and parse one card file."""
    return parse(read_text(path), str(path))


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path`` with ``text`` so that readers see the old file or the new one.

    The text goes to a temporary file in the same folder, is flushed to disk and
    renamed over the original, which keeps its permission bits. On any failure
    the temporary file is removed.
    """
    if path.is_symlink():
        path = path.resolve()  # rewrite the card the link points at; the link stays a link
    folder = path.parent
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    # Honour write bits even for root, who may write anyway: a card or folder a
    # user made read-only is one they do not want rewritten.
    if mode is not None and not mode & 0o222:
        raise CardError("cannot write: the file is read-only")
    if folder.is_dir() and not folder.stat().st_mode & 0o222:
        raise CardError("cannot write: the folder is read-only")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _replace_with(path, text.encode("utf-8"), mode)
    except OSError as error:
        raise CardError(f"cannot write: {error.strerror or error}") from None


#: How a temporary file of ours is named: ``.<card name>.<8 hex>.a2a-migrate.tmp``.
TEMPORARY = re.compile(r"^\.(.+)\.[0-9a-f]{8}\.a2a-migrate\.tmp$")


def remove_stale_temporary(path: Path) -> bool:
    """Remove a temporary file an interrupted run left beside a card; True if it was one.

    With O_TMPFILE a run killed while writing leaves nothing, but a kill in the
    microseconds between naming the finished file and renaming it over the card
    leaves a complete, named temporary file: the next run removes it.
    """
    if not TEMPORARY.match(path.name):
        return False
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    return True


def _replace_with(path: Path, data: bytes, mode: int | None) -> None:
    """Write ``data`` unnamed, give it a temporary name, rename it over ``path``.

    On Linux the bytes go into an O_TMPFILE first, which has no name until it
    is complete, so a process killed while writing leaves nothing behind; only
    the two system calls between link and rename could leave a named temporary.
    Where that is not possible a named temporary file is written instead. On
    any failure the temporary file is removed.
    """
    temporary = path.parent / f".{path.name}.{os.urandom(4).hex()}.a2a-migrate.tmp"  # see TEMPORARY
    try:
        if not _write_anonymous(path.parent, temporary, data, mode):
            _write_named(temporary, data, mode)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _write_anonymous(folder: Path, temporary: Path, data: bytes, mode: int | None) -> bool:
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag:
        return False
    try:
        handle = os.open(folder, flag | os.O_WRONLY, 0o600)
    except OSError:
        return False
    with os.fdopen(handle, "wb") as stream:
        _fill(stream, data, mode)
        return _link_unnamed(handle, temporary)


@functools.cache
def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def _link_unnamed(handle: int, target: Path) -> bool:
    """Give an O_TMPFILE a name: linkat(AT_EMPTY_PATH), else through /proc/self/fd."""
    at_fdcwd, at_empty_path = -100, 0x1000
    libc = _libc()
    if getattr(libc, "linkat", None) is not None and libc.linkat(handle, b"", at_fdcwd, os.fsencode(target), at_empty_path) == 0:
        return True
    try:
        os.link(f"/proc/self/fd/{handle}", target)
    except OSError:  # no /proc, or a kernel that will not link it
        return False
    return True


def _write_named(temporary: Path, data: bytes, mode: int | None) -> None:
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(handle, "wb") as stream:
        _fill(stream, data, mode)


def _fill(stream: Any, data: bytes, mode: int | None) -> None:
    stream.write(data)
    stream.flush()
    os.fsync(stream.fileno())
    os.fchmod(stream.fileno(), 0o644 if mode is None else mode)

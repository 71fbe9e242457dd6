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

from a2a_migrate import jsontext, limits, yamltext

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
            rendered = yamltext.dump(self.data, body) if self.data != self.original else body
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


def named_format(name: str) -> Format | None:
    """The format a file's name gives (``.json``, ``.yaml``, ``.yml``), or None (``-``, no suffix)."""
    lowered = name.lower()
    return "yaml" if lowered.endswith(YAML_SUFFIXES) else "json" if lowered.endswith(".json") else None


def guess_format(name: str, text: str) -> Format:
    """The format by suffix; for other names JSON unless the text cannot be JSON."""
    named = named_format(name)
    if named is not None:
        return named
    stripped = text.lstrip(BOM + " \t\r\n")
    return "json" if stripped[:1] in ("{", "[", '"') or not stripped else "yaml"


def parse(text: str, name: str = "-", format: Format | None = None) -> Document:
    """Parse card text. Raises :class:`CardError` with the line and column.

    A name without a format (stdin's ``-``) is read as JSON when the text looks
    like JSON; if it is not JSON after all it is read as YAML, since flow-style
    YAML (``{name: x, url: ...}``) looks the same. Limits against hostile
    input (:mod:`a2a_migrate.limits`) are errors here too.
    """
    bom = text.startswith(BOM)
    body = text[1:] if bom else text
    fmt = format or guess_format(name, body)
    if not body.strip():
        raise CardError("the file is empty")
    if fmt == "json":
        try:
            data = _json_load(body)
        except _NotJson as error:
            if format or named_format(name):
                raise CardError(str(error)) from None
            fmt, data = "yaml", _yaml_fallback(body, error)
    else:
        data = _yaml_load(body)
    original = json.loads(body) if fmt == "json" else to_plain(data)
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


#: A ``//`` comment: at a line's start or after a blank or a separator (not ``https://``).
_COMMENT = re.compile(r"(?:^|[\s,\[{])//")


class _NotJson(CardError):
    """Text that is no JSON at all (as opposed to JSON refused by a limit)."""


def _json_load(body: str) -> Any:
    """Parse JSON with the C decoder, refusing what :mod:`a2a_migrate.limits` refuses."""
    try:
        data = json.loads(body, object_pairs_hook=_reject_duplicates,
                          parse_constant=limits.refuse_constant, parse_float=limits.finite_float)
        limits.check_json_depth(body)
        return data
    except json.JSONDecodeError as error:
        line = body.split("\n")[error.lineno - 1]
        hint = " (JSON allows no comments)" if _COMMENT.search(line) or "/*" in body else ""
        raise _NotJson(f"line {error.lineno} column {error.colno}: not valid JSON: {error.msg}{hint}") from None
    except limits.NonStandardNumber as error:
        raise CardError(str(limits.number_error(body, error.spelling, limits.describe_number(error.spelling)))) from None
    except limits.LimitError as error:
        raise CardError(str(error)) from None
    except RecursionError:  # deeper than json itself goes (about 1000): refused as any deep card
        raise CardError(str(limits.json_depth_error(body))) from None
    except ValueError:  # an integer of more than 4300 digits (sys.get_int_max_str_digits)
        raise CardError(str(limits.long_number_error(body))) from None


def _yaml_fallback(body: str, json_error: CardError) -> Any:
    """YAML for text that looked like JSON but is not; the JSON error if it is neither."""
    try:
        return yamltext.load(body)
    except yamltext.YamlError as error:
        raise CardError(f"{json_error}; nor YAML: {error}") from None
    except limits.LimitError as error:
        raise CardError(str(error)) from None


def _yaml_load(body: str) -> Any:
    try:
        return yamltext.load(body)
    except (yamltext.YamlError, limits.LimitError) as error:
        raise CardError(str(error)) from None


#: The default size limit of a card file (``--max-file-size``): cards are kilobytes, and a
#: file of gigabytes (a mistake, or an attack on a CI job) would be read whole and parsed.
MAX_CARD_BYTES = 10 * 1024 * 1024


def read_text(path: Path, max_bytes: int | None = None) -> str:
    """Read a file as UTF-8 (a BOM is kept in the text), with a clear error.

    With ``max_bytes``, a larger file is refused before it is read (its size is
    checked first, and the read is bounded too: a FIFO or a growing file has no
    size to check).
    """
    try:
        with path.open("rb") as stream:
            if max_bytes is not None:
                size = os.fstat(stream.fileno()).st_size
                if size > max_bytes:
                    raise CardError(_too_large(max_bytes, size))
            raw = stream.read() if max_bytes is None else stream.read(max_bytes + 1)
    except OSError as error:
        raise CardError(f"cannot read: {error.strerror or error}") from None
    return _decode(raw, max_bytes)


def read_stream(stream: Any, max_bytes: int | None = None) -> str:
    """Read a binary stream (stdin) as UTF-8, at most ``max_bytes`` of it."""
    try:
        raw = stream.read() if max_bytes is None else stream.read(max_bytes + 1)
    except OSError as error:
        raise CardError(f"cannot read: {error.strerror or error}") from None
    return _decode(raw, max_bytes)


def _decode(raw: bytes, max_bytes: int | None) -> str:
    if max_bytes is not None and len(raw) > max_bytes:
        raise CardError(_too_large(max_bytes))
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CardError(f"byte {error.start}: not UTF-8 text") from None


def _too_large(limit: int, size: int | None = None) -> str:
    # Names the command-line option: the message is what a user of the CLI sees.
    if size is None:  # a bounded read: the true size is unknown
        return f"input is more than {limit} bytes, over the limit (--max-file-size)"
    return f"file is {size} bytes, over the limit of {limit} (--max-file-size)"


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

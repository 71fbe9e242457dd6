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
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from a2a_migrate import limits

Format = Literal["json", "yaml"]
BOM = "\ufeff"
YAML_SUFFIXES = (".yaml", ".yml")


class CardError(ValueError):
    """A card that cannot be read or written; the message names the place."""


@dataclass
class Document:
    """One card file: its text, its format, the working copy and the original value."""

    text: str
    format: Format
    data: Any
    original: Any
    bom: bool = False
    yaml_styles: Any = None  # a YAML card's styles as parsed: render needs no second parse to find them

    def render(self) -> str:
        """The working copy as text, laid out like the input."""
        from a2a_migrate import jsontext, yamltext  # the renderers: only for what is written

        body = self.text[1:] if self.bom else self.text
        if self.format == "yaml":
            rendered = yamltext.dump(self.data, body, self.yaml_styles) if self.data != self.original else body
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


#: Types of card values that are JSON as they are (a ruamel scalar is a subclass, and is copied).
_JSON_SCALARS = (str, int, float, bool, type(None))


def json_copy(value: Any) -> Any:
    """A JSON copy of a card value, for a patch: :func:`to_plain`, with a YAML timestamp as its ISO string.

    Plain dicts, lists and scalars (a JSON card, every value a transform builds)
    are copied directly, an order of magnitude faster than through JSON text;
    anything else (ruamel's types, a timestamp, a key that is no string) as
    :func:`to_plain` writes it.
    """
    kind = type(value)
    if kind in _JSON_SCALARS:
        return value
    if kind is list:
        return [json_copy(item) for item in value]
    if kind is dict and all(type(key) is str for key in value):
        return {key: json_copy(item) for key, item in value.items()}
    return json_values(to_plain(value))


def json_values(value: Any) -> Any:
    """A value of :func:`to_plain` as JSON: a YAML timestamp's marker becomes its ISO string."""
    if isinstance(value, dict):
        if len(value) == 1 and TIMESTAMP in value:
            return value[TIMESTAMP]
        return {key: json_values(item) for key, item in value.items()}
    if isinstance(value, list):
        return [json_values(item) for item in value]
    return value


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
            if format or named_format(name) or not _unquoted_key(body):
                raise CardError(str(error)) from None  # JSON with a mistake is not YAML that happens to parse
            fmt, data = "yaml", _yaml_load(body, f"{error}; nor YAML: ")
    else:
        data = _yaml_load(body)
    original = json.loads(body) if fmt == "json" else _plain_yaml(data)
    if not isinstance(data, dict):
        kind = type(original).__name__ if original is not None else "null"
        raise CardError(f"the top level is a {_json_kind(kind)}, not an object")
    return Document(text, fmt, data, original, bom, _styles(data) if fmt == "yaml" else None)


def _styles(data: Any) -> Any:
    from a2a_migrate import yamltext

    return yamltext.styles(data)


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


def parse_value(text: str, name: str) -> Any:
    """Any JSON value from JSON or YAML text (format by ``name`` as for cards), with the cards' limits.

    For files that hold no card (recipes): a leading BOM is allowed, duplicate
    members, non-JSON numbers, deep nesting and YAML alias bombs are refused as in
    cards. YAML comes back as ruamel's values (dates and odd keys for the caller
    to judge); raises :class:`CardError`.
    """
    body = text[1:] if text.startswith(BOM) else text
    if guess_format(name, body) == "json":
        try:
            return _json_load(body)
        except _NotJson as error:
            raise CardError(str(error)) from None
    return _yaml_load(body)


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
    except CardError:  # a duplicate member (the hook's own error: a CardError is a ValueError too)
        raise
    except ValueError:  # an integer of more than 4300 digits (sys.get_int_max_str_digits)
        raise CardError(str(limits.long_number_error(body))) from None


_JSON_STRING = re.compile(limits.JSON_STRING, re.DOTALL)
_UNQUOTED_KEY = re.compile(r"[{,]\s*[^\s\"'{}\[\],:#][^{}\[\],:]*:")


def _unquoted_key(body: str) -> bool:
    """Whether text that opens like JSON has a key no JSON writer leaves unquoted (``{name: x}``):
    flow-style YAML. Keys inside strings do not count."""
    return bool(_UNQUOTED_KEY.search(_JSON_STRING.sub('""', body)))


def _plain_yaml(data: Any) -> Any:
    """The plain value of a YAML card; a key JSON cannot have (``? [a, b]``, ``!!tag x``) is an error."""
    try:
        return to_plain(data)
    except TypeError:
        raise CardError(f"{_odd_key(data)}: a mapping key that is not a string (JSON keys are strings)") from None


def _odd_key(root: Any) -> str:
    """The JSON pointer of the first mapping key that is no string, number, boolean or null."""
    from a2a_migrate.pointer import join

    stack: list[tuple[str, Any]] = [("", root)]
    while stack:
        where, node = stack.pop()
        for key, child in node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ():
            if isinstance(node, dict) and not (key is None or type(key) in (str, int, float, bool)):
                return where or "/"
            stack.append((join(where, str(key)), child))
    return "/"


def _yaml_load(body: str, prefix: str = "") -> Any:
    """The YAML document, or a CardError (``prefix``: what was tried before, for stdin's JSON first)."""
    from a2a_migrate import yamltext  # only for YAML: JSON commands never load it

    try:
        return yamltext.load(body)
    except yamltext.YamlError as error:
        raise CardError(f"{prefix}{error}") from None
    except limits.LimitError as error:
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

    A :class:`WriteGroup` of one file: the text is on disk before it is renamed
    over the original, which keeps its permission bits.
    """
    group = WriteGroup()
    group.add(path, text)
    failed = group.commit()
    if failed:
        raise CardError(next(iter(failed.values())))


def _writable_target(path: Path) -> tuple[Path, int | None, bool]:
    """The file to replace (a link's target), its permission bits and whether its folder exists.

    Refuses read-only files and folders. Two or three ``stat`` calls: this runs
    for every card a batch writes.
    """
    status = _status(path, os.lstat)
    if status is not None and stat.S_ISLNK(status.st_mode):
        path = path.resolve()  # rewrite the card the link points at; the link stays a link
        status = _status(path, os.stat)
    mode = status.st_mode & 0o7777 if status is not None else None
    folder = _status(path.parent, os.stat)
    is_folder = folder is not None and stat.S_ISDIR(folder.st_mode)
    # Honour write bits even for root, who may write anyway: a card or folder a
    # user made read-only is one they do not want rewritten.
    if mode is not None and not mode & 0o222:
        raise CardError("cannot write: the file is read-only")
    if is_folder and folder is not None and not folder.st_mode & 0o222:
        raise CardError("cannot write: the folder is read-only")
    return path, mode, is_folder


def _status(path: Path, call: Callable[[Path], os.stat_result]) -> os.stat_result | None:
    try:
        return call(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


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


@dataclass
class _Staged:
    """One file of a group: its new bytes in an open file not yet renamed over the target."""

    name: Path  # as given to add, which names it in the errors
    target: Path  # the file replaced: a link's target
    temporary: Path  # the name it gets before the rename (see TEMPORARY)
    handle: int
    data: bytes
    mode: int
    named: bool  # False: an O_TMPFILE, which has no name until the commit links it


class WriteGroup:
    """Atomic replacements of many files whose durability is paid for once per group.

    Writing a card safely needs its bytes on disk before the rename that puts
    it in place (else a power cut can leave an empty card under the new name),
    and the rename on disk too. One ``fsync`` per file costs more than all the
    rest of a migration, so a group writes every file first, makes them all
    durable in one pass (``syncfs`` once per file system, else ``fdatasync``
    each), only then renames each over its card, and last syncs the folders
    once. A SIGKILL or a power cut at any point leaves each card old or new.
    """

    def __init__(self) -> None:
        self._staged: list[_Staged] = []

    def add(self, path: Path, text: str) -> None:
        """Write ``text`` for ``path``, unnamed where possible; raises :class:`CardError` for this file only."""
        try:
            target, mode, folder_exists = _writable_target(path)
        except OSError as error:
            raise CardError(f"cannot write: {error.strerror or error}") from None
        temporary = target.parent / f".{target.name}.{os.urandom(4).hex()}.a2a-migrate.tmp"
        data = text.encode("utf-8")
        try:
            if not folder_exists:
                target.parent.mkdir(parents=True, exist_ok=True)
            handle, named = _open_temporary(temporary)
        except OSError as error:
            raise CardError(f"cannot write: {error.strerror or error}") from None
        staged = _Staged(path, target, temporary, handle, data, 0o644 if mode is None else mode, named)
        try:
            _fill(handle, data, staged.mode)
        except OSError as error:
            _discard(staged)
            raise CardError(f"cannot write: {error.strerror or error}") from None
        self._staged.append(staged)

    def commit(self) -> dict[Path, str]:
        """Make the group durable, rename each file into place, sync the folders; the errors by path as added.

        A file that fails is left as it was (its temporary removed); the others
        are still written. Whatever happens, no temporary file of the group stays.
        """
        staged, self._staged = self._staged, []
        failed: dict[Path, str] = {}
        try:
            sync_files([item.handle for item in staged])
        except OSError as error:
            for item in staged:
                failed[item.name] = f"cannot write: {error.strerror or error}"
                _discard(item)
            return failed
        renamed = []
        for item in staged:
            try:
                _name(item)
                os.replace(item.temporary, item.target)
                renamed.append(item)
            except OSError as error:
                failed[item.name] = f"cannot write: {error.strerror or error}"
                os.close(item.handle)
                with contextlib.suppress(OSError):
                    os.unlink(item.temporary)
        try:
            sync_folders(sorted({item.target.parent for item in renamed}), [item.handle for item in renamed])
        except OSError as error:
            failed.update({item.name: f"cannot write: {error.strerror or error}" for item in renamed})
        finally:
            for item in renamed:
                os.close(item.handle)
        return failed

    def __len__(self) -> int:
        return len(self._staged)


def _open_temporary(temporary: Path) -> tuple[int, bool]:
    """An open file for the new bytes: an O_TMPFILE in the folder where the system has it, else ``temporary``."""
    flag = getattr(os, "O_TMPFILE", 0)
    if flag:
        try:
            return os.open(temporary.parent, flag | os.O_WRONLY, 0o600), False
        except OSError:
            pass
    return os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), True


def _fill(handle: int, data: bytes, mode: int) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(handle, view):]
    os.fchmod(handle, mode)


def _name(item: _Staged) -> None:
    """Give a durable O_TMPFILE its temporary name; where that fails, write a named copy durably."""
    if item.named or _link_unnamed(item.handle, item.temporary):
        return
    handle = os.open(item.temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        _fill(handle, item.data, item.mode)
        os.fsync(handle)
    finally:
        os.close(handle)


def _discard(item: _Staged) -> None:
    os.close(item.handle)
    if item.named:
        with contextlib.suppress(OSError):
            os.unlink(item.temporary)


def sync_files(handles: list[int]) -> None:
    """Put the data of open files on disk: one ``syncfs`` per file system, else ``fdatasync`` each."""
    for handle in _one_per_file_system(handles):
        if not _syncfs(handle):
            break
    else:
        return
    for handle in handles:
        os.fdatasync(handle)


def sync_folders(folders: list[Path], files: list[int]) -> None:
    """Put renames in ``folders`` on disk: one ``syncfs`` per file system, else ``fsync`` each folder.

    ``files`` are open files of those folders (the renamed cards): ``syncfs``
    goes through them, as they are on the same file systems, which saves
    opening every folder where it is all one file system anyway.
    """
    if files and all(_syncfs(handle) for handle in _one_per_file_system(files)):
        return
    for folder in folders:
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def _one_per_file_system(handles: list[int]) -> list[int]:
    return list({os.fstat(handle).st_dev: handle for handle in handles}.values())


def _syncfs(handle: int) -> bool:
    """``syncfs(2)`` on the file system of ``handle``: False where the system has none (not Linux).

    It waits for the data and, since Linux 5.8, reports a failed write-back of
    any file there as an error, which is raised.
    """
    function = getattr(_libc(), "syncfs", None) if os.name == "posix" else None
    if function is None:
        return False
    if function(handle) != 0:
        import ctypes

        number = ctypes.get_errno()
        raise OSError(number, os.strerror(number))
    return True


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

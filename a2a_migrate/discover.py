"""Finding card files under the paths a user names, and telling cards from other files.

Every command that takes PATH arguments finds its cards with :func:`expand`
and reads each with :func:`load` (or :func:`parse_card` for stdin), so all of
them see the same cards in a folder: files named like cards, plus JSON/YAML
files whose content is a card ("sniffed"), ``--include``/``--exclude``
applied, tool folders and links left out, unreadable folders reported.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from a2a_migrate import io

if TYPE_CHECKING:  # the fetcher is imported only when a PATH is a URL
    from a2a_migrate.fetch import Fetched, FetchError

#: File names agent cards are published under (corpus-notes: names seen in the wild).
CARD_NAMES = frozenset({"agent-card", "agent", "agent_card", "agentcard"})
CARD_SUFFIXES = (".json", ".yaml", ".yml")
#: Folders never searched unless named explicitly.
SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", "node_modules", ".venv", "venv", "env", ".env", ".tox", ".nox",
    "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", ".eggs",
    "site-packages", ".idea", ".vscode",
})


@dataclass(frozen=True)
class Found:
    """A file to process, the root it was found under (for ``-o`` trees), whether
    it is a card only if its content is one (``sniff``), and the PATH argument
    that named it (``arg``). A URL (``url``) is fetched, never written in place."""

    path: Path
    root: Path
    sniff: bool = False
    arg: str = ""
    url: str = ""


@dataclass(frozen=True)
class Problem:
    """A path that could not be looked into (missing, or an unreadable folder), and why."""

    path: str
    reason: str
    arg: str


@dataclass
class Loaded:
    """One file read: its document when it is a card, else ``skipped`` or ``failed`` with the error."""

    name: str
    status: Literal["card", "skipped", "failed"]
    document: io.Document | None = None
    text: str = ""
    error: str = ""


def expand(paths: Sequence[str], include: Sequence[str] = (), exclude: Sequence[str] = (), *,
           remove_stale: bool = False) -> tuple[list[Found], list[Problem]]:
    """The files the PATH arguments name, in argument order, and the paths that could not be looked into.

    ``-`` (stdin), URLs (:func:`is_url`: fetched by the caller, nothing is
    fetched here) and named files are taken as they are. In a folder, files
    named like cards and files matching ``include`` are cards; other
    ``.json``/``.yaml``/``.yml`` files are cards only if their content is one
    (``Found.sniff``: :func:`load` decides). Temporary files an interrupted
    write left are never cards; with ``remove_stale`` (commands that write
    cards) they are removed.
    """
    found: list[Found] = []
    problems: list[Problem] = []
    for raw in paths:
        path = Path(raw)
        if raw == "-":
            found.append(Found(path, Path("."), arg=raw))
        elif is_url(raw):
            found.append(Found(path, Path("."), arg=raw, url=raw))
        elif path.is_dir():
            unreadable: list[tuple[Path, str]] = []
            found += _in_folder(raw, include, exclude, unreadable, remove_stale)
            problems += [Problem(str(folder), f"cannot read the folder: {reason}", raw) for folder, reason in unreadable]
        elif path.exists():
            found.append(Found(path, _file_root(path), arg=raw))
        else:
            problems.append(Problem(raw, "no such file or folder", raw))
    return found, problems


def is_url(text: str) -> bool:
    """Whether a PATH argument is an ``http://`` or ``https://`` URL (issue 12: fetched, like stdin read)."""
    return text[:8].lower().startswith(("http://", "https://"))


def load_fetched(url: str, answer: Fetched | FetchError) -> Loaded:
    """A fetched card (see :func:`a2a_migrate.fetch.fetch_cards`) as a loaded one, named by the URL that
    answered; a failed fetch is ``failed`` under the URL given."""
    if isinstance(answer, Exception):
        return Loaded(url, "failed", error=answer.said_of(url))
    try:
        text = fetched_text(answer)
    except io.CardError as error:
        return Loaded(answer.url, "failed", error=str(error))
    return parse_card(text, answer.url)


def fetched_text(answer: Fetched) -> str:
    """A fetched body as text, decoded as a card file is (UTF-8; the fetch has bounded its size)."""
    from io import BytesIO

    return io.read_stream(BytesIO(answer.body))


def _in_folder(raw: str, include: Sequence[str], exclude: Sequence[str], unreadable: list[tuple[Path, str]],
               remove_stale: bool) -> Iterator[Found]:
    folder = Path(raw)
    for file, chosen in walk(folder, include, exclude, unreadable):
        if io.TEMPORARY.match(file.name):
            if remove_stale:  # left by a run killed between naming and renaming its output
                io.remove_stale_temporary(file)
            continue
        if chosen or file.suffix.lower() in CARD_SUFFIXES:
            yield Found(file, folder, sniff=not chosen, arg=raw)


def _file_root(path: Path) -> Path:
    """Where ``-o`` measures a named file from: the working folder when the file is below it
    (``d1/agent-card.json`` -> ``OUT/d1/agent-card.json``), else its own folder."""
    return Path(".") if not path.is_absolute() and ".." not in path.parts else path.parent


def empty_paths(paths: Iterable[str], yielded: set[str]) -> list[str]:
    """The PATH arguments (each once, in order) not in ``yielded``: those that gave no card nor error."""
    return [path for path in dict.fromkeys(paths) if path not in yielded]


def looks_like_card(data: Any) -> bool:
    """An object with a ``name`` and any of ``skills``, ``url``, ``supportedInterfaces``."""
    return isinstance(data, dict) and "name" in data and any(
        key in data for key in ("skills", "url", "supportedInterfaces", "supported_interfaces")
    )


def parse_card(text: str, name: str, sniff: bool = False) -> Loaded:
    """Parse card text; with ``sniff``, text that is not a card is ``skipped``, not ``failed``.

    A file found only by its suffix (tsconfig.json with comments, a Helm
    template, package.json) is no card of ours: not being one is no error.
    """
    try:
        document = io.parse(text, name)
    except io.CardError as error:
        return Loaded(name, "skipped", text=text) if sniff else Loaded(name, "failed", text=text, error=str(error))
    if sniff and not looks_like_card(document.original):
        return Loaded(name, "skipped", text=text)
    return Loaded(name, "card", document, text)


def load(found: Found, max_bytes: int | None = io.MAX_CARD_BYTES) -> Loaded:
    """Read and parse one found file (not stdin), at most ``max_bytes`` of it.

    A sniffed file that cannot be read (or is over the limit) is skipped: a
    card is never that large, and a big lock file beside the cards is not an
    error.
    """
    name = str(found.path)
    try:
        text = io.read_text(found.path, max_bytes)
    except io.CardError as error:
        return Loaded(name, "skipped") if found.sniff else Loaded(name, "failed", error=str(error))
    return parse_card(text, name, found.sniff)


def is_card_name(name: str) -> bool:
    """True for names like ``agent-card.json``, ``AgentCard.yaml``, ``x.agent-card.json``."""
    lowered = name.lower()
    for suffix in CARD_SUFFIXES:
        if lowered.endswith(suffix):
            stem = lowered[: -len(suffix)]
            return stem in CARD_NAMES or stem.endswith(".agent-card") or stem.endswith(".agent_card")
    return False


def _matches(relative: str, patterns: Sequence[str]) -> bool:
    name = relative.rsplit("/", 1)[-1]
    return any(fnmatch.fnmatch(relative, p) or fnmatch.fnmatch(name, p) for p in patterns)


def walk(root: Path, include: Sequence[str] = (), exclude: Sequence[str] = (),
         unreadable: list[tuple[Path, str]] | None = None) -> Iterator[tuple[Path, bool]]:
    """Yield ``(file, chosen)`` for every file under ``root``, in sorted order.

    A file is chosen by its card name or by ``include``; files and folders
    matching ``exclude`` are not yielded at all, nor are skipped folders
    entered. Links found in the tree are not followed: one leading out of it
    must not be rewritten, and one leading into it names a card the walk
    reaches under its real name (so it is processed once, and stays a link).
    A folder that cannot be listed goes into ``unreadable`` with the reason,
    for the caller to report: its cards were not seen.
    """
    yield from _walk(root, root, include, exclude, unreadable)


def _walk(folder: Path, root: Path, include: Sequence[str], exclude: Sequence[str],
          unreadable: list[tuple[Path, str]] | None) -> Iterator[tuple[Path, bool]]:
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError as error:  # the caller reports it: cards in it were not seen
        if unreadable is not None:
            unreadable.append((folder, error.strerror or str(error)))
        return
    subfolders = []
    for entry in entries:
        if entry.is_symlink():
            continue
        path = folder / entry.name
        relative = _relative(path, root)
        if _matches(relative, exclude):
            continue
        if entry.is_dir():
            if entry.name not in SKIPPED_DIRS:
                subfolders.append(path)
        elif entry.is_file():
            yield path, is_card_name(entry.name) or _matches(relative, include)
    for path in subfolders:  # files of a folder before its subfolders, as os.walk orders them
        yield from _walk(path, root, include, exclude, unreadable)


def _relative(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()

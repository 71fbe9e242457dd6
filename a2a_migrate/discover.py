"""Finding card files under the paths a user names."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

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
    """A file to process, and the root it was found under (for ``-o`` trees)."""

    path: Path
    root: Path


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

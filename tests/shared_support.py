"""Where the tests find ``../shared/`` (the specs and the real-card corpus), and how they do without it.

A fresh clone has nothing beside it: the README's test command must pass there
too. So a test that needs ``../shared/`` skips, with a reason naming the folder,
and runs when the folder is there; a parametrized test over the corpus gets one
skipped case instead of none (an empty parameter set would hide the loss).
``A2A_MIGRATE_SHARED`` points the tests at another folder (``.ci/run`` uses it
to prove the fresh-clone case with a folder that does not exist).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("A2A_MIGRATE_SHARED") or REPO.parent / "shared")
CORPUS = SHARED / "corpus" / "real"
SPEC = SHARED / "spec"
PACKAGED_SPEC = REPO / "a2a_migrate" / "schemas"
CARD_SUFFIXES = (".json", ".yaml", ".yml")


def missing(path: Path) -> str:
    """The skip reason for a test that needs ``path``."""
    return f"{path} is not there (the shared specs and real cards sit beside the repository, not in a fresh clone)"


def needs(path: Path) -> pytest.MarkDecorator:
    """Skip the test, naming ``path``, when ``path`` does not exist."""
    return pytest.mark.skipif(not path.exists(), reason=missing(path))


def corpus_files(suffixes: Iterable[str] | None = CARD_SUFFIXES) -> list[Path]:
    """The corpus's files with these suffixes (``None``: all), sorted; none when the corpus is not there."""
    if not CORPUS.is_dir():
        return []
    wanted = None if suffixes is None else tuple(suffixes)
    return sorted(path for path in CORPUS.iterdir() if path.is_file() and (wanted is None or path.suffix in wanted))


def corpus_params(make: Callable[[Path], Any] = lambda path: pytest.param(path, id=path.name),
                  suffixes: Iterable[str] | None = CARD_SUFFIXES, arity: int = 1) -> list[Any]:
    """``make(path)`` for each corpus file, or one skipped case naming the corpus when it is not there."""
    if not CORPUS.is_dir():
        return [pytest.param(*[None] * arity, id="no-corpus", marks=pytest.mark.skip(reason=missing(CORPUS)))]
    return [make(path) for path in corpus_files(suffixes)]


def spec_file(name: str) -> Path:
    """An official spec file: from ``../shared/spec`` when there, else the package's copy of it.

    The package ships the 0.3 JSON Schema and the 1.0 proto byte for byte
    (``test_copied_files_match_the_pinned_upstream_files`` checks them against
    ``../shared/spec`` where it exists), so conformance tests run on a fresh clone too.
    """
    shared = SPEC / name
    return shared if shared.exists() else PACKAGED_SPEC / name

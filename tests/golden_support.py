"""What the golden tests share: exact reads, independent parsing, per-case options."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from a2a_migrate.context import Options


@dataclass(frozen=True)
class Case:
    """One golden pair: its name, the input, the expected output, the options it runs with."""

    name: str
    source: Path
    expected: Path
    options: Options


def read(path: Path) -> str:
    """The file's exact text (no newline translation)."""
    return path.read_bytes().decode("utf-8")


def parse_plain(text: str, name: str) -> Any:
    """The card as plain data, parsed independently of the tool's writer."""
    if name.endswith((".yaml", ".yml")):
        from ruamel.yaml import YAML

        return YAML(typ="safe", pure=True).load(text)
    return json.loads(text)


def case_options(folder: Path, case: str) -> Options:
    """The :class:`Options` of ``<case>.options.json`` beside the pair, or the defaults."""
    path = folder / f"{case}.options.json"
    return Options(**json.loads(path.read_text("utf-8"))) if path.exists() else Options()


def params(cases: Iterable[Any], expected_failures: Mapping[str, str]) -> list[Any]:
    """One pytest param per case (``case.name`` its id), strict xfails where a bug is known."""
    return [pytest.param(case, id=case.name, marks=[
        pytest.mark.xfail(reason=expected_failures[case.name], strict=True, raises=AssertionError)
    ] if case.name in expected_failures else []) for case in cases]

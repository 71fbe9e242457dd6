"""design.md, "Layers": the command line imports the library, never the reverse."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
COMMAND_LINE = {"cli", "cli_ci", "cli_inputs", "cli_jsonl", "cli_review", "cli_signing", "cli_transforms", "__main__"}
LIBRARY = sorted([*ROOT.glob("a2a_migrate/*.py"), *ROOT.glob("transforms/*.py")])


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("path", [p for p in LIBRARY if p.stem not in COMMAND_LINE], ids=lambda p: p.name)
def test_no_library_module_imports_the_command_line(path: Path) -> None:
    command_line = {f"a2a_migrate.{name}" for name in COMMAND_LINE}
    assert not _imported(path) & command_line


def test_the_command_line_modules_exist() -> None:
    present = {p.stem for p in ROOT.glob("a2a_migrate/*.py")}
    assert COMMAND_LINE <= present, COMMAND_LINE - present

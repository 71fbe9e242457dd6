"""design.md, "Layers": the command line imports the library, never the reverse."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The command line: one package, and the ``python -m a2a_migrate`` entry.
COMMAND_LINE = ROOT / "a2a_migrate" / "cli"
LIBRARY = sorted(p for p in [*ROOT.glob("a2a_migrate/**/*.py"), *ROOT.glob("transforms/*.py")]
                 if COMMAND_LINE not in p.parents and p.name != "__main__.py")


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("path", LIBRARY, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_library_module_imports_the_command_line(path: Path) -> None:
    reaching_up = {name for name in _imported(path) if name == "a2a_migrate.cli" or name.startswith("a2a_migrate.cli.")}
    assert not reaching_up


def test_the_command_line_is_one_package() -> None:
    assert (COMMAND_LINE / "__init__.py").is_file()
    assert not list(ROOT.glob("a2a_migrate/cli_*.py")), "command-line modules belong in a2a_migrate/cli/"
    assert len(LIBRARY) > 30  # the walk found the library

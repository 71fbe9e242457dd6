"""Issue 15, lazy start: parsing the command line imports only what parsing needs.

``--version`` and ``--help`` must not load the chain of transforms, the signing
service, the renderers or the migration engine; a one-card ``upgrade`` loads
the chain but not signing (unless asked) nor the hybrid or review code. Each
check runs a fresh interpreter outside the repository (see conftest.py) and
looks at ``sys.modules``: no timing is asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

#: Modules only the work of a command needs, never the parsing of its command line.
WORK = ("a2a_migrate.transforms", "a2a_migrate.signing", "a2a_migrate.hybrid", "a2a_migrate.conservation",
        "a2a_migrate.api", "a2a_migrate.engine", "a2a_migrate.batch", "a2a_migrate.jsontext",
        "a2a_migrate.yamltext", "a2a_migrate.validation", "a2a_migrate.chain", "a2a_migrate.recipes",
        "a2a_migrate.edit", "a2a_migrate.plans", "a2a_migrate.applying", "a2a_migrate.dask", "ruamel", "jsonpatch",
        "joserfc", "a2a_migrate.fetch", "httpx", "httpcore", "socket", "dask", "distributed", "fsspec")

RUN = """
import json, runpy, sys
sys.argv = ["a2a-migrate", *json.loads(sys.argv[1])]
if sys.argv[1:] == ["--import-only"]:
    import a2a_migrate.cli
else:
    try:
        runpy.run_module("a2a_migrate", run_name="__main__")
    except SystemExit:
        pass
print(json.dumps(sorted(sys.modules)), file=sys.__stderr__)
"""


def loaded(args: list[str], cwd: Path) -> set[str]:
    """The modules a fresh ``a2a-migrate ARGS`` has imported when it ends."""
    done = subprocess.run([sys.executable, "-c", RUN, json.dumps(args)], capture_output=True, text=True, cwd=cwd,
                          timeout=60)
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def unneeded(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == name or m.startswith(name + ".") for name in names))


@pytest.mark.parametrize("args", [["--import-only"], ["--version"], ["--help"], ["upgrade", "--help"]],
                         ids=lambda args: " ".join(args))
def test_parsing_the_command_line_imports_no_work(args: list[str], tmp_path: Path) -> None:
    assert unneeded(loaded(args, tmp_path), WORK) == []


def test_a_one_card_upgrade_imports_no_signing_hybrid_recipes_or_review(tmp_path: Path) -> None:
    card = tmp_path / "agent-card.json"
    card.write_text(json.dumps({"name": "A", "description": "d", "version": "1", "url": "https://a.example/a2a",
                                "protocolVersion": "0.3.0", "capabilities": {}, "defaultInputModes": ["text/plain"],
                                "defaultOutputModes": ["text/plain"], "skills": []}))
    modules = loaded(["upgrade", "--check", str(card)], tmp_path)
    assert "a2a_migrate.transforms" in modules  # it did migrate
    assert unneeded(modules, ("a2a_migrate.signing", "a2a_migrate.hybrid", "a2a_migrate.plans", "a2a_migrate.applying",
                              "a2a_migrate.recipes", "a2a_migrate.yamltext", "ruamel", "joserfc",
                              "a2a_migrate.fetch", "httpx", "socket")) == []  # issue 12: no network code unless a URL is given

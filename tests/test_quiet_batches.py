"""Issue 15, quieter batches: at the default verbosity a batch prints one line per card that
needs a look (an error, a warning or a lossy note) and the summary; ``-v`` prints every note and
``--report`` keeps every note. A single card still prints its notes as before."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from a2a_migrate import cli
from transform_helpers import base_card

SCHEMA_SKILL = {"id": "s", "name": "S", "description": "d", "tags": ["t"],
                "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}


@pytest.fixture
def batch(tmp_path: Path) -> dict[str, Path]:
    """A lossy card (with a warning and assumed notes too), a card with a warning, and a card with neither."""
    cards = {"lossy": base_card(skills=[SCHEMA_SKILL], **{"x-vendor": 1}), "warning": base_card(**{"x-team": "search"}),
             "quiet": base_card()}
    paths = {}
    for name, card in cards.items():
        path = tmp_path / name / "agent-card.json"
        path.parent.mkdir()
        path.write_text(json.dumps(card, indent=2) + "\n")
        paths[name] = path
    return paths


def stderr_of(*args: str) -> list[str]:
    result = CliRunner().invoke(cli.main, list(args))
    assert result.exit_code == 1, result.output  # --check: the cards would change
    return result.stderr.splitlines()


def test_a_batch_prints_one_line_per_card_that_needs_a_look(batch: dict[str, Path], tmp_path: Path) -> None:
    lines = stderr_of("upgrade", "--check", str(tmp_path))[:-1]  # the last is the summary
    assert [line.split(": ", 1)[0] for line in lines] == [f"{batch['lossy']}:22:7", f"{batch['warning']}:24:3"], lines
    assert lines[0].startswith(f"{batch['lossy']}:22:7: lossy: [skill_io_schemas] /skills/0")
    assert lines[0].endswith("inputSchema dropped: no A2A version has a place for it (and 1 more: -v shows all)")
    assert lines[1].startswith(f"{batch['warning']}:24:3: warning: ")
    assert not any(": assumed: " in line for line in lines)


def test_verbose_and_the_report_give_every_note(batch: dict[str, Path], tmp_path: Path) -> None:
    verbose = stderr_of("upgrade", "--check", "-v", str(tmp_path))
    assert any(re.match(rf"{re.escape(str(batch['lossy']))}:\d+:\d+: assumed: \[skill_io_schemas\]", line) for line in verbose)
    assert any(re.match(rf"{re.escape(str(batch['quiet']))}:\d+:\d+: info: ", line) for line in verbose)
    report = tmp_path.parent / f"{tmp_path.name}-report.json"
    stderr_of("upgrade", "--check", "--report", str(report), str(tmp_path))
    notes = {card["path"]: {note["severity"] for note in card["notes"]} for card in json.loads(report.read_text())["cards"]}
    assert {"assumed", "lossy"} <= notes[str(batch["lossy"])]


def test_one_card_prints_its_notes_as_before(batch: dict[str, Path]) -> None:
    lines = stderr_of("upgrade", "--check", str(batch["lossy"]))
    assert any(": assumed: [skill_io_schemas]" in line for line in lines)
    assert any(": lossy: [skill_io_schemas]" in line for line in lines)

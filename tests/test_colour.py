"""Issue 14: colour at a terminal (severity words, diff lines), off when not a terminal, with
``NO_COLOR`` or ``--no-color``; card text is never coloured.

``CliRunner(color=True)`` stands for a terminal (click keeps the styles), the
default runner for a pipe or a file (click strips them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from a2a_migrate import cli

ESC = "\x1b["
CARD = {"name": "Echo", "description": "Echoes", "version": "1.0.0", "url": "https://echo.example.com/a2a",
        "protocolVersion": "0.3.0", "capabilities": {"stateTransitionHistory": True},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": []}


def invoke(args: list[str], *, terminal: bool, env: dict[str, Any] | None = None, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli.main, args, color=terminal, env=env, input=stdin)


@pytest.fixture
def card(tmp_path: Path) -> Path:
    path = tmp_path / "agent-card.json"
    path.write_text(json.dumps(CARD, indent=2) + "\n")
    return path


def test_severity_words_are_coloured_at_a_terminal(card: Path) -> None:
    done = invoke(["upgrade", "--check", str(card)], terminal=True)
    assert f"{ESC}35m{ESC}1mlossy{ESC}0m: [state_transition_history]" in done.stderr
    assert "\x1b" not in done.stdout


def test_no_colour_when_not_a_terminal(card: Path) -> None:
    done = invoke(["upgrade", "--check", "--diff", str(card)], terminal=False)
    assert "lossy: [state_transition_history]" in done.stderr and "-  \"url\"" in done.stdout
    assert "\x1b" not in done.stderr + done.stdout


@pytest.mark.parametrize("how", ["NO_COLOR", "--no-color on the command", "--no-color on the group"])
def test_no_color_and_the_option_turn_it_off(card: Path, how: str) -> None:
    args = ["upgrade", "--check", "--diff", str(card)]
    env = None
    if how == "NO_COLOR":
        env = {"NO_COLOR": "1"}
    elif how == "--no-color on the command":
        args.insert(1, "--no-color")
    else:
        args.insert(0, "--no-color")
    done = invoke(args, terminal=True, env=env)
    assert done.exit_code == 1, done.output
    assert "lossy" in done.stderr and "\x1b" not in done.stderr + done.stdout


def test_an_empty_no_color_leaves_colour_on(card: Path) -> None:  # no-color.org: "present and not empty"
    assert ESC in invoke(["upgrade", "--check", str(card)], terminal=True, env={"NO_COLOR": ""}).stderr


def test_diff_lines_are_coloured_by_kind(card: Path) -> None:
    done = invoke(["upgrade", "--diff", str(card)], terminal=True)
    lines = done.stdout.splitlines()
    assert any(line.startswith(f"{ESC}1m--- a/") for line in lines)
    assert any(line.startswith(f"{ESC}36m@@ ") for line in lines)
    assert any(line.startswith(f"{ESC}31m-  \"url\"") for line in lines)
    assert any(line.startswith(f"{ESC}32m+  \"supportedInterfaces\"") for line in lines)


def test_the_diff_command_colours_each_kind(card: Path, tmp_path: Path) -> None:
    new = tmp_path / "new.json"
    new.write_text(json.dumps({**CARD, "name": "Other", "iconUrl": "https://i.example/i.png"}))
    lines = invoke(["diff", str(card), str(new)], terminal=True).stdout.splitlines()
    assert any(line.startswith(f"{ESC}33mchanged  /name") for line in lines)
    assert any(line.startswith(f"{ESC}32madded    /iconUrl") for line in lines)


def test_card_text_on_stdout_is_never_coloured() -> None:
    done = invoke(["upgrade", "-"], terminal=True, stdin=json.dumps(CARD))
    assert ESC in done.stderr  # the notes are coloured ...
    assert "\x1b" not in done.stdout and json.loads(done.stdout)["name"] == "Echo"  # ... the card is not


def test_validate_findings_are_coloured(tmp_path: Path) -> None:
    bad = tmp_path / "agent-card.json"
    bad.write_text(json.dumps({**CARD, "skills": "none"}))
    done = invoke(["validate", str(bad)], terminal=True)
    assert f"{ESC}31m{ESC}1merror{ESC}0m: /skills" in done.stdout

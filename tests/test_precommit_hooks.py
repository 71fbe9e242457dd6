"""The pre-commit hooks the repo publishes (``.pre-commit-hooks.yaml``)."""

from __future__ import annotations

import configparser
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from a2a_migrate import cli

REPO = Path(__file__).resolve().parent.parent
HOOKS_FILE = REPO / ".pre-commit-hooks.yaml"
REQUIRED = ("id", "name", "entry", "language", "files")
CARD = json.dumps({
    "name": "Echo", "description": "Echoes messages", "url": "https://echo.example.com/a2a",
    "protocolVersion": "0.3.0", "version": "1.0.0", "capabilities": {},
    "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "echo", "name": "Echo", "description": "Echo back", "tags": ["echo"]}],
}, indent=2) + "\n"

MATCHED = [
    "agent-card.json", ".well-known/agent-card.json", "public/.well-known/agent.json", "agent_card.json",
    "src/AgentCard.json", "agent-card.yaml", "deploy/agent.yml", "cards/agent_card.yaml", "AgentCard.yml",
    "cards/weather.agent-card.json", "x.agent-card.json", "svc.agent-card.yaml", "svc.agent_card.json",
    "Agent-Card.json", "agentcard.json", "AGENT.JSON",
]
REJECTED = [
    "package.json", "my-agent-card.json", "superagent.json", "agent-card.json.bak", "agent-card.txt",
    "agent-cards.json", "agent.jsonl", "docs/agent.md", "agentcard.json.orig", "tsconfig.json",
    "agent-card.json/README.md", "agent-card-json", "weather.agent-card.json5",
]


def load_hooks() -> list[dict[str, Any]]:
    hooks = YAML(typ="safe", pure=True).load(HOOKS_FILE.read_text(encoding="utf-8"))
    assert isinstance(hooks, list), "a .pre-commit-hooks.yaml is a list of hooks"
    return hooks


def hook(hook_id: str) -> dict[str, Any]:
    return next(h for h in load_hooks() if h["id"] == hook_id)


def console_scripts() -> set[str]:
    config = configparser.ConfigParser()
    config.read(REPO / "setup.cfg")
    lines = config["options.entry_points"]["console_scripts"].strip().splitlines()
    return {line.split("=")[0].strip() for line in lines}


def test_the_two_hooks_are_there_with_the_required_keys() -> None:
    hooks = load_hooks()
    assert [h["id"] for h in hooks] == ["a2a-migrate-upgrade", "a2a-migrate-check"]
    for entry in hooks:
        missing = [key for key in REQUIRED if not isinstance(entry.get(key), str) or not entry[key]]
        assert not missing, f"{entry.get('id')}: missing or empty {missing}"
        assert entry["language"] == "python"
        assert entry.get("pass_filenames", True) is True, "the tool needs the file names"
        re.compile(entry["files"])


def test_entries() -> None:
    assert shlex.split(hook("a2a-migrate-upgrade")["entry"]) == ["a2a-migrate", "upgrade"]
    assert shlex.split(hook("a2a-migrate-check")["entry"]) == ["a2a-migrate", "upgrade", "--check"]


@pytest.mark.parametrize("hook_id", ["a2a-migrate-upgrade", "a2a-migrate-check"])
def test_entry_commands_exist_in_the_cli(hook_id: str) -> None:
    program, *arguments = shlex.split(hook(hook_id)["entry"])
    assert program in console_scripts(), f"{program} is not a console script of the package"
    # Every word of the entry must be known to click: an unknown subcommand or option
    # fails with exit 2 before --help is acted on.
    result = CliRunner().invoke(cli.main, [*arguments, "--help"])
    assert result.exit_code == 0, result.output
    assert f"Usage: main {arguments[0]} [OPTIONS] PATH..." in result.output


def test_an_unknown_word_in_an_entry_would_be_caught() -> None:
    # The check above is only worth something if a misspelt entry fails it.
    assert CliRunner().invoke(cli.main, ["upgrade", "--chek", "--help"]).exit_code == 2
    assert CliRunner().invoke(cli.main, ["upgrayd", "--help"]).exit_code == 2


@pytest.mark.parametrize("hook_id", ["a2a-migrate-upgrade", "a2a-migrate-check"])
@pytest.mark.parametrize("path", MATCHED)
def test_files_pattern_matches_card_names(hook_id: str, path: str) -> None:
    # pre-commit applies ``files`` with re.search to paths relative to the repo root.
    assert re.search(hook(hook_id)["files"], path), path


@pytest.mark.parametrize("hook_id", ["a2a-migrate-upgrade", "a2a-migrate-check"])
@pytest.mark.parametrize("path", REJECTED)
def test_files_pattern_rejects_other_files(hook_id: str, path: str) -> None:
    assert not re.search(hook(hook_id)["files"], path), path


def test_files_pattern_agrees_with_discovery_on_the_sample_names() -> None:
    from a2a_migrate.discover import is_card_name

    for path in MATCHED:
        assert is_card_name(path.rsplit("/", 1)[-1]), path
    for path in REJECTED:
        assert not is_card_name(path.rsplit("/", 1)[-1]), path


def test_hooks_run_as_pre_commit_runs_them(tmp_path: Path) -> None:
    """pre-commit appends the staged file names to the entry: check fails, upgrade fixes, check passes."""
    card = tmp_path / ".well-known" / "agent-card.json"
    card.parent.mkdir()
    card.write_text(CARD)
    check = shlex.split(hook("a2a-migrate-check")["entry"])[1:]
    upgrade = shlex.split(hook("a2a-migrate-upgrade")["entry"])[1:]
    runner = CliRunner()

    assert runner.invoke(cli.main, [*check, str(card)]).exit_code == 1
    assert card.read_text() == CARD
    result = runner.invoke(cli.main, [*upgrade, str(card)])
    assert result.exit_code == 0, result.output
    assert "supportedInterfaces" in json.loads(card.read_text())
    assert runner.invoke(cli.main, [*check, str(card)]).exit_code == 0

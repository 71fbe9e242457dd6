"""Defects a review found by using the tool; each test fails if the defect comes back."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from a2a_migrate import cli
from a2a_migrate.batch import Job, migrate_text
from transform_helpers import base_card


def invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(cli.main, list(args), input=stdin)


def test_vendor_members_of_a_repeated_interface_are_reported_lost() -> None:
    card = base_card(additionalInterfaces=[{"url": "https://echo.example.com/a2a", "transport": "JSONRPC", "x-note": "dup"}])
    outcome = migrate_text(json.dumps(card), "card.json", Job("up"))
    lossy = [(n.pointer, n.transform) for n in outcome.notes if n.severity == "lossy"]
    assert ("/additionalInterfaces/0/x-note", "endpoints") in lossy


def test_yaml_timestamps_in_object_examples_do_not_crash() -> None:
    text = ("name: A\ndescription: d\nurl: https://a.example.com/a2a\nversion: '1'\nskills:\n"
            "  - {id: s, name: S, description: d, tags: [t], examples: [{when: 2024-01-01T10:00:00Z}]}\n")
    outcome = migrate_text(text, "agent.yaml", Job("up", record=True))
    assert outcome.status == "changed", outcome.notes
    assert "2024-01-01" in outcome.new_text
    assert all("$yamlTimestamp" not in json.dumps(op) for op in outcome.patch)


def test_yaml_timestamps_in_patches_are_plain_strings() -> None:
    text = "name: A\ndescription: d\nurl: https://a.example.com/a2a\nversion: '1'\nreleased: 2024-01-01\nskills: []\n"
    outcome = migrate_text(text, "agent.yaml", Job("up", record=True))
    assert "$yamlTimestamp" not in json.dumps(outcome.patch)


def test_output_folder_never_lets_one_result_overwrite_another(tmp_path: Path, monkeypatch) -> None:
    for folder in ("d1", "d2"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "agent-card.json").write_text(json.dumps(base_card(name=folder)))
    monkeypatch.chdir(tmp_path)
    named = invoke("upgrade", "-q", "-o", "out", "d1/agent-card.json", "d2/agent-card.json")
    assert named.exit_code == 0
    assert json.loads((tmp_path / "out" / "d2" / "agent-card.json").read_text())["name"] == "d2"
    folders = invoke("upgrade", "-q", "-o", "out2", "d1", "d2")
    assert folders.exit_code == 123
    assert "d2/agent-card.json: error: its result would overwrite that of d1/agent-card.json in out2" in folders.stderr
    assert json.loads((tmp_path / "out2" / "agent-card.json").read_text())["name"] == "d1"


def test_a_report_that_cannot_be_written_fails_the_run(tmp_path: Path) -> None:
    card = tmp_path / "agent-card.json"
    card.write_text(json.dumps(base_card()))
    locked = tmp_path / "locked"
    locked.mkdir()
    os.chmod(locked, 0o555)
    try:
        result = invoke("upgrade", "-q", "--check", "--report", str(locked / "r.json"), str(card))
    finally:
        os.chmod(locked, 0o755)
    assert result.exit_code == 123
    assert f"{locked / 'r.json'}: error: cannot write: the folder is read-only" in result.stderr


@pytest.mark.parametrize("url", ["", 5])
def test_default_url_replaces_an_unusable_url(url) -> None:
    text = json.dumps(base_card(url=url))
    refused = migrate_text(text, "card.json", Job("up"))
    assert refused.status == "failed"
    assert any(n.pointer == "/url" and "--default-url" in n.message for n in refused.notes if n.severity == "error")
    from a2a_migrate.context import Options

    fixed = migrate_text(text, "card.json", Job("up", Options(default_url="https://x.example.com/a2a")))
    assert fixed.status == "changed" and "https://x.example.com/a2a" in fixed.new_text


def test_patch_of_one_refused_input_is_still_an_array(tmp_path: Path) -> None:
    card = tmp_path / "agent-card.json"
    card.write_text(json.dumps(base_card(url="")))
    result = invoke("upgrade", "-q", "--patch", str(card))
    assert result.exit_code == 123 and json.loads(result.stdout) == []


def test_apply_of_a_tool_patch_to_a_yaml_card_with_aliases(tmp_path: Path) -> None:
    card = tmp_path / "agent-card.yaml"
    card.write_text("name: A\ndescription: d\nurl: https://a.example.com/a2a\nprotocolVersion: '0.3.0'\nversion: '1'\n"
                    "securitySchemes:\n  key: &scheme {type: apiKey, in: header, name: X-Key}\n  key2: *scheme\n"
                    "security: [{key: []}]\nskills:\n  - {id: s, name: S, description: d, tags: [t]}\n")
    patch = tmp_path / "patch.json"
    patch.write_text(invoke("upgrade", "--patch", str(card)).stdout)
    result = invoke("apply", "--patch", str(patch), str(card))
    assert result.exit_code == 0, result.output
    assert card.read_text().count("apiKeySecurityScheme: {location: header, name: X-Key}") == 2


def test_unreadable_folder_is_an_error_not_a_silent_pass(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "agent-card.json").write_text(json.dumps(base_card()))
    real_scandir = os.scandir

    def scandir(path):
        if Path(path).name == "cards":
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr("a2a_migrate.discover.os.scandir", scandir)
    result = invoke("upgrade", "--check", str(tmp_path))
    assert result.exit_code == 123
    assert f"{tmp_path / 'cards'}: error: cannot read the folder: Permission denied" in result.stderr

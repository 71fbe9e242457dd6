"""The upgrade command: options, outputs, exit codes, streams."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from a2a_migrate import cli, io
from transform_helpers import base_card

CARD = json.dumps(base_card(), indent=2) + "\n"
CLEAN = json.dumps({
    "name": "Echo", "description": "Echoes messages",
    "supportedInterfaces": [{"url": "https://echo.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}],
    "version": "1.0.0", "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "echo", "name": "Echo", "description": "Echo back", "tags": ["echo"]}],
}, indent=2) + "\n"


def invoke(*args: str, stdin: str | None = None):
    return CliRunner().invoke(cli.main, list(args), input=stdin)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "agent-card.json").write_text(CARD)
    (tmp_path / "b.agent-card.json").write_text(CLEAN)
    (tmp_path / "package.json").write_text('{"name": "not-a-card", "version": "1.0.0"}')
    (tmp_path / "notes.txt").write_text("hello")
    return tmp_path


def test_in_place_rewrites_only_changed_cards(tree: Path) -> None:
    clean = tree / "b.agent-card.json"
    before = clean.stat().st_mtime_ns
    result = invoke("upgrade", "-j", "1", str(tree))
    assert result.exit_code == 0, result.output
    assert json.loads((tree / "a" / "agent-card.json").read_text()) == json.loads(CLEAN)
    assert clean.stat().st_mtime_ns == before
    assert (tree / "package.json").read_text() == '{"name": "not-a-card", "version": "1.0.0"}'
    assert result.stderr.splitlines()[-1] == "1 card upgraded, 1 already 1.0, 1 skipped"


def test_check_writes_nothing_and_exits_1(tree: Path) -> None:
    result = invoke("upgrade", "--check", str(tree))
    assert result.exit_code == 1
    assert (tree / "a" / "agent-card.json").read_text() == CARD
    assert "1 card would be upgraded" in result.stderr
    assert invoke("upgrade", "--check", str(tree / "b.agent-card.json")).exit_code == 0


def test_stdin_to_stdout() -> None:
    result = invoke("upgrade", "-", stdin=CARD)
    assert result.exit_code == 0
    assert json.loads(result.stdout) == json.loads(CLEAN)


def test_diff_prints_unified_diff_and_writes_nothing(tree: Path) -> None:
    path = tree / "a" / "agent-card.json"
    result = invoke("upgrade", "--diff", str(path))
    assert result.exit_code == 0
    assert result.stdout.startswith(f"--- a/{str(path).lstrip('/')}\n+++ b/{str(path).lstrip('/')}\n")
    assert '-  "url": "https://echo.example.com/a2a",' in result.stdout
    assert path.read_text() == CARD


def test_patch_one_input_is_an_array_that_applies(tree: Path) -> None:
    import jsonpatch

    result = invoke("upgrade", "--patch", str(tree / "a" / "agent-card.json"))
    patch = json.loads(result.stdout)
    assert isinstance(patch, list)
    assert jsonpatch.apply_patch(json.loads(CARD), patch) == json.loads(CLEAN)


def test_patch_several_inputs_is_keyed_by_path(tree: Path) -> None:
    result = invoke("upgrade", "--patch", str(tree / "a" / "agent-card.json"), str(tree / "b.agent-card.json"))
    patches = json.loads(result.stdout)
    assert sorted(patches) == sorted([str(tree / "a" / "agent-card.json"), str(tree / "b.agent-card.json")])
    assert patches[str(tree / "b.agent-card.json")] == []


def test_report_holds_versions_notes_and_labelled_patch(tree: Path) -> None:
    report_path = tree / "report.json"
    result = invoke("upgrade", "--report", str(report_path), str(tree / "a" / "agent-card.json"))
    assert result.exit_code == 0
    (card,) = json.loads(report_path.read_text())["cards"]
    assert (card["sourceVersion"], card["targetVersion"], card["changed"]) == ("0.3", "1.0", True)
    assert len(card["patch"]) == len(card["transforms"]) and "endpoints" in card["transforms"]
    assert all(set(note) == {"severity", "transform", "pointer", "message", "line", "column"} for note in card["notes"])


def test_output_dir_mirrors_the_tree_and_leaves_sources(tree: Path, tmp_path_factory) -> None:
    out = tmp_path_factory.mktemp("out")
    result = invoke("upgrade", "-o", str(out), str(tree))
    assert result.exit_code == 0
    assert json.loads((out / "a" / "agent-card.json").read_text()) == json.loads(CLEAN)
    assert (out / "b.agent-card.json").read_text() == CLEAN
    assert (tree / "a" / "agent-card.json").read_text() == CARD


def test_refused_and_broken_cards_exit_123_and_the_others_are_processed(tree: Path) -> None:
    (tree / "broken.agent-card.json").write_text("{ nope")
    no_version = base_card()
    del no_version["version"]
    (tree / "nov.agent-card.json").write_text(json.dumps(no_version))
    result = invoke("upgrade", str(tree), str(tree / "missing.json"))
    assert result.exit_code == 123
    lines = result.stderr.splitlines()
    assert f"{tree / 'broken.agent-card.json'}: error: line 1 column 3: not valid JSON: Expecting property name enclosed in double quotes" in lines
    assert f"{tree / 'nov.agent-card.json'}:1:1: error: [card_identity] /version: version is missing; the tool does not invent it: pass --default-version" in lines
    assert f"{tree / 'missing.json'}: error: no such file or folder" in lines
    assert json.loads((tree / "a" / "agent-card.json").read_text()) == json.loads(CLEAN)
    assert "Traceback" not in result.output


def test_default_options_supply_what_is_missing(tmp_path: Path) -> None:
    card = base_card()
    del card["version"], card["url"]
    path = tmp_path / "agent.json"
    path.write_text(json.dumps(card))
    assert invoke("upgrade", "--default-version", "0.9.0", "--default-url", "https://d.example", str(path)).exit_code == 0
    upgraded = json.loads(path.read_text())
    assert upgraded["version"] == "0.9.0"
    assert upgraded["supportedInterfaces"][0]["url"] == "https://d.example"


def test_interface_version_declares_1_0() -> None:
    result = invoke("upgrade", "--interface-version", "1.0", "-", stdin=CARD)
    assert json.loads(result.stdout)["supportedInterfaces"][0]["protocolVersion"] == "1.0"


def test_strict_fails_lossy_cards_and_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "agent.json"
    text = json.dumps(base_card(capabilities={"stateTransitionHistory": True}))
    path.write_text(text)
    result = invoke("upgrade", "--strict", str(path))
    assert result.exit_code == 123
    assert path.read_text() == text
    assert "lossy: [state_transition_history] /capabilities/stateTransitionHistory" in result.stderr


def test_keep_signatures() -> None:
    signed = json.dumps(base_card(signatures=[{"protected": "eyJhbGciOiJFUzI1NiJ9", "signature": "c2ln"}]))
    assert "signatures" not in json.loads(invoke("upgrade", "-", stdin=signed).stdout)
    assert "signatures" in json.loads(invoke("upgrade", "--keep-signatures", "-", stdin=signed).stdout)


def test_quiet_and_verbose(tree: Path) -> None:
    path = str(tree / "a" / "agent-card.json")
    assert invoke("upgrade", "--check", "-q", path).stderr == ""
    verbose = invoke("upgrade", "--check", "-v", path).stderr
    assert ": info: [endpoints] /url:" in verbose
    assert ": info: " not in invoke("upgrade", "--check", path).stderr


def test_include_and_exclude(tree: Path) -> None:
    (tree / "cards").mkdir()
    (tree / "cards" / "echo.json").write_text(CARD)
    result = invoke("upgrade", "--check", "-q", "--exclude", "a", "--include", "cards/*.json", "--report", str(tree / "r.json"), str(tree))
    assert result.exit_code == 1
    report = json.loads((tree / "r.json").read_text())
    assert {card["path"]: card["status"] for card in report["cards"]} == {
        str(tree / "b.agent-card.json"): "unchanged", str(tree / "cards" / "echo.json"): "changed",
        str(tree / "package.json"): "skipped"}


def test_usage_errors_exit_2() -> None:
    assert invoke("upgrade").exit_code == 2
    assert invoke("upgrade", "--jobs", "0", "x").exit_code == 2
    assert invoke("frobnicate").exit_code == 2


def test_version_and_detect(tree: Path) -> None:
    assert invoke("--version").stdout.startswith("a2a-migrate, version ")
    result = invoke("detect", str(tree))
    assert result.stdout.splitlines() == [f"{tree / 'b.agent-card.json'}: 1.0", f"{tree / 'a' / 'agent-card.json'}: 0.3"]


def test_a_failed_write_is_an_error_for_that_file_only(tree: Path, monkeypatch) -> None:
    real = io.WriteGroup.add

    def refuse(group, path, text):
        if path.name == "agent-card.json":
            raise io.CardError("cannot write: Permission denied")
        real(group, path, text)

    monkeypatch.setattr(io.WriteGroup, "add", refuse)
    (tree / "c.agent-card.json").write_text(CARD)
    result = invoke("upgrade", "-j", "1", str(tree))
    assert result.exit_code == 123
    assert f"{tree / 'a' / 'agent-card.json'}: error: cannot write: Permission denied" in result.stderr.splitlines()
    assert json.loads((tree / "c.agent-card.json").read_text()) == json.loads(CLEAN)
    assert not [name for name in os.listdir(tree) if name.endswith(".tmp")]


def test_interface_version_must_be_a_version() -> None:
    result = invoke("upgrade", "--interface-version", "latest", "-", stdin=CARD)
    assert result.exit_code == 2
    assert '"latest" is not a protocol version' in result.stderr


def test_no_validate_writes_what_validation_refuses(tmp_path: Path) -> None:
    card = base_card(securitySchemes={"k": {"type": "apiKey", "name": "K"}}, security=[{"k": []}])
    path = tmp_path / "agent.json"
    path.write_text(json.dumps(card))
    refused = invoke("upgrade", str(path))
    assert refused.exit_code == 123
    assert "error: [validate] /securitySchemes/k/apiKeySecurityScheme/location:" in refused.stderr
    assert invoke("upgrade", "--no-validate", str(path)).exit_code == 0
    assert json.loads(path.read_text())["securitySchemes"] == {"k": {"apiKeySecurityScheme": {"name": "K"}}}


def test_validate_command_text_json_and_exit_codes(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(CLEAN)
    broken = json.loads(CLEAN)
    del broken["skills"][0]["name"]
    bad.write_text(json.dumps(broken))
    assert invoke("validate", str(good)).exit_code == 0
    result = invoke("validate", str(good), str(bad))
    assert result.exit_code == 1
    skill = bad.read_text().index("{", bad.read_text().index('"skills"')) + 1  # the skill lacking a name, on line 1
    assert f"{bad}:1:{skill}: error: /skills/0/name: missing required member 'name' [required]" in result.stdout
    document = json.loads(invoke("validate", "--format", "json", str(bad)).stdout)
    assert document["cards"][0]["valid"] is False and document["cards"][0]["version"] == "1.0"
    assert invoke("validate", "--version", "0.3", str(good)).exit_code == 1
    assert invoke("validate", str(tmp_path / "nope.json")).exit_code == 123


def test_validate_strict_fails_on_warnings(tmp_path: Path) -> None:
    card = json.loads(CLEAN)
    card["supportedInterfaces"][0]["url"] = "http://localhost:8080/a2a"  # a lint warning, not an error
    path = tmp_path / "agent-card.json"
    path.write_text(json.dumps(card))
    relaxed, strict = invoke("validate", str(path)), invoke("validate", "--strict", str(path))
    assert relaxed.exit_code == 0 and "warning: /supportedInterfaces/0/url:" in relaxed.stdout
    assert strict.exit_code == 1 and strict.stderr.strip() == "0 valid, 1 invalid"


def test_a_yaml_date_version_is_rewritten_as_a_string(tmp_path: Path) -> None:
    card = tmp_path / "agent.yaml"
    card.write_text(CLEAN_YAML.replace("version: '1.0.0'", "version: 2024-01-01"))
    check = invoke("upgrade", "--check", str(card))
    assert check.exit_code == 1
    assert invoke("upgrade", str(card)).exit_code == 0
    assert "version: '2024-01-01'" in card.read_text()
    assert invoke("upgrade", "--check", str(card)).exit_code == 0


CLEAN_YAML = """name: Echo
description: Echoes messages
supportedInterfaces:
  - url: https://echo.example.com/a2a
    protocolBinding: JSONRPC
    protocolVersion: '0.3'
version: '1.0.0'
capabilities: {}
defaultInputModes: [text/plain]
defaultOutputModes: [text/plain]
skills:
  - id: echo
    name: Echo
    description: Echo back
    tags: [echo]
"""


# -- issue 10: honest severities, --strict and --fail-on ------------------------------------------


def _card_file(tmp_path: Path, **members: object) -> Path:
    path = tmp_path / "agent-card.json"
    path.write_text(json.dumps(base_card(**members), indent=2) + "\n")
    return path


def test_strict_passes_a_card_whose_only_loss_is_a_false_history_flag(tmp_path: Path) -> None:
    path = _card_file(tmp_path, capabilities={"stateTransitionHistory": False})
    result = invoke("upgrade", "--strict", str(path))
    assert result.exit_code == 0, result.stderr
    assert "stateTransitionHistory" not in json.loads(path.read_text())["capabilities"]


def test_strict_refuses_a_true_history_flag_and_says_which_note_refused_it(tmp_path: Path) -> None:
    path = _card_file(tmp_path, capabilities={"stateTransitionHistory": True})
    before = path.read_text()
    result = invoke("upgrade", "--strict", "-q", str(path))
    assert result.exit_code == 123
    assert path.read_text() == before
    assert result.stderr.splitlines() == [
        f"{path}: error: refused by --fail-on lossy: 1 lossy note(s) at /capabilities/stateTransitionHistory"]


def test_the_report_error_field_says_the_same(tmp_path: Path) -> None:
    path = _card_file(tmp_path, capabilities={"stateTransitionHistory": True})
    report = tmp_path / "report.json"
    invoke("upgrade", "--strict", "--report", str(report), str(path))
    card = json.loads(report.read_text())["cards"][0]
    assert card["error"] == "refused by --fail-on lossy: 1 lossy note(s) at /capabilities/stateTransitionHistory"


@pytest.mark.parametrize(("fail_on", "code"), [("lossy", 0), ("warning", 123), ("assumed", 123)])
def test_fail_on_sets_the_least_severity_that_fails(tmp_path: Path, fail_on: str, code: int) -> None:
    # a vendor member is a warning; nothing is lossy or assumed in this card otherwise
    path = _card_file(tmp_path, **{"x-team": "search"})
    result = invoke("upgrade", "--fail-on", fail_on, "--check", str(path))
    assert result.exit_code == (1 if code == 0 else code), result.stderr


def test_made_up_examples_are_assumed_and_a_lost_schema_is_lossy(tmp_path: Path) -> None:
    path = _card_file(tmp_path, skills=[{"id": "s", "name": "S", "description": "d", "tags": ["t"],
                                         "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}}])
    lossy_only = invoke("upgrade", "--fail-on", "lossy", "--check", str(path))
    assert lossy_only.exit_code == 123  # inputSchema itself is lost
    assert "assumed: [skill_io_schemas] /skills/0/examples: an example made up from inputSchema" in lossy_only.stderr


def test_default_provider_url_keeps_a_provider_without_url(tmp_path: Path) -> None:
    path = _card_file(tmp_path, provider={"organization": "Acme"})
    dropped = invoke("upgrade", "--check", str(path))
    assert 'lossy: [provider_organization] /provider: provider {"organization": "Acme"} dropped' in dropped.stderr
    kept = invoke("upgrade", "--default-provider-url", "https://acme.example", str(path))
    assert kept.exit_code == 0, kept.stderr
    assert json.loads(path.read_text())["provider"] == {"organization": "Acme", "url": "https://acme.example"}

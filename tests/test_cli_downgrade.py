"""The downgrade command, and --hybrid on both commands: options, outputs, exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from test_downgrade_golden import assert_valid_v03, v10_lenient_error

from a2a_migrate import cli

V1 = {
    "name": "Echo", "description": "Echoes messages",
    "supportedInterfaces": [{"url": "https://echo.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}],
    "version": "1.0.0", "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "echo", "name": "Echo", "description": "Echo back", "tags": ["echo"]}],
}
V03 = {
    "name": "Echo", "description": "Echoes messages",
    "url": "https://echo.example.com/a2a", "preferredTransport": "JSONRPC", "protocolVersion": "0.3.0",
    "version": "1.0.0", "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "echo", "name": "Echo", "description": "Echo back", "tags": ["echo"]}],
}


def text(card: dict[str, Any]) -> str:
    return json.dumps(card, indent=2) + "\n"


def with_interfaces(*interfaces: dict[str, Any]) -> dict[str, Any]:
    return {**V1, "supportedInterfaces": list(interfaces)}


V1_ONLY = with_interfaces({"url": "https://echo.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"})
TENANT = with_interfaces({"url": "https://echo.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "0.3",
                          "tenant": "acme"})


def invoke(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(cli.main, list(args), input=stdin)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "agent-card.json").write_text(text(V1))
    (tmp_path / "old.agent-card.json").write_text(text(V03))
    return tmp_path


def test_downgrade_in_place(tree: Path) -> None:
    result = invoke("downgrade", "-j", "1", str(tree))
    assert result.exit_code == 0, result.output
    assert json.loads((tree / "new" / "agent-card.json").read_text()) == V03
    assert (tree / "old.agent-card.json").read_text() == text(V03)
    assert result.stderr.splitlines()[-1] == "1 card downgraded, 1 already 0.3"


def test_stdin_to_stdout_is_valid_0_3() -> None:
    result = invoke("downgrade", "-", stdin=text(V1))
    assert result.exit_code == 0
    assert json.loads(result.stdout) == V03
    assert_valid_v03(json.loads(result.stdout))


def test_check_exits_1_and_writes_nothing(tree: Path) -> None:
    result = invoke("downgrade", "--check", str(tree))
    assert result.exit_code == 1
    assert json.loads((tree / "new" / "agent-card.json").read_text()) == V1
    assert "1 card would be downgraded, 1 already 0.3" in result.stderr
    assert invoke("downgrade", "--check", str(tree / "old.agent-card.json")).exit_code == 0


def test_refusal_exits_123_and_names_the_gateway_option(tmp_path: Path) -> None:
    card = tmp_path / "agent-card.json"
    card.write_text(text(V1_ONLY))
    result = invoke("downgrade", str(card))
    assert result.exit_code == 123
    assert card.read_text() == text(V1_ONLY)
    assert f"{card}:4:3: error: [interface_protocol_version] /supportedInterfaces:" in result.stderr
    assert "--interface-version 0.3" in result.stderr
    assert result.stderr.splitlines()[-1] == "0 cards downgraded, 0 already 0.3, 1 failed"


def test_interface_version_0_3_offers_1_0_endpoints(tmp_path: Path) -> None:
    result = invoke("downgrade", "--interface-version", "0.3", "-", stdin=text(V1_ONLY))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["url"] == "https://echo.example.com/a2a"


def test_one_refusal_does_not_stop_the_others(tree: Path) -> None:
    (tree / "v1-only.agent-card.json").write_text(text(V1_ONLY))
    result = invoke("downgrade", "-j", "1", str(tree))
    assert result.exit_code == 123
    assert json.loads((tree / "new" / "agent-card.json").read_text()) == V03


def test_tenant_interface_left_out_or_kept() -> None:
    refused = invoke("downgrade", "-", stdin=text(TENANT))
    assert refused.exit_code == 123
    assert "lossy: [endpoints] /supportedInterfaces/0: interface with tenant \"acme\" left out" in refused.stderr
    assert "--keep-tenant-interfaces" in refused.stderr
    kept = invoke("downgrade", "--keep-tenant-interfaces", "-", stdin=text(TENANT))
    assert kept.exit_code == 0
    assert json.loads(kept.stdout) == V03
    assert 'lossy: [endpoints] /supportedInterfaces/0/tenant: tenant "acme" dropped' in kept.stderr


def test_strict_fails_lossy_downgrades() -> None:
    result = invoke("downgrade", "--strict", "--keep-tenant-interfaces", "-", stdin=text(TENANT))
    assert result.exit_code == 123
    assert result.stdout == ""


def test_patch_and_report(tmp_path: Path) -> None:
    card = tmp_path / "agent-card.json"
    card.write_text(text(V1))
    patch = invoke("downgrade", "--patch", str(card))
    assert patch.exit_code == 0
    import jsonpatch

    assert jsonpatch.apply_patch(V1, json.loads(patch.stdout)) == V03
    assert card.read_text() == text(V1)
    report_file = tmp_path / "report.json"
    assert invoke("downgrade", "--report", str(report_file), str(card)).exit_code == 0
    report = json.loads(report_file.read_text())
    assert report["direction"] == "down"
    [entry] = report["cards"]
    assert (entry["sourceVersion"], entry["targetVersion"], entry["changed"]) == ("1.0", "0.3", True)
    assert "endpoints" in entry["transforms"]


@pytest.mark.parametrize("command", ["upgrade", "downgrade"])
def test_hybrid_from_either_direction(command: str) -> None:
    source = V03 if command == "upgrade" else V1
    result = invoke(command, "--hybrid", "-", stdin=text(source))
    assert result.exit_code == 0, result.output
    card = json.loads(result.stdout)
    assert list(card)[:7] == ["name", "description", "supportedInterfaces", "url", "preferredTransport",
                              "protocolVersion", "version"]
    assert_valid_v03(card)
    assert v10_lenient_error(card) is None
    again = invoke(command, "--hybrid", "--check", "-", stdin=result.stdout)
    assert again.exit_code == 0 and "already hybrid" in again.stderr


def test_hybrid_upgraded_without_hybrid_is_the_clean_card() -> None:
    hybrid = invoke("downgrade", "--hybrid", "-", stdin=text(V1)).stdout
    clean = invoke("upgrade", "-", stdin=hybrid)
    assert clean.exit_code == 0
    assert json.loads(clean.stdout) == V1


def test_hybrid_of_a_card_no_0_3_client_can_use_is_refused() -> None:
    result = invoke("upgrade", "--hybrid", "--interface-version", "1.0", "-", stdin=text(V03))
    assert result.exit_code == 123
    assert "--interface-version 0.3" in result.stderr


@pytest.mark.parametrize("command", ["upgrade", "downgrade"])
def test_help_says_what_hybrid_costs(command: str) -> None:
    result = invoke(command, "--help")
    assert result.exit_code == 0
    flat = " ".join(result.output.split())
    assert "--hybrid" in flat and "strict 1.0 parsers reject it" in flat and "signatures cover all of it" in flat


def test_downgrade_help_lists_its_options() -> None:
    flat = " ".join(invoke("downgrade", "--help").output.split())
    for option in ("--keep-tenant-interfaces", "--interface-version", "--check", "--diff", "--patch", "--strict", "-o"):
        assert option in flat
    assert "--keep-tenant-interfaces" not in " ".join(invoke("upgrade", "--help").output.split())


def test_usage_error_exits_2() -> None:
    assert invoke("downgrade").exit_code == 2
    assert invoke("downgrade", "--no-such-option", "x").exit_code == 2

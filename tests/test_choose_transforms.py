"""Choosing transforms (issue 13): --skip, --only, their dependency rules, and the catalogue commands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import a2a_migrate.transforms as transforms
from a2a_migrate import chain, cli
from a2a_migrate.api import migrate_in_place
from a2a_migrate.context import Options
from a2a_migrate.engine import transform_name

NAMES = [transform_name(module) for module in transforms.UPGRADE]
CARD_03 = {
    "name": "Weather", "description": "Forecasts.", "version": "1.0.0",
    "url": "http://localhost:8000/a2a", "protocolVersion": "0.3.0", "x-team": "platform",
    "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "forecast", "name": "Forecast", "description": "Daily.", "tags": ["weather"]}],
}


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli.main, list(args))


def card_file(tmp_path: Path) -> Path:
    path = tmp_path / "agent-card.json"
    path.write_text(json.dumps(CARD_03, indent=2) + "\n", "utf-8")
    return path


def test_needs_name_only_transforms_of_both_chains() -> None:
    for name, needed in chain.NEEDS.items():
        assert name in NAMES and set(needed) <= set(NAMES)


def test_skip_leaves_exactly_that_transform_out() -> None:
    result = migrate_in_place(json.loads(json.dumps(CARD_03)), "up", Options(skip=("vendor_members",)))
    assert result.ok
    assert "vendor_members" not in {note.transform for note in result.notes}
    assert result.card["x-team"] == "platform"
    full = migrate_in_place(json.loads(json.dumps(CARD_03)), "up", Options())
    assert "vendor_members" in {note.transform for note in full.notes}


def test_only_runs_just_the_named_transforms(tmp_path: Path) -> None:
    path = card_file(tmp_path)
    result = invoke("upgrade", "--patch", "--only", "endpoints", "--only", "interface_protocol_version", str(path))
    assert result.exit_code == 0, result.output
    report = tmp_path / "r.json"
    invoke("upgrade", "--report", str(report), "--check", "--only", "endpoints", "--only", "interface_protocol_version",
           str(path))
    labels = set(json.loads(report.read_text("utf-8"))["cards"][0]["transforms"])
    assert labels == {"endpoints", "interface_protocol_version"}


@pytest.mark.parametrize("args, message", [
    (["--skip", "security_schemes"],
     "legacy_authentication needs security_schemes: --skip security_schemes leaves it out"),
    (["--only", "interface_protocol_version"], "interface_protocol_version needs endpoints: add --only endpoints"),
    (["--skip", "endpoint"], "no transform named 'endpoint'"),
    (["--hybrid", "--skip", "vendor_members"], "--skip and --only cannot be used with --hybrid"),
    (["--plugin", "no-such-plugin"], "no plugin named 'no-such-plugin' in entry-point group a2a_migrate.transforms"),
], ids=["needed-by-later", "only-without-need", "unknown", "hybrid", "unknown-plugin"])
def test_refused_combinations_are_usage_errors_naming_the_transforms(tmp_path: Path, args: list[str],
                                                                   message: str) -> None:
    path = card_file(tmp_path)
    before = path.read_text("utf-8")
    result = invoke("upgrade", *args, str(path))
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
    assert path.read_text("utf-8") == before


def test_the_library_refuses_the_same_chain() -> None:
    with pytest.raises(chain.ChainError, match="oauth_flows needs security_schemes"):
        chain.select("down", skip=("security_schemes", "legacy_authentication"))
    assert len(chain.select("up", skip=("vendor_members",))) == len(NAMES) - 1


def test_transforms_lists_the_chain_in_order_with_purpose_and_spec() -> None:
    result = invoke("transforms")
    assert result.exit_code == 0
    lines = [line for line in result.output.splitlines() if line[:3].strip().rstrip(".").isdigit()]
    assert [line.split()[1] for line in lines] == NAMES
    assert all(line.endswith("]") and "[" in line for line in lines)  # each with its spec reference
    down = invoke("transforms", "--down")
    assert [line.split()[1] for line in down.output.splitlines() if line[:3].strip().rstrip(".").isdigit()] == [
        transform_name(module) for module in transforms.DOWNGRADE]


def test_transforms_name_prints_the_documentation_and_an_example() -> None:
    result = invoke("transforms", "endpoints")
    assert result.exit_code == 0
    assert "Spec: " in result.output and "become ``supportedInterfaces``" in result.output
    before, after = result.output.split("Example (upgrade), before:", 1)[1].split("after:", 1)
    assert '"url": "https://agent.example.com/a2a"' in before and '"supportedInterfaces"' in after
    assert invoke("transforms", "nope").exit_code == 2


@pytest.mark.parametrize("module", transforms.UPGRADE, ids=transform_name)
def test_every_transform_has_a_spec_reference_and_an_example_that_does_something(module) -> None:
    assert module.SPEC
    before, after, notes = chain.example(module)
    assert after != before or notes  # vendor_members changes nothing, it reports

"""Issue 14: the typed, complete Python API, importable from the package.

Each public function is called as a user would (``from a2a_migrate import ...``),
its results checked, and each wrong call must fail at the call with a
``TypeError`` that says what to do. A strict mypy run over a small client proves
the signatures are typed: a misspelt option is a type error before it runs.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import a2a_migrate
from a2a_migrate import (CardError, Options, apply, diff, downgrade, migrate_text, plan, sign, upgrade, validate,
                         verify)

ROOT = Path(__file__).resolve().parents[1]
CARD: dict[str, Any] = {
    "name": "Echo", "description": "Echoes", "version": "1.0.0", "url": "https://echo.example.com/a2a",
    "protocolVersion": "0.3.0", "capabilities": {"stateTransitionHistory": False},
    "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": [],
}


def test_every_public_name_is_importable_and_listed() -> None:
    for name in a2a_migrate.__all__:
        assert getattr(a2a_migrate, name) is not None, name
    assert {"upgrade", "downgrade", "migrate_text", "plan", "apply", "diff", "validate", "sign", "verify"} <= set(
        a2a_migrate.__all__)


def test_a_function_is_not_shadowed_by_a_module_of_the_same_name() -> None:
    # Importing every library module must leave the package's public names the functions they are.
    for module in ("plans", "applying", "validation", "semantic_diff", "signing", "api"):
        importlib.import_module(f"a2a_migrate.{module}")
    for name in ("plan", "apply", "diff", "validate", "sign", "verify"):
        assert callable(getattr(a2a_migrate, name)) and getattr(a2a_migrate, name).__module__ == "a2a_migrate.api"


def test_upgrade_with_keyword_options_and_with_an_options_value_agree() -> None:
    by_keywords = upgrade(CARD, interface_version="1.0", default_provider_url="https://p.example")
    by_value = upgrade(CARD, Options(interface_version="1.0", default_provider_url="https://p.example"))
    assert by_keywords.card == by_value.card
    assert by_keywords.card["supportedInterfaces"][0]["protocolVersion"] == "1.0"
    assert CARD["url"] == "https://echo.example.com/a2a"  # the input is not modified


def test_patch_false_records_no_patch_and_gives_the_same_card() -> None:
    recorded, bare = upgrade(CARD), upgrade(CARD, patch=False)
    assert recorded.patch and bare.patch == []
    assert bare.card == recorded.card and bare.notes == recorded.notes and bare.changed


def _signing_options() -> Options:
    from a2a_migrate.signing import SigningRequest

    return Options(signing=SigningRequest("not read", "k1", "ES256"))


@pytest.mark.parametrize(("call", "message"), [
    (lambda: upgrade('{"name": "x"}'), "not str; to migrate card text keeping its layout, use migrate_text()"),
    (lambda: upgrade([CARD]), "a card is a JSON object (a dict), not list"),
    (lambda: downgrade(None), "not NoneType"),
    (lambda: upgrade(CARD, interface_verson="1.0"), "unknown option 'interface_verson'"),
    (lambda: upgrade(CARD, hybrid="yes"), "option 'hybrid' must be a bool"),
    (lambda: upgrade(CARD, interface_version=1.0), "option 'interface_version' must be a str or None"),
    (lambda: upgrade(CARD, skip="vendor_members"), "option 'skip' must be a list of str"),
    (lambda: upgrade(CARD, recipes=["gateway.yaml"]), "option 'recipes' must be a list of recipes"),
    (lambda: upgrade(CARD, Options(), hybrid=True), "give options= or keyword options (hybrid), not both"),
    (lambda: upgrade(CARD, {"hybrid": True}), "options must be an a2a_migrate.Options, not dict"),
    (lambda: migrate_text(CARD), "migrate_text takes the card's text (a str), not dict"),
    (lambda: upgrade(CARD, _signing_options()), "in memory, sign the result: a2a_migrate.sign(result.card, key_file)"),
    (lambda: migrate_text("{}", "up", _signing_options()), "Options.signing signs what a batch writes"),
    (lambda: diff(CARD, "x"), "a card is a JSON object"),
])
def test_wrong_calls_are_a_type_error_at_the_call(call: Any, message: str) -> None:
    with pytest.raises(TypeError) as raised:
        call()
    assert message in str(raised.value)


def test_migrate_text_keeps_the_json_layout() -> None:
    text = json.dumps(CARD, indent=4) + "\n"
    new_text, result = migrate_text(text, "up")
    assert result.ok and result.changed
    assert new_text.startswith('{\n    "name": "Echo",\n')  # four spaces, the input's order
    assert json.loads(new_text) == result.card


def test_migrate_text_keeps_yaml_comments() -> None:
    text = (ROOT / "examples" / "agent.yaml").read_text("utf-8")
    new_text, result = migrate_text(text, "up", name="agent.yaml")
    assert result.ok and "# Agent card of the translation service" in new_text and "# the only skill" in new_text
    assert "supportedInterfaces:" in new_text and "stateTransitionHistory" not in new_text


def test_migrate_text_down_and_unchanged_and_refused() -> None:
    upgraded, _ = migrate_text(json.dumps(CARD), "up")
    downgraded, result = migrate_text(upgraded, "down")
    assert result.target_version == "0.3" and json.loads(downgraded)["url"] == CARD["url"]
    same, result = migrate_text(upgraded, "up")
    assert same == upgraded and not result.changed
    refused_text = json.dumps({**CARD, "description": None, "name": None})
    kept, result = migrate_text(refused_text, "up")
    assert not result.ok and kept == refused_text


def test_migrate_text_on_text_that_is_no_card_raises_a_value_error_naming_the_place() -> None:
    with pytest.raises(CardError, match="^card.json: line 1 column 10: not valid JSON") as raised:
        migrate_text('{"name": }', name="card.json")
    assert isinstance(raised.value, ValueError)
    with pytest.raises(CardError, match="the top level is a list, not an object"):
        migrate_text("[1, 2]")
    with pytest.raises(ValueError, match="direction is 'up' or 'down'"):
        migrate_text(json.dumps(CARD), "sideways")  # type: ignore[arg-type]


def test_plan_then_apply_writes_only_when_asked(tmp_path: Path) -> None:
    card_file = tmp_path / "agent-card.json"
    original = json.dumps(CARD, indent=2) + "\n"
    card_file.write_text(original)
    planning = plan([card_file], "up", default_provider_url="https://p.example")
    assert [card.status for card in planning.plan.cards] == ["changed"] and planning.empty == []
    dry = apply(planning.plan, write=False)
    assert dry[0].status == "changed" and card_file.read_text() == original
    assert "supportedInterfaces" in json.loads(dry[0].new_text)
    from a2a_migrate import plans

    plan_file = tmp_path / "plan.json"
    plan_file.write_text(plans.dumps(planning.plan))
    done = apply(plan_file)
    assert done[0].status == "changed" and json.loads(card_file.read_text()) == json.loads(dry[0].new_text)


def test_plan_names_paths_that_hold_no_card(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert plan([tmp_path / "empty"]).empty == [str(tmp_path / "empty")]


def test_diff_pairs_interfaces_and_reports_moves() -> None:
    differences = diff(CARD, upgrade(CARD).card)
    kinds = {difference.kind for difference in differences}
    assert "moved" in kinds
    assert any(d.kind == "moved" and d.source == "/url" and d.path == "/supportedInterfaces/0/url" for d in differences)
    assert not any(d.kind == "removed" for d in differences if d.path in ("/url", "/protocolVersion"))


def test_validate_gives_findings_with_pointers() -> None:
    findings = validate({**CARD, "skills": "none"}, "0.3")
    assert any(finding.severity == "error" and finding.pointer == "/skills" for finding in findings)
    assert not [f for f in validate(upgrade(CARD).card) if f.severity == "error"]


def test_sign_then_verify(tmp_path: Path) -> None:
    pytest.importorskip("joserfc", reason="signing needs the sign extra (in the test extra)")
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    private = tmp_path / "key.pem"
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    public = tmp_path / "key.pub.pem"
    public.write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo))
    card = upgrade(CARD).card
    signed = sign(card, private, kid="k1")
    assert "signatures" not in card and len(signed["signatures"]) == 1
    assert [check.valid for check in verify(signed, [public])] == [True]
    assert [check.reason for check in verify({**signed, "name": "Other"}, [public])] == ["content-changed"]
    assert verify(card, [public]) == []


CLIENT = """
from a2a_migrate import Options, Result, TextResult, migrate_text, upgrade

card: dict[str, object] = {"name": "x"}
ok: Result = upgrade(card, interface_version="1.0", skip=["vendor_members"], patch=False)
also: Result = upgrade(card, Options(hybrid=True))
text: TextResult = migrate_text("{}", "down", name="card.json")
wrong = upgrade(card, interface_verson="1.0")
"""


def test_the_public_surface_is_typed_for_a_strict_checker(tmp_path: Path) -> None:
    pytest.importorskip("mypy", reason="mypy is in the test extra")
    client = tmp_path / "client.py"
    client.write_text(CLIENT)
    # mypy cannot follow an editable install's import hook: it reads the package from the checkout.
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent",
                           "--cache-dir", str(tmp_path / "cache"), str(client)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300,
                          env={**os.environ, "MYPYPATH": str(ROOT)})
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and 'Unexpected keyword argument "interface_verson"' in errors[0], done.stdout

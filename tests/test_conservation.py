"""The conservation check: nothing the card states is lost without a lossy or error note.

The check runs inside every migration (``api.migrate_in_place``); these tests
run it over every golden card and every corpus card in both directions, prove
that it fires when a transform drops a value silently, and pin each rewrite
it accepts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from a2a_migrate import conservation, downgrade, upgrade
from a2a_migrate.context import Context, Note, Options
from a2a_migrate.io import CardError, parse
from a2a_migrate.transforms import capabilities_shape
from shared_support import corpus_params

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
CARD_SUFFIXES = (".json", ".yaml", ".yml")


def _cards(folder: Path) -> list[Any]:
    return [pytest.param(path, id=str(path.relative_to(GOLDEN)))
            for path in sorted(folder.rglob("*")) if path.suffix in CARD_SUFFIXES and "options" not in path.name
            and ".recipe." not in path.name  # recipes (issue 13) are not cards
            and "refused" not in path.parts and "format" not in path.parts]


def _plain(path: Path) -> Any:
    try:
        return parse(path.read_bytes().decode("utf-8", errors="replace"), path.name).original
    except CardError:
        return None


def _conservation_errors(card: Any) -> list[str]:
    found = []
    for migrate in (upgrade, downgrade):
        result = migrate(card)
        found += [f"{migrate.__name__} {note.pointer}: {note.message}" for note in result.notes
                  if note.transform == conservation.TRANSFORM]
    return found


@pytest.mark.parametrize("path", _cards(GOLDEN))
def test_every_golden_card_conserves_in_both_directions(path: Path) -> None:
    card = _plain(path)
    assert card is not None, f"{path} does not parse"
    assert _conservation_errors(card) == []


@pytest.mark.parametrize("path", corpus_params())
def test_every_corpus_card_conserves_in_both_directions(path: Path) -> None:
    card = _plain(path)
    if not isinstance(card, dict):  # no card to conserve: the tool must refuse it in one line instead
        from a2a_migrate.batch import Job, migrate_file

        outcome = migrate_file(str(path), Job("up"))
        assert outcome.status == "failed" and outcome.error and "\n" not in outcome.error
        return
    assert _conservation_errors(card) == []


def _silent_dropper(card: Any, ctx: Context) -> None:
    """A broken transform: drops the card's description without a word."""
    card.pop("description", None)


def test_a_transform_that_drops_a_value_silently_makes_the_card_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capabilities_shape, "up", _silent_dropper)
    card = {"name": "A", "description": "Says hello.", "url": "https://a.example.com", "protocolVersion": "0.3.0",
            "version": "1", "capabilities": {}, "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"], "skills": [{"id": "s", "name": "S", "description": "d", "tags": ["t"]}]}
    result = upgrade(card)
    assert not result.ok
    errors = [note for note in result.notes if note.severity == "error"]
    assert [(n.transform, n.pointer, n.message) for n in errors][0] == (
        "conservation", "/description", 'value "Says hello." dropped without a note')


def test_the_cli_refuses_to_write_such_a_card(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from a2a_migrate.batch import Job, migrate_file

    monkeypatch.setattr(capabilities_shape, "up", _silent_dropper)
    card = tmp_path / "agent-card.json"
    text = json.dumps({"name": "A", "description": "Says hello.", "url": "https://a.example.com",
                       "protocolVersion": "0.3.0", "version": "1", "capabilities": {}, "skills": []})
    card.write_text(text)
    outcome = migrate_file(str(card), Job("up", write="in_place"))
    assert outcome.status == "failed"
    assert card.read_text() == text


def _check(before: Any, after: Any, *notes: Note, options: Options | None = None) -> list[tuple[str, str]]:
    return [(n.pointer, n.message) for n in conservation.check(before, after, list(notes), options)]


def test_info_and_assumed_notes_never_excuse_a_loss() -> None:
    before, after = {"a": {"b": "kept?"}}, {"a": {}}
    for severity in ("info", "assumed", "warning"):
        assert _check(before, after, Note(severity, "t", "/a/b", "gone")) == [("/a/b", 'value "kept?" dropped without a note')]
    assert _check(before, after, Note("lossy", "t", "/a/b", "gone")) == []
    assert _check(before, after, Note("lossy", "t", "/a", "gone")) == []  # an ancestor covers it
    assert _check(before, after, Note("lossy", "t", "/a/bc", "gone")) != []  # a sibling does not


def test_defaults_are_not_stated_values() -> None:
    assert _check({"a": None, "b": False, "c": "", "d": 0, "e": [], "f": {}}, {}) == []


def test_a_true_flag_must_stay_true_under_its_name_or_its_other_versions_name() -> None:
    assert _check({"capabilities": {"streaming": True}}, {"capabilities": {"pushNotifications": True}}) == [
        ("/capabilities/streaming", "value true dropped without a note")]
    assert _check({"supportsAuthenticatedExtendedCard": True}, {"capabilities": {"extendedAgentCard": True}}) == []
    assert _check({"capabilities": {"extendedAgentCard": True}}, {"supportsAuthenticatedExtendedCard": True}) == []


@pytest.mark.parametrize(("before", "after"), [
    ({"protocolVersion": "0.3.0"}, {"supportedInterfaces": [{"protocolVersion": "0.3"}]}),
    ({"defaultInputModes": ["text"]}, {"defaultInputModes": ["text/plain"]}),
    ({"securitySchemes": {"k": {"type": "apiKey"}}}, {"securitySchemes": {"k": {"apiKeySecurityScheme": {}}}}),
    ({"preferredTransport": "json-rpc"}, {"supportedInterfaces": [{"protocolBinding": "JSONRPC"}]}),
    ({"skills": [{"examples": [{"city": "Paris"}]}]}, {"skills": [{"examples": ['{"city": "Paris"}']}]}),
    ({"capabilities": ["push_notifications"]}, {"capabilities": {"pushNotifications": True}}),
    ({"authentication": {"schemes": ["x402"]}},
     {"capabilities": {"extensions": [{"uri": "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2"}]}}),
    ({"securitySchemes": {"public": {"type": "public"}}, "security": [{"public": []}]}, {"securityRequirements": [{}]}),
    ({"securitySchemes": {"oauth__implicit": {}}}, {"securitySchemes": {"oauth": {}}}),
], ids=["version", "mode-word", "scheme-type", "binding", "example-json", "flag-list", "x402", "no-auth", "oauth-merge"])
def test_documented_rewrites_are_accepted(before: Any, after: Any) -> None:
    assert _check(before, after) == []


def test_scheme_and_scope_names_are_data() -> None:
    before = {"securitySchemes": {"partner": {"type": "http", "scheme": "Bearer"}},
              "security": [{"partner": ["read"]}]}
    after = {"securitySchemes": {"other": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
             "securityRequirements": [{"schemes": {"other": {"list": ["read"]}}}]}
    assert {pointer for pointer, _ in _check(before, after)} == {"/securitySchemes/partner", "/security/0/partner"}


def test_interface_version_option_supersedes_the_cards_version() -> None:
    before, after = {"protocolVersion": "0.2.5"}, {"supportedInterfaces": [{"protocolVersion": "1.0"}]}
    assert _check(before, after) != []
    assert _check(before, after, options=Options(interface_version="1.0")) == []


def test_leaves_are_the_stated_scalars_with_their_pointers() -> None:
    card = {"name": "A", "url": "https://a", "capabilities": {"streaming": True, "pushNotifications": False},
            "securitySchemes": {"k": {"type": "apiKey"}}}
    assert [(leaf.pointer, leaf.value, leaf.is_name) for leaf in conservation.leaves(card)] == [
        ("/name", "A", False), ("/url", "https://a", False), ("/capabilities/streaming", True, False),
        ("/securitySchemes/k", "k", True), ("/securitySchemes/k/type", "apiKey", False)]


@pytest.mark.parametrize("card", ["a string", ["a", "list"], None, 7])
def test_the_api_says_plainly_when_it_is_given_no_card_object(card: Any) -> None:
    for migrate in (upgrade, downgrade):
        with pytest.raises(TypeError, match="a card is a JSON object"):
            migrate(card)


@pytest.mark.parametrize(("value", "says"), [
    (None, False), (False, False), ("", False), (0, False), (0.0, False), ([], False), ({}, False),
    (True, True), ("no", True), (7, True), (-1.5, True), (["a"], True), ({"a": None}, True)])
def test_stated_is_the_one_test_of_a_value_saying_something(value: Any, says: bool) -> None:
    from a2a_migrate.context import stated

    assert stated(value) is says

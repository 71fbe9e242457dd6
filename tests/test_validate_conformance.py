"""Agreement with parsers written by others, over every real card in the corpus.

* 1.0-shaped cards: the official SDK's ProtoJSON parser,
  ``google.protobuf.json_format.ParseDict(card, a2a.types.AgentCard())``, strict
  (unknown fields raise) and with ``ignore_unknown_fields=True``.
* 0.3-shaped cards: the official v0.3.0 JSON Schema through plain jsonschema,
  and the SDK's 0.3 pydantic model ``a2a.compat.v0_3.types.AgentCard``.

Every disagreement is listed below with its reason, and the test asserts that
the disagreements found are exactly those: a change either way is noticed.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from a2a_migrate.validation import Finding, validate
from a2a_migrate.versions import detect_version
from shared_support import CORPUS, corpus_files, corpus_params, needs

V03_SCHEMA = Path(__file__).resolve().parents[1] / "a2a_migrate/schemas/a2a-v0.3.0.schema.json"
CARD_SUFFIXES = (".json", ".yaml", ".yml")


def load(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return json.loads(text)
    from ruamel.yaml import YAML

    return YAML(typ="safe").load(text)


def corpus() -> Iterator[tuple[str, Any]]:
    """(file name, card) for every card file that parses; the few that do not
    parse (broken on purpose) have their own test below."""
    for path in corpus_files(CARD_SUFFIXES):
        try:
            yield path.name, load(path)
        except Exception:
            continue


def errors(card: Any, version: str) -> list[Finding]:
    return [f for f in validate(card, version, lint=False) if f.severity == "error"]


# -- the parsers of others ------------------------------------------------------------------------


def sdk_parses(card: Any, ignore_unknown_fields: bool) -> bool:
    from a2a.types import AgentCard
    from google.protobuf.json_format import ParseDict

    try:
        ParseDict(card, AgentCard(), ignore_unknown_fields=ignore_unknown_fields)
    except Exception:  # ParseError, and TypeError/AttributeError on odd shapes
        return False
    return True


@functools.cache
def v03_schema_validator() -> Any:
    """Plain jsonschema on the official file, built independently of validate.py."""
    from jsonschema import Draft7Validator

    schema = json.loads(V03_SCHEMA.read_text(encoding="utf-8"))
    definitions = schema["definitions"]
    return Draft7Validator({**definitions["AgentCard"], "definitions": definitions})


def jsonschema_v03_valid(card: Any) -> bool:
    return bool(v03_schema_validator().is_valid(card))


def pydantic_v03_valid(card: Any) -> bool:
    from a2a.compat.v0_3.types import AgentCard
    from pydantic import ValidationError

    try:
        AgentCard.model_validate(card)
    except ValidationError:
        return False
    return True


# -- 1.0: expected disagreements, each with a reason that is checked -------------------------------

SDK_SKIPS_REQUIRED = (
    "the SDK's ProtoJSON parser does not enforce [(google.api.field_behavior) = REQUIRED]; "
    "we report the missing required fields"
)
EMPTY_ONEOF = (
    "a 0.3-style security scheme ('type', no 1.0 wrapper member): with ignore_unknown_fields "
    "the SDK reads it as a SecurityScheme with no member set, we require exactly one member; "
    "REQUIRED fields are missing too"
)
LIST_AS_MESSAGE = (
    "'capabilities' is an array of strings: the SDK's json_format iterates it as field names "
    "and ignore_unknown_fields drops them, so the lenient parse passes (the strict one fails); "
    "we report a type error; REQUIRED fields are missing too"
)


def only_rules(*rules: str, needs: str | None = None) -> Callable[[list[Finding]], bool]:
    def check(found: list[Finding]) -> bool:
        kinds = {f.rule for f in found}
        return kinds <= set(rules) and (needs is None or needs in kinds)

    return check


REASON_CHECKS: dict[str, Callable[[list[Finding]], bool]] = {
    SDK_SKIPS_REQUIRED: only_rules("required"),
    EMPTY_ONEOF: only_rules("required", "oneof", needs="oneof"),
    LIST_AS_MESSAGE: lambda found: only_rules("required", "type")(found)
    and [f.pointer for f in found if f.rule == "type"] == ["/capabilities"],
}

EXPECTED_V10 = {
    "0spoon__seamless__docs__.well-known__agent-card.json": EMPTY_ONEOF,
    "3moorydxb__ai_agency__.well-known__agent-card.json": LIST_AS_MESSAGE,
    "CPT-Dawn__CPT-Dawn__.well-known__agent-card.json": SDK_SKIPS_REQUIRED,
    "Foreveryoung2149__agent-approvals__public__.well-known__agent-card.json": SDK_SKIPS_REQUIRED,
    "LucMuhizi__Polyglow__public__.well-known__agent-card.json": SDK_SKIPS_REQUIRED,
    "craigericksondpo__Yo-ai__agents__door_keeper__agent_card__agent.json": EMPTY_ONEOF,
    "craigericksondpo__Yo-ai__agents__the_oracle__agent_card__agent.json": EMPTY_ONEOF,
    "walter-grace__data-label-factory__web__public__.well-known__agent-card.json": LIST_AS_MESSAGE,
}


def v10_verdicts(card: Any) -> tuple[tuple[bool, bool], tuple[bool, bool]]:
    """((ours lenient, ours strict), (SDK lenient, SDK strict)). Our strict
    verdict: no errors and no unknown members, the ones we only warn about."""
    findings = validate(card, "1.0", lint=False)
    lenient = not any(f.severity == "error" for f in findings)
    strict = lenient and not any(f.rule == "unknown-member" for f in findings)
    return (lenient, strict), (sdk_parses(card, True), sdk_parses(card, False))


@needs(CORPUS)
def test_v10_agreement_with_the_sdk_parser() -> None:
    cards = [(name, card) for name, card in corpus() if detect_version(card) in ("1.0", "hybrid")]
    assert len(cards) >= 15
    disagreements = {}
    for name, card in cards:
        ours, sdk = v10_verdicts(card)
        if ours != sdk:
            disagreements[name] = (ours, sdk)
    assert set(disagreements) == set(EXPECTED_V10)
    for name, reason in EXPECTED_V10.items():
        ours, sdk = disagreements[name]
        assert ours == (False, False) and sdk[0], f"{name}: we reject, the lenient SDK parses"
        card = load(CORPUS / name)
        assert REASON_CHECKS[reason](errors(card, "1.0")), f"{name}: reason no longer fits"


# -- 0.3: expected disagreements ------------------------------------------------------------

PYDANTIC_DEFAULT_VERSION = (
    "the SDK's 0.3 model gives protocolVersion a default ('0.3.0'); the 0.3 JSON Schema "
    "requires it"
)
PYDANTIC_SNAKE_CASE = (
    "the SDK's 0.3 model also accepts snake_case names (validate_by_name); the 0.3 JSON "
    "Schema knows only the camelCase ones, so they count as missing"
)


def snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name)


def missing_only_protocol_version(card: Any, found: list[Finding]) -> bool:
    return [(f.rule, f.pointer) for f in found] == [("required", "/protocolVersion")]


def missing_only_snake_spelled(card: Any, found: list[Finding]) -> bool:
    """Each error is a top-level member the card spells in snake_case (or
    protocolVersion, which the model defaults), and at least one is snake."""
    snake_spelled = [f for f in found if "_" in snake(f.pointer) and snake(f.pointer[1:]) in card]
    rest = [f for f in found if f not in snake_spelled]
    return (
        bool(snake_spelled)
        and all(f.rule == "required" for f in found)
        and all(f.pointer == "/protocolVersion" for f in rest)
    )


V03_REASON_CHECKS: dict[str, Callable[[Any, list[Finding]], bool]] = {
    PYDANTIC_DEFAULT_VERSION: missing_only_protocol_version,
    PYDANTIC_SNAKE_CASE: missing_only_snake_spelled,
}

EXPECTED_V03_PYDANTIC = {
    "0xSoftBoi__suwappubot__api-ts__agent-card.json": PYDANTIC_DEFAULT_VERSION,
    "0xcnr0__rugsense__public__.well-known__agent-card.json": PYDANTIC_DEFAULT_VERSION,
    "0xdeeper__BaseAi8004__.well-known__agent-card.json": PYDANTIC_DEFAULT_VERSION,
    "AbdullahOC__a2acolony__public__.well-known__agent.json": PYDANTIC_DEFAULT_VERSION,
    "Apex-Sudo__forgehouse-site__public__.well-known__agent-card.json": PYDANTIC_DEFAULT_VERSION,
    "AyushDey__Google-ADK-Learning__agent-card.json": PYDANTIC_DEFAULT_VERSION,
    "Dan-Cleary__convalytics__public__.well-known__agent-card.json": PYDANTIC_DEFAULT_VERSION,
    "LeonMelamud__inspector-agents__public__.well-known__agent-card.json": PYDANTIC_DEFAULT_VERSION,
    "Nasiko-Labs__nasiko__agents__infra-agent__AgentCard.json": PYDANTIC_SNAKE_CASE,
    "Phil-Hills__a2ac-docs__agent_card.json": PYDANTIC_DEFAULT_VERSION,
    "durvester__Cardio-assistant__.well-known__agent.json": PYDANTIC_SNAKE_CASE,
    "ethersphere__bee-docs__static__.well-known__agent-card.json": PYDANTIC_DEFAULT_VERSION,
    "f62fmmbz5c-netizen__auditflow-ai__agent_card.json": PYDANTIC_DEFAULT_VERSION,
    "lordbasilaiassistant-sudo__TheAgentCafe__docs__.well-known__agent.json": (
        PYDANTIC_DEFAULT_VERSION
    ),
}


def v03_cards() -> list[tuple[str, Any]]:
    return [(n, c) for n, c in corpus() if detect_version(c) in ("0.3", "0.2", "0.1")]


@needs(CORPUS)
def test_v03_agreement_with_the_official_schema() -> None:
    cards = v03_cards()
    assert len(cards) >= 50
    disagreements = [n for n, c in cards if (not errors(c, "0.3")) != jsonschema_v03_valid(c)]
    assert disagreements == []


@needs(CORPUS)
def test_v03_agreement_with_the_sdk_model() -> None:
    disagreements = {}
    for name, card in v03_cards():
        ours = not errors(card, "0.3")
        theirs = pydantic_v03_valid(card)
        if ours != theirs:
            disagreements[name] = (ours, theirs)
    assert set(disagreements) == set(EXPECTED_V03_PYDANTIC)
    for name, reason in EXPECTED_V03_PYDANTIC.items():
        assert disagreements[name] == (False, True), f"{name}: we reject, the model accepts"
        card = load(CORPUS / name)
        fits = V03_REASON_CHECKS[reason](card, errors(card, "0.3"))
        assert fits, f"{name}: reason no longer fits"


# -- the rest of the corpus ------------------------------------------------------------------


@needs(CORPUS)
def test_corpus_is_there() -> None:
    assert len(corpus_files(CARD_SUFFIXES)) >= 70


@pytest.mark.parametrize("name", corpus_params(lambda path: path.name, CARD_SUFFIXES))
def test_every_card_gets_findings_or_none_without_crashing(name: str) -> None:
    try:
        card = load(CORPUS / name)
    except Exception:  # not parseable: the validate command says so in one line
        from click.testing import CliRunner

        from a2a_migrate.cli import main

        result = CliRunner().invoke(main, ["validate", str(CORPUS / name)])
        assert result.exit_code == 123 and "Traceback" not in result.output
        assert result.stderr.startswith(f"{CORPUS / name}: error: ")
        return
    findings = validate(card)
    assert findings == validate(card)
    for finding in findings:
        assert finding.severity in ("error", "warning")
        assert finding.pointer == "" or finding.pointer.startswith("/")
        assert finding.message and finding.rule
    if detect_version(card) == "unknown":
        assert [(f.severity, f.rule) for f in findings] == [("error", "unknown-version")]


# -- cards the SDK itself writes -------------------------------------------------------------


def interface(url: str, binding: str, version: str) -> dict[str, str]:
    return {"url": url, "protocolBinding": binding, "protocolVersion": version}


def sdk_card_dict() -> dict[str, Any]:
    return {
        "name": "A",
        "description": "An agent.",
        "version": "1.0.0",
        "supportedInterfaces": [
            interface("https://a.example.com/a2a", "JSONRPC", "0.3"),
            interface("https://a.example.com/v1", "HTTP+JSON", "1.0"),
        ],
        "capabilities": {"streaming": True, "extendedAgentCard": True},
        "securitySchemes": {
            "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}},
            "oauth": {
                "oauth2SecurityScheme": {
                    "flows": {
                        "clientCredentials": {
                            "tokenUrl": "https://auth.example.com/token",
                            "scopes": {"read": "Read"},
                        }
                    }
                }
            },
        },
        "securityRequirements": [{"schemes": {"oauth": {"list": ["read"]}}}],
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "s", "name": "S", "description": "A skill.", "tags": ["t"]}],
    }


def sdk_message() -> Any:
    from a2a.types import AgentCard
    from google.protobuf.json_format import ParseDict

    return ParseDict(sdk_card_dict(), AgentCard())


@pytest.mark.parametrize("proto_names", [False, True])
def test_cards_the_sdk_serializes_are_valid_1_0(proto_names: bool) -> None:
    from google.protobuf.json_format import MessageToDict

    card = MessageToDict(sdk_message(), preserving_proto_field_name=proto_names)
    assert validate(card, "1.0") == []


def test_the_sdk_served_hybrid_card_is_valid_in_both_versions() -> None:
    from a2a.server.request_handlers.response_helpers import agent_card_to_dict

    card = agent_card_to_dict(sdk_message())
    assert detect_version(card) == "hybrid"
    assert errors(card, "1.0") == []
    assert {f.rule for f in validate(card, "1.0")} == {"hybrid"}
    assert validate(card, "0.3") == []
    assert jsonschema_v03_valid(card) and pydantic_v03_valid(card)


def test_the_sdk_0_3_conversion_is_valid_0_3() -> None:
    from a2a.compat.v0_3.conversions import to_compat_agent_card

    compat = to_compat_agent_card(sdk_message())
    card = compat.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert validate(card, "0.3") == []

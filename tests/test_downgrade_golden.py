"""Golden scenarios for the downgrade (1.0 -> 0.3) and for hybrid output.

Pairs are found automatically in ``golden/down/``: ``<case>.1.0.json`` (or
``.yaml``) is the input, ``<case>.0.3.json`` (same suffix) the expected output,
written by the tool and then reviewed by hand against the spec mapping, and
``<case>.options.json`` the :class:`Options` fields the case needs
(``{"hybrid": true}`` makes it a hybrid case). Every pair is checked:

1. the downgrade writes exactly the expected text;
2. downgrading the expected output again changes nothing;
3. the emitted RFC 6902 patch turns the parsed input into the parsed output;
4. the output validates against the official 0.3 JSON Schema (``AgentCard``,
   Draft 7) and the official SDK's 0.3 model; a hybrid output also parses with
   the SDK's 1.0 parser ignoring unknown fields, as its client does;
5. no note is an error;
6. upgrading the output gives the input back (as 1.0 values: an empty list or
   an empty ``scopes`` map means the same as none, ProtoJSON), except for the
   one-way cases in :data:`ONE_WAY`, which must really differ.

``golden/down/refused/<case>.1.0.json`` are inputs that must be refused; the
``.expected`` file lists the ``[transform] /pointer`` of each error note.

The helpers that check 0.3 conformance are imported by the round-trip and
property tests, so that every test judges a 0.3 card the same way.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jsonpatch
import jsonschema
import pytest

from a2a_migrate import upgrade
from a2a_migrate.batch import Job, Outcome, migrate_text
from a2a_migrate.context import Note, Options
from a2a_migrate.versions import HYBRID, detect_version
from golden_support import Case, params, case_options, parse_plain, read
from shared_support import spec_file

json_format = pytest.importorskip("google.protobuf.json_format")
a2a_types = pytest.importorskip("a2a.types")
v03_types = pytest.importorskip("a2a.compat.v0_3.types")

ROOT = Path(__file__).resolve().parents[1]
DOWN = ROOT / "golden" / "down"
REFUSED = DOWN / "refused"
V03_SCHEMA = spec_file("a2a-v0.3.0.schema.json")

INPUT_MARK, OUTPUT_MARK = ".1.0.", ".0.3."
SUFFIXES = ("json", "yaml", "yml")

#: Cases where upgrading the downgrade does not give the input back, and why.
ONE_WAY: dict[str, str] = {
    "mixed-interfaces": "the 1.0-only interfaces cannot be offered to 0.3 clients (lossy), and the "
                        "interface without a version comes back saying 0.3 (assumed, spec 3.6.2)",
    "tenant-interface-left-out": "0.3 has no tenant: the interface that has one is left out (lossy)",
    "tenant-interface-kept": "0.3 has no tenant: the interface is kept without it (lossy)",
    "device-code-alternative-removed": "0.3 has no device code flow: the scheme and the alternatives "
                                       "that need it are removed (lossy)",
    "pkce-required-dropped": "0.3 has no pkceRequired (lossy)",
    "signed-card": "the signature no longer verifies and is dropped (lossy)",
    "interface-version-gateway": "--interface-version 0.3 offers the 1.0 endpoints as 0.3 ones: they come "
                                 "back saying 0.3 (assumed)",
    "lean-card-no-skills": "defaultInputModes/defaultOutputModes are REQUIRED and non-empty in 1.0: the "
                           "upgrade fills the [] the downgrade wrote with text/plain (assumed)",
    "lean-skill-without-tags": "skill tags are REQUIRED and non-empty in 1.0: the upgrade derives tags for "
                               "the [] the downgrade wrote (assumed)",
    "yaml-comments": "its skill has no tags: the upgrade derives tags for the [] the downgrade wrote (assumed)",
}

#: Cases whose reviewed expectation the tool does not meet yet (strict xfails).
EXPECTED_FAILURES: dict[str, str] = {}


# -- 0.3 conformance, shared with the round-trip and property tests ------------


@functools.cache
def _v03_validator() -> jsonschema.Draft7Validator:
    schema = json.loads(V03_SCHEMA.read_text("utf-8"))
    return jsonschema.Draft7Validator({**schema, "$ref": "#/definitions/AgentCard"})


def v03_schema_errors(card: Any) -> list[str]:
    """Where and why ``card`` fails the official 0.3 JSON Schema's ``AgentCard``."""
    return [f"/{'/'.join(map(str, error.absolute_path))}: {error.message[:160]}"
            for error in _v03_validator().iter_errors(card)]


def v03_model_error(card: Any) -> str | None:
    """Why the official SDK's 0.3 ``AgentCard`` model rejects ``card``, or None."""
    try:
        v03_types.AgentCard.model_validate(card)
    except Exception as error:  # pydantic.ValidationError, kept generic on purpose
        return str(error)
    return None


def v10_lenient_error(card: Any) -> str | None:
    """Why the SDK's 1.0 parser, ignoring unknown fields as its client does, rejects ``card``."""
    try:
        json_format.ParseDict(card, a2a_types.AgentCard(), ignore_unknown_fields=True)
    except json_format.ParseError as error:
        return str(error)
    return None


def assert_valid_v03(card: Any) -> None:
    """The card passes the official 0.3 JSON Schema and the SDK's 0.3 model."""
    errors = v03_schema_errors(card)
    assert not errors, "invalid against the 0.3 JSON Schema:\n" + "\n".join(errors)
    problem = v03_model_error(card)
    assert problem is None, f"the SDK's 0.3 model rejects the card: {problem}"


def describe(notes: list[Note]) -> str:
    return "\n".join(f"  {n.severity}: [{n.transform}] {n.pointer}: {n.message}" for n in notes)


def proto_equal_form(value: Any) -> Any:
    """``value`` with what ProtoJSON writers omit left out: empty lists and empty ``scopes``.

    An empty repeated field and an absent one are the same 1.0 value; so is an
    empty ``scopes`` map. Other empty objects are kept: a map entry such as
    ``"key": {}`` or a oneof member such as ``"mtlsSecurityScheme": {}`` is set.
    """
    if isinstance(value, Mapping):
        return {key: proto_equal_form(item) for key, item in value.items()
                if item != [] and not (key == "scopes" and item == {})}
    if isinstance(value, list):
        return [proto_equal_form(item) for item in value]
    return value


# -- finding the cases ------------------------------------------------------------





def _inputs(folder: Path) -> list[tuple[str, str, Path]]:
    found = []
    for path in sorted(folder.glob(f"*{INPUT_MARK}*")):
        case, _, suffix = path.name.rpartition(INPUT_MARK)
        if suffix in SUFFIXES:
            found.append((case, suffix, path))
    return found


def golden_cases() -> list[Case]:
    return [Case(case, path, DOWN / f"{case}{OUTPUT_MARK}{suffix}", case_options(DOWN, case))
            for case, suffix, path in _inputs(DOWN)]


def downgrade_text(text: str, name: str, options: Options = Options()) -> Outcome:
    return migrate_text(text, name, Job("down", options, record=True))


CASES = golden_cases()
TOPICS = ("tenant", "device-code", "pkce", "mixed-interfaces", "lean", "hybrid-output", "yaml")


def test_golden_cases_are_found() -> None:
    names = {case.name for case in CASES}
    assert len(CASES) >= 10
    assert all(any(topic in name for name in names) for topic in TOPICS), names
    assert any(case.options.hybrid for case in CASES)
    assert set(ONE_WAY) <= names, f"ONE_WAY names cases that do not exist: {set(ONE_WAY) - names}"
    assert set(EXPECTED_FAILURES) <= names


def test_every_expected_file_has_an_input() -> None:
    outputs = {path.name for path in DOWN.glob(f"*{OUTPUT_MARK}*")}
    assert outputs <= {case.expected.name for case in CASES}, "expected outputs without an input"
    options = {path.name.removesuffix(".options.json") for path in DOWN.glob("*.options.json")}
    assert options <= {case.name for case in CASES}, "options files without a case"


@pytest.mark.parametrize("case", params(CASES, EXPECTED_FAILURES))
def test_golden_downgrade(case: Case) -> None:
    assert case.expected.exists(), f"{case.expected.name} is missing"
    text, expected = read(case.source), read(case.expected)
    outcome = downgrade_text(text, case.source.name, case.options)
    assert outcome.status == "changed", f"refused or unchanged: {outcome.error}\n{describe(outcome.notes)}"
    # 1. exactly the expected text
    assert outcome.new_text == expected, "the downgrade output differs from " + case.expected.name
    # 5. no error note
    assert not [n for n in outcome.notes if n.severity == "error"], describe(outcome.notes)
    # 3. the patch takes the input to the output
    patched = jsonpatch.apply_patch(parse_plain(text, case.source.name), outcome.patch)
    assert patched == parse_plain(expected, case.expected.name)


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_second_downgrade_changes_nothing(case: Case) -> None:
    expected = read(case.expected)
    again = downgrade_text(expected, case.expected.name, case.options)
    assert again.status == "unchanged", describe(again.notes)
    assert again.new_text == expected


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_output_is_valid_0_3(case: Case) -> None:
    card = parse_plain(read(case.expected), case.expected.name)
    assert_valid_v03(card)
    if case.options.hybrid:
        assert v10_lenient_error(card) is None
        assert "supportedInterfaces" in card and "url" in card


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES])
def test_upgrade_gives_the_input_back(case: Case) -> None:
    source = parse_plain(read(case.source), case.source.name)
    if detect_version(source) == HYBRID:  # its 1.0 meaning: the 0.3 members only repeat it
        source = upgrade(source).card
    back = upgrade(parse_plain(read(case.expected), case.expected.name))
    assert back.ok, describe(back.notes)
    same = proto_equal_form(back.card) == proto_equal_form(source)
    if case.name in ONE_WAY:
        assert not same, f"{case.name} round-trips now: remove it from ONE_WAY"
    else:
        assert same, jsonpatch.make_patch(proto_equal_form(source), proto_equal_form(back.card)).patch


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CASES if c.name in ONE_WAY])
def test_one_way_cases_say_what_they_lose(case: Case) -> None:
    """A case that does not round-trip reports a lossy or assumed note, in one direction or the other."""
    outcome = downgrade_text(read(case.source), case.source.name, case.options)
    back = upgrade(parse_plain(read(case.expected), case.expected.name))
    said = [n for n in outcome.notes + back.notes if n.severity in ("lossy", "assumed")]
    assert said, describe(outcome.notes + back.notes)


def test_hybrid_is_the_same_from_both_directions() -> None:
    for case in (c for c in CASES if c.options.hybrid):
        source = parse_plain(read(case.source), case.source.name)
        expected = parse_plain(read(case.expected), case.expected.name)
        assert upgrade(source, hybrid=True).card == expected
        clean = upgrade(expected)
        assert clean.card == upgrade(source).card, "a hybrid card upgraded without --hybrid is the clean card"


# -- refused inputs ----------------------------------------------------------------


def refused_cases() -> list[Any]:
    return [pytest.param(case, path, id=case) for case, _, path in _inputs(REFUSED)]


def test_refused_cases_are_found() -> None:
    names = {param.id for param in refused_cases()}
    assert {"no-0x-interface", "device-code-only-auth"} <= names


@pytest.mark.parametrize(("case", "path"), refused_cases())
def test_refused(case: str, path: Path) -> None:
    outcome = downgrade_text(read(path), path.name, case_options(REFUSED, case))
    assert outcome.status == "failed"
    places = {f"[{n.transform}] {n.pointer}" for n in outcome.notes if n.severity == "error"}
    expected = set(read(REFUSED / f"{case}.expected").split("\n")) - {""}
    assert places == expected, describe(outcome.notes)


def test_refusal_for_no_0x_interface_names_the_gateway_option() -> None:
    outcome = downgrade_text(read(REFUSED / "no-0x-interface.1.0.json"), "card.json")
    [error] = [n for n in outcome.notes if n.severity == "error"]
    assert "--interface-version 0.3" in error.message
    retried = downgrade_text(read(REFUSED / "no-0x-interface.1.0.json"), "card.json", Options(interface_version="0.3"))
    assert retried.status == "changed"
    assert_valid_v03(json.loads(retried.new_text))


# -- the hybrid merge itself ----------------------------------------------------------


def test_hybrid_merge_keeps_1_0_and_puts_each_0_3_member_beside_its_counterpart() -> None:
    from a2a_migrate.hybrid import merge

    v1 = {"name": "A", "supportedInterfaces": [{"url": "u"}], "version": "1",
          "securityRequirements": [{"schemes": {"d": {}}}, {"schemes": {"k": {}}}],
          "skills": [{"id": "s", "securityRequirements": []}]}
    v03 = {"name": "A-0.3", "url": "u", "protocolVersion": "0.3.0", "version": "1",
           "securityRequirements": [{"schemes": {"k": {}}}], "security": [{"k": []}],
           "skills": [{"id": "s", "security": []}]}
    merged = merge(v1, v03)
    assert list(merged) == ["name", "supportedInterfaces", "url", "protocolVersion", "version",
                            "securityRequirements", "security", "skills"]
    assert merged["name"] == "A"  # 1.0 wins
    assert merged["securityRequirements"] == v1["securityRequirements"]  # lists of other lengths are not paired up
    assert merged["skills"] == [{"id": "s", "securityRequirements": [], "security": []}]
    assert v1["skills"] == [{"id": "s", "securityRequirements": []}]  # inputs untouched


def test_hybrid_of_a_signed_1_0_card_drops_the_signature() -> None:
    card = parse_plain(read(DOWN / "signed-card.1.0.json"), "signed-card.1.0.json")
    result = upgrade(card, hybrid=True)
    assert result.ok and result.target_version == "hybrid"
    assert "signatures" not in result.card and "url" in result.card
    assert [(n.severity, n.pointer) for n in result.notes if n.transform == "signatures"] == [("lossy", "/signatures/0")]
    kept = upgrade(card, hybrid=True, keep_signatures=True)
    assert kept.card["signatures"] == card["signatures"]
    assert [n.severity for n in kept.notes if n.transform == "signatures"] == ["warning"]

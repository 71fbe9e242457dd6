"""Golden scenarios for the upgrade (0.3 and older -> 1.0), and the real-card corpus.

Pairs are found automatically: ``golden/<case>.0.3.json`` (or ``.yaml``) is the
input, ``golden/<case>.1.0.json`` (same suffix) the expected output and
``golden/<case>.options.json`` the :class:`Options` fields the case needs.
Every pair is checked six ways:

1. the upgrade writes exactly the expected text (layout, escapes, line endings
   and YAML comments kept);
2. upgrading the expected output again changes nothing;
3. the emitted RFC 6902 patch turns the parsed input into the parsed output;
4. the output parses with the official SDK's strict 1.0 parser (members kept on
   purpose as vendor members, each reported by a ``vendor_members`` warning, are
   the only accepted reason for the strict parser to refuse it);
5. every member the normative 1.0 proto marks REQUIRED is present;
6. no note is an error.

``golden/refused/<case>.<ext>`` are inputs that must be refused; the matching
``.expected`` file lists the ``[transform] /pointer`` of each error note (or
``parse`` for a card that cannot be read), one per line.

Cases whose correct expectation the tool does not meet yet are listed in
:data:`EXPECTED_FAILURES` with the bug; they are strict xfails, so fixing the
bug makes the test fail until the entry is removed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonpatch
import pytest

from a2a_migrate import io
from a2a_migrate.batch import Job, Outcome, migrate_text
from a2a_migrate.context import Note, Options
from golden_support import Case, case_options, params, parse_plain, read
from shared_support import CORPUS, corpus_files, corpus_params, needs, spec_file

json_format = pytest.importorskip("google.protobuf.json_format")
a2a_types = pytest.importorskip("a2a.types")

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "golden"
REFUSED = GOLDEN / "refused"
PROTO = spec_file("a2a-v1.0.proto")

INPUT_MARK = ".0.3."
OUTPUT_MARK = ".1.0."
SUFFIXES = ("json", "yaml", "yml")

#: Golden cases whose expected file is right and the tool's output is not (bug found by review).
EXPECTED_FAILURES: dict[str, str] = {
}

#: Real cards the tool mishandles today (same contract as EXPECTED_FAILURES).
EXPECTED_CORPUS_FAILURES: dict[str, str] = {
}


# -- finding the cases ------------------------------------------------------


def _split(path: Path) -> tuple[str, str] | None:
    """``("case", "json")`` for ``case.0.3.json``."""
    if INPUT_MARK not in path.name:
        return None
    case, _, suffix = path.name.rpartition(INPUT_MARK)
    return (case, suffix) if suffix in SUFFIXES else None


def golden_cases() -> list[Case]:
    cases = []
    for path in sorted(GOLDEN.glob(f"*{INPUT_MARK}*")):
        split = _split(path)
        if split is None:
            continue
        case, suffix = split
        cases.append(Case(case, path, GOLDEN / f"{case}{OUTPUT_MARK}{suffix}", case_options(GOLDEN, case)))
    return cases




def upgrade(text: str, name: str, options: Options = Options()) -> Outcome:
    return migrate_text(text, name, Job("up", options, record=True))


def describe(notes: list[Note]) -> str:
    return "\n".join(f"  {n.severity}: [{n.transform}] {n.pointer}: {n.message}" for n in notes)


# -- check 4: the official SDK's strict 1.0 parser ---------------------------


def _is_struct(descriptor: Any) -> bool:
    return descriptor.full_name in ("google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue")


def unknown_members(value: Any, descriptor: Any = None, pointer: str = "") -> Iterator[str]:
    """Pointers of every member the 1.0 proto does not define, found by walking the SDK's descriptors."""
    descriptor = descriptor or a2a_types.AgentCard.DESCRIPTOR
    if not isinstance(value, Mapping) or _is_struct(descriptor):
        return
    for key, item in value.items():
        child = f"{pointer}/{_escape(key)}"
        field = descriptor.fields_by_camelcase_name.get(key) or descriptor.fields_by_name.get(key)
        if field is None:
            yield child
            continue
        message = field.message_type
        if message is None:
            continue
        if message.GetOptions().map_entry:
            target = message.fields_by_name["value"].message_type
            if target is not None and isinstance(item, Mapping):
                for name, entry in item.items():
                    yield from unknown_members(entry, target, f"{child}/{_escape(name)}")
        elif isinstance(item, list):
            for index, entry in enumerate(item):
                yield from unknown_members(entry, message, f"{child}/{index}")
        else:
            yield from unknown_members(item, message, child)


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def check_sdk_parses(card: Any, notes: list[Note]) -> None:
    """Check 4: strict parse, or lenient parse when every unknown member is a reported vendor member."""
    unknown = sorted(set(unknown_members(card)))
    vendor = {n.pointer for n in notes if n.transform == "vendor_members" and n.severity == "warning"}
    unreported = [p for p in unknown if p not in vendor]
    assert not unreported, f"members no 1.0 message defines, without a vendor_members warning: {unreported}"
    try:
        json_format.ParseDict(card, a2a_types.AgentCard())
    except json_format.ParseError as error:
        assert unknown, f"the strict 1.0 parser rejects the card, not for an unknown member: {error}"
        names = {p.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~") for p in unknown}
        assert any(f'"{name}"' in str(error) for name in names), (
            f"the strict parser's complaint names none of the vendor members {sorted(names)}: {error}")
        json_format.ParseDict(card, a2a_types.AgentCard(), ignore_unknown_fields=True)
    else:
        assert not unknown, f"the strict parser accepted unknown members {unknown}"


# -- check 5: the REQUIRED marks of the normative proto -----------------------


@dataclass(frozen=True)
class ProtoField:
    json_name: str
    type_name: str
    repeated: bool
    is_map: bool
    required: bool


_MESSAGE = re.compile(r"^message (\w+) \{(.*?)^\}", re.M | re.S)
_FIELD = re.compile(
    r"^\s*(repeated\s+|optional\s+)?(map<\s*\w+\s*,\s*([\w.]+)\s*>|[\w.]+)\s+(\w+)\s*=\s*\d+\s*(\[[^\]]*\])?\s*;", re.M)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


@cache
def proto_messages() -> dict[str, dict[str, ProtoField]]:
    """Every message of the 1.0 proto: its fields by JSON name, with their REQUIRED marks."""
    text = PROTO.read_text("utf-8")
    text = re.sub(r"//[^\n]*", "", text)  # comments mention "REQUIRED" and "message" too
    messages: dict[str, dict[str, ProtoField]] = {}
    for match in _MESSAGE.finditer(text):
        fields = {}
        for field in _FIELD.finditer(match.group(2)):
            label, type_name, map_value, name, options = field.groups()
            json_name = _camel(name)
            fields[json_name] = ProtoField(
                json_name, map_value or type_name, (label or "").strip() == "repeated", map_value is not None,
                "REQUIRED" in (options or ""))
        messages[match.group(1)] = fields
    return messages


def required_of(message: str) -> set[str]:
    return {name for name, field in proto_messages()[message].items() if field.required}


def missing_required(value: Any, message: str = "AgentCard", pointer: str = "") -> Iterator[str]:
    """Pointers of REQUIRED members that are absent or unset, through the whole card tree."""
    fields = proto_messages()[message]
    for name, field in fields.items():
        child = f"{pointer}/{name}"
        item = value.get(name)
        if field.required and (item is None or item == "" or (field.repeated and item == [])):
            yield child
        if field.type_name not in proto_messages() or item is None:
            continue
        if field.is_map and isinstance(item, Mapping):
            entries = [(f"{child}/{_escape(k)}", v) for k, v in item.items()]
        elif field.repeated and isinstance(item, list):
            entries = [(f"{child}/{i}", v) for i, v in enumerate(item)]
        else:
            entries = [(child, item)]
        for where, entry in entries:
            if isinstance(entry, Mapping):
                yield from missing_required(entry, field.type_name, where)


def check_required(card: Any, notes: list[Note]) -> None:
    """Check 5. An empty skills list is the one policy exception (warned about, never invented)."""
    missing = set(missing_required(card))
    if card.get("skills") == [] and any(n.pointer == "/skills" and n.severity == "warning" for n in notes):
        missing.discard("/skills")
    assert not missing, f"REQUIRED members missing: {sorted(missing)}"


def test_proto_required_marks_are_read() -> None:
    """The little proto reader finds the marks spec-mapping section 2.1 lists."""
    assert required_of("AgentCard") == {
        "name", "description", "supportedInterfaces", "version", "capabilities",
        "defaultInputModes", "defaultOutputModes", "skills"}
    assert required_of("AgentInterface") == {"url", "protocolBinding", "protocolVersion"}
    assert required_of("AgentProvider") == {"url", "organization"}
    assert required_of("AgentSkill") == {"id", "name", "description", "tags"}
    assert required_of("APIKeySecurityScheme") == {"location", "name"}
    assert required_of("HTTPAuthSecurityScheme") == {"scheme"}
    assert required_of("OAuth2SecurityScheme") == {"flows"}
    assert required_of("OpenIdConnectSecurityScheme") == {"openIdConnectUrl"}
    assert required_of("MutualTlsSecurityScheme") == set()
    assert required_of("AuthorizationCodeOAuthFlow") == {"authorizationUrl", "tokenUrl", "scopes"}
    assert required_of("ClientCredentialsOAuthFlow") == {"tokenUrl", "scopes"}
    assert required_of("DeviceCodeOAuthFlow") == {"deviceAuthorizationUrl", "tokenUrl", "scopes"}
    assert required_of("ImplicitOAuthFlow") == required_of("PasswordOAuthFlow") == set()
    assert proto_messages()["SecurityScheme"]["apiKeySecurityScheme"].type_name == "APIKeySecurityScheme"
    assert proto_messages()["AgentCard"]["securitySchemes"].is_map


def check_output(text: str, name: str, notes: list[Note], options: Options) -> None:
    """Checks 2, 4, 5 and 6 on an upgraded card (check 3 needs the input)."""
    errors = [n for n in notes if n.severity == "error"]
    assert not errors, f"error notes on a card that was written:\n{describe(errors)}"
    again = upgrade(text, name, options)
    assert again.status == "unchanged", f"a second upgrade still changes the card:\n{describe(again.notes)}"
    assert again.new_text == text
    card = parse_plain(text, name)
    check_sdk_parses(card, notes)
    check_required(card, notes)


# -- the golden pairs ----------------------------------------------------------

CASES = golden_cases()


def test_golden_cases_are_found() -> None:
    assert len(CASES) >= 32
    assert any(case.source.suffix in (".yaml", ".yml") for case in CASES)
    assert "already-1-0" in {case.name for case in CASES}
    unknown = set(EXPECTED_FAILURES) - {case.name for case in CASES}
    assert not unknown, f"EXPECTED_FAILURES names cases that do not exist: {unknown}"


def test_every_expected_file_has_an_input() -> None:
    inputs = {case.expected.name for case in CASES}
    outputs = {path.name for path in GOLDEN.glob(f"*{OUTPUT_MARK}*")}
    assert outputs <= inputs, f"expected outputs without an input: {sorted(outputs - inputs)}"
    options = {path.name.removesuffix(".options.json") for path in GOLDEN.glob("*.options.json")}
    assert options <= {case.name for case in CASES}, "options files without a case"


def test_already_1_0_is_its_own_expectation() -> None:
    case = next(case for case in CASES if case.name == "already-1-0")
    assert read(case.source) == read(case.expected)


@pytest.mark.parametrize("case", params(CASES, EXPECTED_FAILURES))
def test_golden_upgrade(case: Case) -> None:
    assert case.expected.exists(), f"{case.expected.name} is missing"
    text, expected = read(case.source), read(case.expected)
    outcome = upgrade(text, case.source.name, case.options)
    assert outcome.status in ("changed", "unchanged"), (
        f"refused: {outcome.error}\n{describe(outcome.notes)}")
    # 1. exactly the expected text
    assert outcome.new_text == expected, "the upgrade output differs from " + case.expected.name
    assert outcome.status == ("unchanged" if text == expected else "changed")
    # 3. the patch takes the input to the output
    patched = jsonpatch.apply_patch(parse_plain(text, case.source.name), outcome.patch)
    assert patched == parse_plain(expected, case.expected.name)
    # 2, 4, 5, 6
    check_output(expected, case.expected.name, outcome.notes, case.options)


# -- refused inputs --------------------------------------------------------------


def refused_cases() -> list[Any]:
    return [pytest.param(path, id=path.stem) for path in sorted(REFUSED.iterdir()) if path.suffix != ".expected"]


def error_places(outcome: Outcome) -> set[str]:
    places = {f"[{n.transform}] {n.pointer}" for n in outcome.notes if n.severity == "error"}
    if outcome.error:
        places.add("parse")
    return places


def test_refused_cases_are_found() -> None:
    found = refused_cases()
    assert len(found) >= 6
    for param in found:
        assert param.values[0].with_suffix(".expected").exists(), f"{param.values[0].name} has no .expected"


@pytest.mark.parametrize("path", refused_cases())
def test_refused(path: Path) -> None:
    outcome = upgrade(read(path), path.name)
    assert outcome.status == "failed", f"not refused:\n{describe(outcome.notes)}"
    expected = {line.strip() for line in read(path.with_suffix(".expected")).splitlines() if line.strip()}
    assert error_places(outcome) == expected, f"{outcome.error}\n{describe(outcome.notes)}"


# -- the real-card corpus ----------------------------------------------------------

_PLACE = re.compile(r"\bline \d+|\bbyte \d+|top level|file")


def corpus_card(path: Path) -> Any:
    marks = []
    if path.name in EXPECTED_CORPUS_FAILURES:
        marks.append(pytest.mark.xfail(reason=EXPECTED_CORPUS_FAILURES[path.name], strict=True, raises=AssertionError))
    return pytest.param(path, id=path.name, marks=marks)


@needs(CORPUS)
def test_corpus_is_found() -> None:
    assert len(corpus_files()) >= 50
    unknown = set(EXPECTED_CORPUS_FAILURES) - {path.name for path in corpus_files()}
    assert not unknown, f"EXPECTED_CORPUS_FAILURES names cards that do not exist: {unknown}"


@pytest.mark.parametrize("path", corpus_params(corpus_card))
def test_corpus_card(path: Path) -> None:
    try:
        text = io.read_text(path)
    except io.CardError as error:  # a file that is not text is a clean refusal too
        assert str(error).strip() and "\n" not in str(error)
        return
    outcome = upgrade(text, path.name)  # must never raise
    if outcome.status == "failed":
        errors = [n for n in outcome.notes if n.severity == "error"]
        if outcome.error:
            message = outcome.error
            assert message.strip() and "\n" not in message, f"read error message: {message!r}"
            assert _PLACE.search(message), f"the read error names no place: {message!r}"
        else:
            assert errors, f"refused without an error note:\n{describe(outcome.notes)}"
        for note in errors:
            assert note.message.strip() and "\n" not in note.message, note
            assert note.pointer == "" or note.pointer.startswith("/"), note
        return
    assert outcome.status in ("changed", "unchanged")
    patched = jsonpatch.apply_patch(parse_plain(text, path.name), outcome.patch)
    assert patched == parse_plain(outcome.new_text, path.name)
    check_output(outcome.new_text, path.name, outcome.notes, Options())

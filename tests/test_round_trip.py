"""Round trips 0.3 -> 1.0 -> 0.3, over the upgrade goldens and the real-card corpus.

For every 0.3 (or older) card the tool upgrades, downgrading the result must
not raise, and must give either a card valid for 0.3 (official JSON Schema and
the SDK's 0.3 model) or a refusal with a clear error note. A card that comes
back must equal the input, except:

* what the listed normalizations in :data:`NORMALIZED` say (each applied to
  both sides before comparing, each with its reason), and
* what a ``lossy`` or ``assumed`` note of either direction reported, at the
  place the note points to (:func:`explains`).

Cards refused on the way back, and inputs that were invalid 0.3 to begin with,
must be listed (:data:`REFUSED_ON_THE_WAY_BACK`, :data:`INVALID_INPUTS`) or
follow the one general rule: a card whose own ``protocolVersion`` says 1.x
keeps that version on its interfaces, and a 1.x interface is not offered to a
0.3 client. Cards that are 1.0 or hybrid already are not round-tripped; they
must downgrade to a valid 0.3 card or be refused.

The goldens are found by glob (``golden/*.0.3.*``), so new upgrade pairs are
picked up as they are written.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jsonpatch
import pytest
from test_downgrade_golden import assert_valid_v03, describe, v03_model_error, v03_schema_errors

from a2a_migrate import downgrade, upgrade
from a2a_migrate.cardtree import NO_AUTH_WORDS
from a2a_migrate.context import Context, Note, Options
from a2a_migrate.engine import Result
from a2a_migrate.io import CardError, parse
from a2a_migrate.pointer import split
from a2a_migrate.transforms import explicit_nulls, legacy_authentication, proto_field_names, security_schemes
from a2a_migrate.transforms.security_requirements import is_proto_shaped, to_v03
from a2a_migrate.versions import V0_1, V0_2, V0_3, detect_version, major_minor
from shared_support import CORPUS, corpus_files, needs

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "golden"
SUFFIXES = (".json", ".yaml", ".yml")

#: Inputs whose downgrade is refused although their protocolVersion says 0.x, and why.
REFUSED_ON_THE_WAY_BACK: dict[str, str] = {
    "interface-version-option-1-0": "upgraded with --interface-version 1.0: every interface now speaks 1.0, "
                                    "so none can be offered to a 0.3 client",
}

#: Inputs that are invalid 0.3 already; the round trip keeps what made them so.
INVALID_INPUTS: dict[str, str] = {}


# -- what a round trip is allowed to change ------------------------------------------


def _camel_case(card: dict[str, Any]) -> None:
    _quietly(proto_field_names.up, card)


def _no_nulls(card: dict[str, Any]) -> None:
    _quietly(explicit_nulls.up, card)


def _quietly(transform: Callable[[Any, Context], None], card: dict[str, Any]) -> None:
    transform(card, Context(Options()))


def _v01_authentication(card: dict[str, Any]) -> None:
    _quietly(legacy_authentication.up, card)


def _no_false_history(card: dict[str, Any]) -> None:
    capabilities = card.get("capabilities")
    if isinstance(capabilities, dict) and capabilities.get("stateTransitionHistory") is False:
        del capabilities["stateTransitionHistory"]


def _no_auth_schemes_as_nothing(card: dict[str, Any]) -> None:
    schemes = card.get("securitySchemes")
    if not isinstance(schemes, dict):
        return
    for name in [n for n, s in schemes.items() if isinstance(s, dict) and isinstance(s.get("type"), str)
                 and s["type"].lower() in NO_AUTH_WORDS]:
        del schemes[name]
        for holder in [card, *[s for s in card.get("skills") or [] if isinstance(s, dict)]]:
            if isinstance(holder.get("security"), list):
                holder["security"] = [{k: v for k, v in r.items() if k != name} if isinstance(r, dict) else r
                                      for r in holder["security"]]


def _draft_protocol_versions(card: dict[str, Any]) -> None:
    versions = card.pop("protocolVersions", None)
    if isinstance(versions, list) and versions and "protocolVersion" not in card:
        card["protocolVersion"] = versions[0]


def _skills_present(card: dict[str, Any]) -> None:
    card.setdefault("skills", [])


def _draft_extended_card_name(card: dict[str, Any]) -> None:
    if "supportsExtendedAgentCard" in card and "supportsAuthenticatedExtendedCard" not in card:
        card["supportsAuthenticatedExtendedCard"] = card.pop("supportsExtendedAgentCard")


def _default_transport(card: dict[str, Any]) -> None:
    card.setdefault("preferredTransport", "JSONRPC")


def _major_minor_version(card: dict[str, Any]) -> None:
    card["protocolVersion"] = major_minor(card.get("protocolVersion")) or V0_3


def _interfaces_once(card: dict[str, Any]) -> None:
    primary = {"url": card.get("url"), "transport": card.get("preferredTransport")}
    listed = [primary]
    for interface in card.pop("additionalInterfaces", None) or []:
        if interface not in listed:
            listed.append(interface)
    if len(listed) > 1:
        card["additionalInterfaces"] = listed


def _json_shaped_security(card: dict[str, Any]) -> None:
    _quietly(security_schemes.down, card)
    for holder in [card, *[s for s in card.get("skills") or [] if isinstance(s, dict)]]:
        if isinstance(holder.get("security"), list):
            holder["security"] = [to_v03(r) if is_proto_shaped(r) else r for r in holder["security"]]


#: Differences a round trip may show, applied to both sides in this order: name -> (reason, normalizer).
NORMALIZED: dict[str, tuple[str, Callable[[dict[str, Any]], None]]] = {
    "proto-names": ("proto (snake_case) member names are written camelCase, as both versions' JSON "
                    "spells them (an info note: same member, same value)", _camel_case),
    "explicit-nulls": ("a null member means unset in ProtoJSON and is removed; 0.3 admits no nulls", _no_nulls),
    "v0.1-authentication": ("the v0.1 authentication object comes back as the securitySchemes and security "
                            "it means, since 0.3 has no authentication member (spec-mapping 8.1)", _v01_authentication),
    "false-history": ("stateTransitionHistory false is what 1.0 not declaring it says (an info note)", _no_false_history),
    "no-auth-schemes": ("a none/public scheme means no authentication, which requirements say by needing nothing "
                        "(an info note; its description, if any, a lossy one)", _no_auth_schemes_as_nothing),
    "draft-protocol-versions": ("the draft member protocolVersions is read as protocolVersion (spec-mapping 8.2)",
                                _draft_protocol_versions),
    "skills-present": ("skills is required by both versions: a card without it comes back with the [] the "
                       "upgrade wrote (with a warning; no skill is invented)", _skills_present),
    "draft-extended-card-name": ("the pre-1.0 draft name supportsExtendedAgentCard comes back as the 0.3 name "
                                 "supportsAuthenticatedExtendedCard (spec-mapping 8.2)", _draft_extended_card_name),
    "default-transport": ("an absent preferredTransport is JSONRPC (0.3 schema default) and comes back "
                          "written, as 0.3 section 5.6.1 requires it", _default_transport),
    "protocol-version-major-minor": ("1.0 keeps Major.Minor only (spec 3.6): '0.3' and '0.2.5' come back as "
                                     "'0.3.0' and '0.2.0'; an absent version is 0.3 (spec 3.6.2)",
                                     _major_minor_version),
    "interfaces-once": ("the upgrade lists each interface once (spec-mapping 4); the downgrade writes "
                        "additionalInterfaces, the primary included (0.3 section 5.6.2), only when there are "
                        "several", _interfaces_once),
    "json-shaped-security": ("security written in the 0.3 gRPC (proto) shape comes back in the 0.3 JSON "
                             "shape (spec-mapping 8.2)", _json_shaped_security),
}

def normalized(card: Any) -> Any:
    result = copy.deepcopy(card)
    for _, normalize in NORMALIZED.values():
        normalize(result)
    return result


def _scopes(pointer: str) -> list[str]:
    """The parts of a card a note at ``pointer`` speaks of."""
    tokens = split(pointer)
    if tokens[:1] == ["securitySchemes"] and len(tokens) > 1:
        return [f"/securitySchemes/{tokens[1]}", f"scheme:{tokens[1]}"]
    if tokens[:1] == ["skills"] and len(tokens) > 1:
        return [f"/skills/{tokens[1]}"]
    return [pointer]


def explains(note: Note, path: str) -> bool:
    """Whether a lossy or assumed note accounts for a difference at ``path``."""
    if note.severity not in ("lossy", "assumed"):
        return False
    tokens = split(path)
    for place in _scopes(note.pointer):
        if place.startswith("scheme:"):  # a requirement naming the scheme
            if "security" in tokens and place[len("scheme:"):] in tokens:
                return True
        elif path == place or path.startswith(place + "/") or place.startswith(path + "/"):
            return True
    return False


def unexplained(source: Any, back: Any, notes: list[Note]) -> list[dict[str, Any]]:
    """The differences between ``source`` and ``back`` that nothing listed or reported explains."""
    operations = jsonpatch.make_patch(normalized(source), normalized(back)).patch
    return [op for op in operations
            if not any(explains(note, path) for note in notes for path in (op["path"], op.get("from", op["path"])))]


# -- the inputs -------------------------------------------------------------------------


def _golden_options(path: Path) -> Options:
    options = GOLDEN / (path.name.split(".0.3.")[0] + ".options.json")
    return Options(**json.loads(options.read_text("utf-8"))) if options.exists() else Options()


def inputs(*, v03: bool) -> list[Any]:
    """The goldens' inputs and the corpus cards: the 0.3 (and older) ones, or all others."""
    goldens = [(path, path.name.split(".0.3.")[0], _golden_options(path))
               for path in sorted(GOLDEN.glob("*.0.3.*")) if path.suffix in SUFFIXES]
    corpus = [(path, path.name, Options()) for path in corpus_files(SUFFIXES)]  # none on a fresh clone
    return [pytest.param(path, options, id=name) for path, name, options in goldens + corpus
            if (detect_version(_read(path)) in (V0_3, V0_2, V0_1)) == v03]


def _read(path: Path) -> Any:
    try:
        return parse(path.read_bytes().decode("utf-8", errors="replace"), path.name).original
    except CardError:
        return None


def _declares_1_x(card: Any) -> bool:
    version = major_minor(card.get("protocolVersion")) if isinstance(card, Mapping) else None
    return version is not None and not version.startswith("0.")


def _check_refusal(name: str, source: Any, back: Result) -> None:
    errors = [n for n in back.notes if n.severity == "error"]
    assert errors and all(len(n.message) > 20 for n in errors), describe(back.notes)
    assert name in REFUSED_ON_THE_WAY_BACK or _declares_1_x(source), (
        f"a 0.3 card was upgraded and then refused on the way back:\n{describe(back.notes)}")


@needs(CORPUS)
def test_inputs_are_found() -> None:
    cards, others = inputs(v03=True), inputs(v03=False)
    assert len([p for p in cards + others if (CORPUS / p.id).exists()]) >= 50
    assert len(cards) >= 40 and len(others) >= 10
    assert set(REFUSED_ON_THE_WAY_BACK) | set(INVALID_INPUTS) <= {param.id for param in cards}


@pytest.mark.parametrize(("path", "options"), inputs(v03=True))
def test_round_trip(path: Path, options: Options) -> None:
    name = path.name.split(".0.3.")[0] if path.parent == GOLDEN else path.name
    source = _read(path)
    up = upgrade(source, options)
    if not up.ok:  # nothing to bring back: the refusal itself must say why, with a place
        assert [note for note in up.notes if note.severity == "error" and note.message], describe(up.notes)
        return
    back = downgrade(up.card, options)
    if not back.ok:
        _check_refusal(name, source, back)
        return
    if name in INVALID_INPUTS:
        assert v03_schema_errors(source) and v03_schema_errors(back.card), f"{name} is valid now: unlist it"
    else:
        assert_valid_v03(back.card)
    left = unexplained(source, back.card, up.notes + back.notes)
    assert not left, f"differences no note reports:\n{left}\nnotes:\n{describe(up.notes + back.notes)}"


@pytest.mark.parametrize(("path", "options"), inputs(v03=False))
def test_downgrade_of_1_0_cards(path: Path, options: Options) -> None:
    """Cards already 1.0 or hybrid (or unreadable): a valid 0.3 card, or refused with an error note."""
    source = _read(path)
    if source is None:  # unreadable: the CLI must refuse it with a one-line error, not crash
        from a2a_migrate.batch import Job, migrate_file

        outcome = migrate_file(str(path), Job("down"))
        assert outcome.status == "failed" and outcome.error and "\n" not in outcome.error
        return
    result = downgrade(source, options)
    if result.ok:
        assert not v03_schema_errors(result.card) and v03_model_error(result.card) is None, (
            v03_schema_errors(result.card), describe(result.notes))
    else:
        assert [n for n in result.notes if n.severity == "error"]


# -- the comparison itself ----------------------------------------------------------------


def test_normalizations_are_what_they_say() -> None:
    card = {"url": "https://a", "protocolVersion": "0.3", "additionalInterfaces": [{"url": "https://a", "transport": "JSONRPC"}],
            "security": [{"schemes": {"k": {}}}], "securitySchemes": {"k": {"mtlsSecurityScheme": {}}}}
    assert normalized(card) == {"url": "https://a", "protocolVersion": "0.3", "preferredTransport": "JSONRPC",
                                "security": [{"k": []}], "securitySchemes": {"k": {"type": "mutualTLS"}}, "skills": []}


def test_only_reported_losses_are_excused() -> None:
    source = {"name": "A", "url": "u", "capabilities": {"stateTransitionHistory": True}, "securitySchemes": {"p": {}},
              "security": [{"p": []}]}
    back = {"name": "A", "url": "u", "capabilities": {}, "securitySchemes": {}, "security": [{}]}
    lossy = Note("lossy", "state_transition_history", "/capabilities/stateTransitionHistory", "dropped")
    scheme = Note("assumed", "security_schemes", "/securitySchemes/p", "no authentication")
    assert unexplained(source, back, [lossy, scheme]) == []
    assert [op["path"] for op in unexplained(source, back, [scheme])] == ["/capabilities/stateTransitionHistory"]
    info = Note("info", "state_transition_history", "/capabilities/stateTransitionHistory", "dropped")
    assert unexplained(source, back, [info, scheme]) != []

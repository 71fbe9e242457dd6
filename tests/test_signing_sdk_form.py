"""Signing in the official a2a-sdk's form (issue 14), checked against the SDK's own signer and verifier.

The SDK reads a card with its card reader (``parse_agent_card``, what its
``A2ACardResolver`` does), then canonicalizes the protobuf form with empty values
removed. Every test here goes through that public path, never through the
SDK's private helpers, so a change in the SDK shows up as a failing test.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from shared_support import CORPUS, corpus_files, needs
from test_signing import CARD, OTHER_FORM, private_key, private_pem, public_keys, public_pem, write

from a2a_migrate import io, signing, upgrade
from a2a_migrate.validation import proto_json
from a2a_migrate.versions import V1_0, detect_version

sdk = pytest.importorskip("a2a.utils.signing", reason="the official a2a-sdk (a test dependency) is not installed")

API_KEY = {"apiKey": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}}}

#: 1.0 cards whose two forms differ, each for another reason the SDK's form drops or respells something.
DIFFERING: dict[str, dict[str, Any]] = {
    "apiKey-requirement": dict(CARD, securitySchemes=API_KEY, securityRequirements=[{"schemes": {"apiKey": {}}}]),
    "apiKey-empty-list": dict(CARD, securitySchemes=API_KEY,
                              securityRequirements=[{"schemes": {"apiKey": {"list": []}}}]),
    "skill-requirement": dict(CARD, securitySchemes=API_KEY, skills=[dict(
        CARD["skills"][0], tags=[], securityRequirements=[{"schemes": {"apiKey": {}}}])]),
    "empty-values": dict(CARD, capabilities={}, documentationUrl="", supportedInterfaces=[
        dict(CARD["supportedInterfaces"][0], tenant="")]),
    "default-false": dict(CARD, capabilities={"streaming": False, "extensions": [
        {"uri": "https://ext.example.com/v1", "required": False, "params": {"depth": 1, "off": False, "none": None}}]},
        securitySchemes={"oauth": {"oauth2SecurityScheme": {"flows": {"authorizationCode": {
            "authorizationUrl": "https://auth.example.com/a", "tokenUrl": "https://auth.example.com/t",
            "scopes": {}, "pkceRequired": False}}}}}),
    "vendor-members": dict(CARD, **{"x-vendor": {"tier": "gold"}},
                           provider={"organization": "Météo Example", "url": "https://example.com", "x-id": 7}),
    "proto-names-and-nulls": {**{k: v for k, v in CARD.items() if k != "defaultInputModes"},
                              "default_input_modes": ["text/plain"], "iconUrl": None, "provider": None},
}


def pem_file(tmp_path: Path) -> str:
    return write(tmp_path / "key.pem", private_pem(private_key("P-256")))


def request(tmp_path: Path, signed_form: str) -> signing.SigningRequest:
    return signing.signing_request(pem_file(tmp_path), "k1", signed_form=signed_form)


def signed(card: dict[str, Any], req: signing.SigningRequest) -> dict[str, Any]:
    card = copy.deepcopy(card)
    signing.add_signature(card, signing.sign(card, req))
    return card


def sdk_accepts(card: dict[str, Any]) -> bool:
    """Whether the SDK's verifier accepts ``card`` read as its resolver reads a fetched card."""
    from a2a.client.card_resolver import parse_agent_card

    verifier = sdk.create_signature_verifier(lambda kid, jku: public_pem(private_key("P-256")), ["ES256"])
    try:
        verifier(parse_agent_card(copy.deepcopy(card)))
    except sdk.SignatureVerificationError:
        return False
    return True


def signed_by_sdk(card: dict[str, Any]) -> dict[str, Any]:
    """``card`` as published, with the signature the SDK's signer makes for it."""
    from a2a.client.card_resolver import parse_agent_card
    from google.protobuf.json_format import MessageToDict

    signer = sdk.create_agent_card_signer(private_pem(private_key("P-256")), {"alg": "ES256", "kid": "sdk",
                                                                               "typ": "JOSE"})
    signatures = MessageToDict(signer(parse_agent_card(copy.deepcopy(card))))["signatures"]
    return dict(copy.deepcopy(card), signatures=signatures)


# -- both directions, on cards whose forms differ ----------------------------------------

@pytest.mark.parametrize("name", list(DIFFERING))
def test_the_sdk_accepts_an_sdk_form_signature_and_refuses_a_spec_form_one(tmp_path: Path, name: str) -> None:
    card = DIFFERING[name]
    assert signing.canonical_payload(card) != signing.sdk_payload(card)
    ours = signed(card, request(tmp_path, "sdk"))
    assert sdk_accepts(ours)
    assert not sdk_accepts(signed(card, request(tmp_path, "spec")))  # why the option exists
    ours["name"] = "Changed"
    assert not sdk_accepts(ours)


@pytest.mark.parametrize("name", list(DIFFERING))
def test_the_tool_accepts_the_sdks_signature_in_the_sdk_form_only(name: str) -> None:
    card = signed_by_sdk(DIFFERING[name])
    (check,) = signing.verify(card, public_keys("P-256", "sdk"), signed_form="sdk")
    assert check.valid, check.message
    assert check.message.endswith(", a2a-sdk form)")
    (check,) = signing.verify(card, public_keys("P-256", "sdk"))
    assert (check.valid, check.reason) == (False, OTHER_FORM)
    assert "checked in the a2a-sdk form (--signed-form sdk) it verifies" in check.message


def test_a_spec_form_signature_checked_in_the_sdk_form_is_named(tmp_path: Path) -> None:
    card = signed(DIFFERING["apiKey-requirement"], request(tmp_path, "spec"))
    (check,) = signing.verify(card, public_keys("P-256"), signed_form="sdk")
    assert (check.valid, check.reason) == (False, OTHER_FORM)
    assert check.message.startswith("it signs the RFC 8785 form of the card as published (spec 8.4.1), "
                                    "not the official a2a-sdk's form")


def test_where_the_forms_agree_both_verifiers_accept_either_signature(tmp_path: Path) -> None:
    assert signing.canonical_payload(CARD) == signing.sdk_payload(CARD)
    for form in ("spec", "sdk"):
        card = signed(CARD, request(tmp_path, form))
        assert signing.interop_warnings(card, form) == []
        assert sdk_accepts(card)
        assert all(check.valid for other in ("spec", "sdk")
                   for check in signing.verify(card, public_keys("P-256"), signed_form=other))


# -- the warnings name who is left out -------------------------------------------------

def test_each_form_warns_about_the_verifiers_it_leaves_out(tmp_path: Path) -> None:
    card = DIFFERING["apiKey-requirement"]
    (spec_warning,) = signing.interop_warnings(signed(card, request(tmp_path, "spec")), "spec")
    assert "(/securityRequirements/0/schemes/apiKey)" in spec_warning and "a2a-sdk drop" in spec_warning
    (sdk_warning,) = signing.interop_warnings(signed(card, request(tmp_path, "sdk")), "sdk")
    assert sdk_warning == ("it signs the official a2a-sdk's form, which leaves out what the card as published has "
                           "(/securityRequirements/0/schemes/apiKey): verifiers that canonicalize the card as "
                           "published (spec 8.4.1) will not accept this signature")


def test_a_respelled_member_is_warned_about_though_nothing_is_empty() -> None:
    card = DIFFERING["proto-names-and-nulls"]
    (spec_warning,) = signing.interop_warnings(card, "spec")
    assert spec_warning.startswith("it spells members as the official a2a-sdk does not (proto names, nulls)")
    (sdk_warning,) = signing.interop_warnings(card, "sdk")
    assert "(proto names and nulls)" in sdk_warning


def test_a_number_beyond_doubles_has_an_sdk_form_but_no_spec_form(tmp_path: Path) -> None:
    """Protobuf holds ``params`` numbers as doubles, so the SDK signs 2**60 as a double; RFC 8785 of the
    card as published refuses the integer."""
    card = dict(CARD, capabilities={"extensions": [{"uri": "https://ext.example.com/v1", "params": {"n": 2 ** 60}}]})
    ours = signed(card, request(tmp_path, "sdk"))
    assert sdk_accepts(ours)
    (warning,) = signing.interop_warnings(ours, "sdk")
    assert warning.startswith("the card has no RFC 8785 canonical form") and "cannot check this signature" in warning
    with pytest.raises(signing.SigningError, match="no RFC 8785 canonical form"):
        signing.sign(card, request(tmp_path, "spec"))


def test_the_migration_hook_signs_in_the_requested_form(tmp_path: Path) -> None:
    from a2a_migrate.context import Options

    card = copy.deepcopy(DIFFERING["apiKey-requirement"])
    result = signing.sign_migrated(card, signing.with_signing(Options(), request(tmp_path, "sdk")))
    assert result.ok
    assert [note.severity for note in result.notes] == ["info", "warning"]
    assert result.notes[0].message == 'signed (ES256, key "k1", a2a-sdk form)'
    assert sdk_accepts(card)


# -- what has no SDK form is refused in one line ----------------------------------------

@pytest.mark.parametrize(("card", "words"), [
    ({"name": "A", "url": "https://a.example.com", "protocolVersion": "0.3.0", "version": "1"},
     "no a2a-sdk form: it is no 1.0 card (its shape is 0.3)"),
    (dict(CARD, url="https://weather.example.com/a2a"), "no a2a-sdk form: it is no 1.0 card (its shape is hybrid)"),
    (dict(CARD, skills=[dict(CARD["skills"][0], security=[{"k": []}])]),
     "no a2a-sdk form: the a2a-sdk rewrites its 0.3 members (/skills/0/security)"),
    (dict(CARD, securitySchemes={"k": {"type": "apiKey", **API_KEY["apiKey"]}}),
     "no a2a-sdk form: the a2a-sdk rewrites its 0.3 members (/securitySchemes/k/type)"),
    (dict(CARD, skills=None), "no a2a-sdk form: the a2a-sdk's card reader fails on a null 'skills'"),
    (dict(CARD, capabilities={"streaming": "yes"}), "no a2a-sdk form: the a2a-sdk cannot read it: /capabilities/streaming:"),
    (dict(CARD, default_input_modes=["a"]), "no a2a-sdk form: the a2a-sdk cannot read it: /default_input_modes: "
                                            "'default_input_modes' and 'defaultInputModes' are the same field"),
    (dict(CARD, securitySchemes={"k": {"mtlsSecurityScheme": {}, **API_KEY["apiKey"]}}),
     "no a2a-sdk form: the a2a-sdk cannot read it: /securitySchemes/k: "),
    (dict(CARD, capabilities={"extensions": [{"uri": "u", "params": {"n": 10 ** 400}}]}),
     "no a2a-sdk form: the a2a-sdk cannot read it: /capabilities/extensions/0/params/n: 1000"),
])
def test_a_card_without_an_sdk_form_is_refused(tmp_path: Path, card: dict[str, Any], words: str) -> None:
    with pytest.raises(signing.SigningError) as error:
        signing.sign(card, request(tmp_path, "sdk"))
    assert str(error.value).startswith(words) and "\n" not in str(error.value)
    (check,) = signing.verify(dict(card, signatures=[{"protected": "e30", "signature": "AA"}]), [], signed_form="sdk")
    assert check.reason == signing.UNSUPPORTED and check.message == str(error.value)


def test_an_unknown_form_is_refused(tmp_path: Path) -> None:
    with pytest.raises(signing.SigningError, match='signed form "jcs" is not one of spec, sdk'):
        signing.signing_request(pem_file(tmp_path), "k1", signed_form="jcs")


def test_proto_json_is_the_card_as_protojson_writes_it() -> None:
    card = {"name": "A", "default_input_modes": ["x"], "x-v": 1, "iconUrl": None,
            "capabilities": {"push_notifications": True, "extensions": [{"uri": "u", "params": {"n": 2, "b": True}}]},
            "securitySchemes": {"my_key": {"api_key_security_scheme": {"name": "n", "location": "header"}}}}
    assert proto_json(card) == {
        "name": "A", "defaultInputModes": ["x"],
        "capabilities": {"pushNotifications": True, "extensions": [{"uri": "u", "params": {"n": 2.0, "b": True}}]},
        "securitySchemes": {"my_key": {"apiKeySecurityScheme": {"name": "n", "location": "header"}}}}
    assert isinstance(proto_json(card)["capabilities"]["extensions"][0]["params"]["n"], float)


# -- the real cards ----------------------------------------------------------------------------

@needs(CORPUS)
def test_on_every_upgraded_corpus_card_the_model_predicts_the_sdks_verdict(tmp_path: Path) -> None:
    """Each corpus card upgraded: its SDK-form signature passes the SDK; its spec-form one passes exactly
    when the two forms are the same bytes (so the interop warning is right both ways)."""
    spec, sdk_req = request(tmp_path, "spec"), request(tmp_path, "sdk")
    checked = differing = 0
    for path in corpus_files():
        try:
            card = upgrade(io.parse_value(path.read_text("utf-8"), str(path))).card
        except (io.CardError, ValueError, TypeError):
            continue  # not a card at all: the corpus tests cover the refusal
        card.pop("signatures", None)
        if detect_version(card) != V1_0:
            continue
        same = signing.canonical_payload(card) == signing.sdk_payload(card)
        assert sdk_accepts(signed(card, sdk_req)), path.name
        assert sdk_accepts(signed(card, spec)) == same, path.name
        assert (signing.interop_warnings(signed(card, spec)) == []) == same, path.name
        checked, differing = checked + 1, differing + (not same)
    assert checked >= 60 and differing >= 30  # measured: 63 cards, 41 of them differ


def test_the_python_api_signs_and_verifies_in_the_sdk_form(tmp_path: Path) -> None:
    from a2a_migrate import sign, verify

    key = pem_file(tmp_path)
    public = write(tmp_path / "key.pub.pem", public_pem(private_key("P-256")))
    card = sign(DIFFERING["apiKey-requirement"], key, kid="k1", signed_form="sdk")
    assert sdk_accepts(card)
    assert [check.valid for check in verify(card, [public], signed_form="sdk")] == [True]
    assert [check.reason for check in verify(card, [public])] == [OTHER_FORM]


# -- the command line ------------------------------------------------------------------------

#: A 0.3 card whose API key has no scopes: the common ``{"apiKey": []}`` that becomes ``{"apiKey": {}}`` in 1.0.
CARD_0_3 = {"name": "Quotes", "description": "Stock quotes", "url": "https://quotes.example.com/a2a",
            "protocolVersion": "0.3.0", "version": "1.0.0", "preferredTransport": "JSONRPC",
            "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
            "securitySchemes": {"apiKey": {"type": "apiKey", "in": "header", "name": "X-Key"}},
            "security": [{"apiKey": []}],
            "skills": [{"id": "q", "name": "Quote", "description": "A quote", "tags": ["finance"]}]}


def cli_files(tmp_path: Path, card: dict[str, Any]) -> tuple[Path, Path, Path]:
    from test_cli_signing import keys

    private, public = keys(tmp_path)
    path = tmp_path / "agent-card.json"
    path.write_text(json.dumps(card, indent=2))
    return path, private, public


def test_upgrade_signs_in_the_sdk_form_and_the_round_trip_verifies_both_ways(tmp_path: Path) -> None:
    from test_cli_signing import invoke

    path, private, public = cli_files(tmp_path, CARD_0_3)
    result = invoke("upgrade", "-v", "--sign-key", private, "--kid", "k1", "--signed-form", "sdk", path)
    assert result.exit_code == 0, result.output
    assert 'signed (ES256, key "k1", a2a-sdk form)' in result.stderr
    assert "verifiers that canonicalize the card as published (spec 8.4.1) will not accept" in result.stderr
    card = json.loads(path.read_text())
    assert card["securityRequirements"] == [{"schemes": {"apiKey": {}}}]
    assert sdk_accepts(card)
    result = invoke("verify", "--key", public, "--signed-form", "sdk", path)
    assert (result.exit_code, result.stdout) == (0, f'{path}: /signatures/0: verified (ES256, key "k1" from '
                                                    f'{public}, a2a-sdk form)\n')
    result = invoke("verify", "--key", public, path)
    assert result.exit_code == 1 and "failed [other-form]" in result.stdout


def test_upgrade_signs_the_spec_form_by_default_which_the_sdk_refuses(tmp_path: Path) -> None:
    from test_cli_signing import invoke

    path, private, public = cli_files(tmp_path, CARD_0_3)
    result = invoke("upgrade", "--sign-key", private, "--kid", "k1", path)
    assert result.exit_code == 0, result.output
    assert "verifiers built on the official a2a-sdk drop before canonicalizing" in result.stderr
    assert not sdk_accepts(json.loads(path.read_text()))
    assert invoke("verify", "--key", public, path).exit_code == 0


def test_sign_and_verify_commands_take_the_form(tmp_path: Path) -> None:
    from test_cli_signing import invoke

    path, private, public = cli_files(tmp_path, DIFFERING["default-false"])
    result = invoke("sign", "--key", private, "--kid", "k1", "--signed-form", "sdk", path)
    assert result.exit_code == 0, result.output
    assert sdk_accepts(json.loads(path.read_text()))
    assert invoke("verify", "--key", public, "--signed-form", "sdk", path).exit_code == 0
    result = invoke("verify", "--key", public, "--signed-form", "sdk", "--format", "json", path)
    assert json.loads(result.stdout)["cards"][0]["verified"] is True


def test_sign_refuses_a_card_without_an_sdk_form_in_one_line(tmp_path: Path) -> None:
    from test_cli_signing import invoke

    path, private, _ = cli_files(tmp_path, CARD_0_3)
    before = path.read_text()
    result = invoke("sign", "--key", private, "--kid", "k1", "--signed-form", "sdk", path)
    assert result.exit_code == 123
    (line,) = [line for line in result.stderr.splitlines() if str(path) in line]
    assert line.startswith(f"{path}") and "no a2a-sdk form: it is no 1.0 card (its shape is 0.3)" in line
    assert "Traceback" not in result.output and path.read_text() == before


@pytest.mark.parametrize(("args", "words"), [
    (["downgrade"], "--signed-form sdk signs 1.0 cards, and this run writes 0.3 cards"),
    (["upgrade", "--hybrid"], "--signed-form sdk signs 1.0 cards, and this run writes hybrid cards"),
])
def test_a_migration_that_writes_no_1_0_card_cannot_sign_the_sdk_form(tmp_path: Path, args: list[str],
                                                                       words: str) -> None:
    from test_cli_signing import invoke

    path, private, _ = cli_files(tmp_path, DIFFERING["apiKey-requirement"])
    result = invoke(*args, "--sign-key", private, "--kid", "k1", "--signed-form", "sdk", path)
    assert result.exit_code == 2 and result.stderr == f"Error: {words}: the a2a-sdk reads those through a 0.3 " \
                                                      "mapping that is not modelled\n"


def test_signed_form_needs_a_signing_key(tmp_path: Path) -> None:
    from test_cli_signing import invoke

    path, _, _ = cli_files(tmp_path, CARD_0_3)
    result = invoke("upgrade", "--signed-form", "sdk", path)
    assert (result.exit_code, result.stderr) == (2, "Error: --signed-form only make sense with --sign-key\n")


def _containers(value: Any) -> list[Any]:
    found = [value] if isinstance(value, (dict, list)) and value else []
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return found + [c for item in items for c in _containers(item)]


def _mutated(card: dict[str, Any], rnd: random.Random) -> dict[str, Any]:
    """``card`` with what makes the forms differ: values emptied or nulled, proto names, members 1.0 lacks."""
    card = copy.deepcopy(card)
    for _ in range(rnd.randint(1, 4)):
        place = rnd.choice(_containers(card))
        key = rnd.choice(list(place)) if isinstance(place, dict) else rnd.randrange(len(place))
        value, roll = place[key], rnd.random()
        if roll < 0.4 or isinstance(place, list):
            place[key] = type(value)() if isinstance(value, (str, list, dict)) else value
        elif roll < 0.55:
            place[key] = None
        elif roll < 0.75 and isinstance(key, str):
            place[re.sub(r"[A-Z]", lambda m: "_" + m.group(0).lower(), key)] = place.pop(key)
        else:
            place[f"x{rnd.randint(0, 9)}"] = rnd.choice(["", {}, [], "v", 1, {"y": ""}])
    return card


def test_on_mutated_cards_every_sdk_form_signature_passes_the_sdk(tmp_path: Path) -> None:
    """A seeded sample: whatever the model signs, the SDK accepts; what it refuses is refused in one line."""
    rnd, sdk_req = random.Random(14), request(tmp_path, "sdk")
    outcomes: Counter[str] = Counter()
    for _ in range(300):
        card = _mutated(rnd.choice([CARD, *DIFFERING.values()]), rnd)
        try:
            ours = signed(card, sdk_req)
        except signing.SigningError as error:
            assert str(error).startswith("no a2a-sdk form: ") and "\n" not in str(error)
            outcomes["refused"] += 1
            continue
        assert sdk_accepts(ours), json.dumps(card)
        outcomes["accepted"] += 1
    assert outcomes["accepted"] >= 250, outcomes  # measured: 289 accepted, 11 refused


def test_the_sdks_card_resolver_accepts_the_card_it_fetches_signed_in_the_sdk_form(tmp_path: Path) -> None:
    """The whole client path: ``A2ACardResolver.get_agent_card`` with the SDK's verifier, served from memory."""
    import asyncio

    import httpx
    from a2a.client.card_resolver import A2ACardResolver

    verifier = sdk.create_signature_verifier(lambda kid, jku: public_pem(private_key("P-256")), ["ES256"])

    def fetch(card: dict[str, Any]) -> Any:
        async def run() -> Any:
            transport = httpx.MockTransport(lambda request: httpx.Response(200, json=card))
            async with httpx.AsyncClient(transport=transport) as client:
                resolver = A2ACardResolver(client, "https://agent.example.com")
                return await resolver.get_agent_card(signature_verifier=verifier)
        return asyncio.run(run())

    card = DIFFERING["apiKey-requirement"]
    assert fetch(signed(card, request(tmp_path, "sdk"))).name == card["name"]
    with pytest.raises(sdk.InvalidSignaturesError):
        fetch(signed(card, request(tmp_path, "spec")))

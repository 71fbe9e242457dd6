"""Signing and verifying cards: canonical form, algorithms, keys, jku, interop with other JOSE code.

No test uses the network: jku fetches go to a server on 127.0.0.1 that the test starts.
"""

from __future__ import annotations

import base64
import copy
import json
import pickle
import re
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, padding, rsa, utils
from http_support import LocalServer as JwksServer
from http_support import drip, server, sized, slow, status  # noqa: F401 (server: a fixture)
from transform_helpers import base_card

from a2a_migrate import signing, upgrade
from a2a_migrate.context import Options
from a2a_migrate.signing import CONTENT_CHANGED, NOT_A_JWS, OTHER_FORM, UNSUPPORTED, WRONG_KEY

ROOT = Path(__file__).resolve().parent.parent
GOLDEN_SIGNED = ROOT / "golden" / "signed"

#: A 1.0 card that every verifier canonicalizes alike: no empty values, no
#: vendor members; non-ASCII text, a float and nesting to exercise RFC 8785.
CARD: dict[str, Any] = {
    "name": "Weather Agent",
    "description": "Prévisions — forecasts for any city, 気象 ☀",
    "supportedInterfaces": [{"url": "https://weather.example.com/a2a", "protocolBinding": "JSONRPC",
                             "protocolVersion": "0.3"}],
    "version": "2.1.0",
    "provider": {"organization": "Météo Example", "url": "https://example.com"},
    "capabilities": {"streaming": True, "pushNotifications": False},
    "defaultInputModes": ["text/plain"],
    "defaultOutputModes": ["text/plain", "application/json"],
    "skills": [{"id": "forecast", "name": "Forecast", "description": "Daily forecast, 10 days",
                "tags": ["weather", "forecast"], "examples": ["Zürich tomorrow?"]}],
}

# -- keys -----------------------------------------------------------------------------

_CURVES: dict[str, Callable[[], Any]] = {
    "P-256": lambda: ec.generate_private_key(ec.SECP256R1()),
    "P-384": lambda: ec.generate_private_key(ec.SECP384R1()),
    "P-521": lambda: ec.generate_private_key(ec.SECP521R1()),
    "RSA": lambda: rsa.generate_private_key(65537, 2048),
    "Ed25519": ed25519.Ed25519PrivateKey.generate,
    "Ed448": ed448.Ed448PrivateKey.generate,
}
KEY_OF_ALG = {"ES256": "P-256", "ES384": "P-384", "ES512": "P-521", "RS256": "RSA", "RS384": "RSA", "RS512": "RSA",
              "PS256": "RSA", "PS384": "RSA", "PS512": "RSA", "EdDSA": "Ed25519", "Ed25519": "Ed25519",
              "Ed448": "Ed448"}
_MADE: dict[str, Any] = {}


def private_key(kind: str) -> Any:
    """One key of each kind per test session (RSA key generation is slow)."""
    if kind not in _MADE:
        _MADE[kind] = _CURVES[kind]()
    return _MADE[kind]


def private_pem(key: Any, fmt: Any = serialization.PrivateFormat.PKCS8) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption())


def public_pem(key: Any) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


def write(path: Path, data: bytes | str) -> str:
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return str(path)


def request_for(tmp_path: Path, kind: str, kid: str = "k1", alg: str | None = None,
                jku: str | None = None) -> signing.SigningRequest:
    key_file = write(tmp_path / f"{kind}.pem", private_pem(private_key(kind)))
    return signing.signing_request(key_file, kid, alg, jku)


def public_keys(kind: str, kid: str | None = None) -> list[signing.Key]:
    keys = signing.load_keys(public_pem(private_key(kind)).decode(), f"{kind}.pub.pem")
    return [signing.Key(key.jwk, kid, key.source) for key in keys]


def signed(card: dict[str, Any], request: signing.SigningRequest) -> dict[str, Any]:
    card = copy.deepcopy(card)
    signing.add_signature(card, signing.sign(card, request))
    return card


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def header_of(signature: dict[str, str]) -> dict[str, Any]:
    return json.loads(unb64(signature["protected"]))


# -- sign and verify, each algorithm ----------------------------------------------------

@pytest.mark.parametrize("alg", list(signing.ALGORITHMS))
def test_sign_then_verify_each_algorithm(tmp_path: Path, alg: str) -> None:
    request = request_for(tmp_path, KEY_OF_ALG[alg], kid=f"key-{alg}", alg=alg)
    card = signed(CARD, request)
    assert header_of(card["signatures"][0]) == {"alg": alg, "typ": "JOSE", "kid": f"key-{alg}"}
    (check,) = signing.verify(card, public_keys(KEY_OF_ALG[alg]))
    assert check.valid, check.message
    assert (check.alg, check.kid, check.pointer) == (alg, f"key-{alg}", "/signatures/0")


@pytest.mark.parametrize(("kind", "alg"), [("P-256", "ES256"), ("P-384", "ES384"), ("P-521", "ES512"),
                                           ("RSA", "RS256"), ("Ed25519", "EdDSA"), ("Ed448", "EdDSA")])
def test_the_default_algorithm_follows_the_key(tmp_path: Path, kind: str, alg: str) -> None:
    assert request_for(tmp_path, kind).alg == alg


def test_a_jwk_key_gives_its_kid_and_alg_and_jku_goes_in_the_header(tmp_path: Path) -> None:
    from joserfc.jwk import ECKey

    jwk = dict(ECKey.import_key(private_pem(private_key("P-256"))).as_dict(private=True), kid="from-jwk")
    request = signing.signing_request(write(tmp_path / "k.jwk", json.dumps(jwk)), jku="https://keys.example.com/jwks")
    assert (request.kid, request.alg) == ("from-jwk", "ES256")
    card = signed(CARD, request)
    assert header_of(card["signatures"][0]) == {"alg": "ES256", "typ": "JOSE", "kid": "from-jwk",
                                                "jku": "https://keys.example.com/jwks"}
    public = {"keys": [dict(ECKey.import_key(jwk).as_dict(private=False), kid="from-jwk")]}
    assert signing.verify(card, signing.load_keys(json.dumps(public), "set.json"))[0].valid


@pytest.mark.parametrize(("kind", "alg", "message"), [
    ("P-384", "ES256", "ES256 needs an EC key on P-256, this is an EC key on P-384"),
    ("P-256", "RS256", "RS256 needs an RSA key, this is an EC key on P-256"),
    ("RSA", "EdDSA", "EdDSA needs an OKP key on Ed25519 or Ed448, this is an RSA key"),
    ("Ed448", "Ed25519", "Ed25519 needs an OKP key on Ed25519, this is an OKP key on Ed448"),
])
def test_the_algorithm_must_fit_the_key(tmp_path: Path, kind: str, alg: str, message: str) -> None:
    with pytest.raises(signing.SigningError, match=message):
        request_for(tmp_path, kind, alg=alg)


# -- key files ------------------------------------------------------------------------

def test_traditional_pem_files_work(tmp_path: Path) -> None:
    ec_key, rsa_key = private_key("P-256"), private_key("RSA")
    # openssl ecparam -genkey writes an EC PARAMETERS block before the key
    params = "-----BEGIN EC PARAMETERS-----\nBggqhkjOPQMBBw==\n-----END EC PARAMETERS-----\n"
    sec1 = params + private_pem(ec_key, serialization.PrivateFormat.TraditionalOpenSSL).decode()
    assert signing.signing_request(write(tmp_path / "ec.pem", sec1), "k").alg == "ES256"
    pkcs1 = private_pem(rsa_key, serialization.PrivateFormat.TraditionalOpenSSL)
    assert b"RSA PRIVATE KEY" in pkcs1
    assert signing.signing_request(write(tmp_path / "rsa.pem", pkcs1), "k").alg == "RS256"


def test_a_certificate_verifies(tmp_path: Path) -> None:
    import datetime

    from cryptography import x509
    from cryptography.x509.oid import NameOID

    key = private_key("P-256")
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "agent.example.com")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()))
    keys = signing.load_keys(cert.public_bytes(serialization.Encoding.PEM).decode(), "cert.pem")
    assert signing.verify(signed(CARD, request_for(tmp_path, "P-256")), keys)[0].valid


@pytest.mark.parametrize(("content", "message"), [
    (lambda: private_key("P-256").private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"secret")), "the private key is encrypted: decrypt it first"),
    (lambda: public_pem(private_key("P-256")), "no private key: signing needs exactly one private key"),
    (lambda: b"not a key at all", "no PEM key or certificate and no JWK in the file"),
    (lambda: b'{"kty": "oct", "k": "c2VjcmV0"}', 'a "oct" key cannot sign cards'),
    (lambda: b'{"keys": []}', "a JWK Set needs a non-empty 'keys' array"),
    (lambda: b"{not json", "not valid JSON"),
    (lambda: b"\xff\xfe", "not a PEM or JWK file"),
])
def test_unusable_key_files_are_refused_in_one_line(tmp_path: Path, content: Callable[[], bytes], message: str) -> None:
    path = write(tmp_path / "key", content())
    with pytest.raises(signing.SigningError) as raised:
        signing.signing_request(path, "k")
    assert message in str(raised.value) and "\n" not in str(raised.value)
    assert str(raised.value).startswith(path)


def test_a_key_without_kid_needs_one_and_jku_must_be_https(tmp_path: Path) -> None:
    key_file = write(tmp_path / "k.pem", private_pem(private_key("P-256")))
    with pytest.raises(signing.SigningError, match="name it with --kid"):
        signing.signing_request(key_file)
    with pytest.raises(signing.SigningError, match="a jku must be an https URL"):
        signing.signing_request(key_file, "k", jku="http://keys.example.com/jwks.json")
    assert signing.signing_request(key_file, "k", jku="http://127.0.0.1:8080/jwks.json").jku


def test_missing_libraries_give_the_install_hint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    key_file = write(tmp_path / "k.pem", private_pem(private_key("P-256")))
    for module in ("rfc8785", "joserfc"):
        with monkeypatch.context() as patch:
            patch.setitem(sys.modules, module, None)  # makes "import module" fail
            with pytest.raises(signing.MissingExtra) as raised:
                signing.signing_request(key_file, "k")
            assert str(raised.value) == f"signing needs {module}, which is not installed: pip install 'a2a-migrate[sign]'"
            with pytest.raises(signing.MissingExtra):
                signing.canonical_payload(CARD)


def test_the_request_pickles_for_worker_processes(tmp_path: Path) -> None:
    options = signing.with_signing(Options(keep_signatures=True), request_for(tmp_path, "P-256"))
    assert isinstance(options, Options) and options.keep_signatures
    assert pickle.loads(pickle.dumps(options)) == options
    assert signing.with_signing(Options(), None) == Options()


# -- what is signed -------------------------------------------------------------------

def test_the_payload_is_the_card_as_written_minus_signatures_only() -> None:
    card = dict(CARD, signatures=[{"protected": "x", "signature": "y"}], signature=None, **{"$signatureNote": "n"})
    card["supportedInterfaces"] = [dict(CARD["supportedInterfaces"][0], tenant="")]
    payload = json.loads(signing.canonical_payload(card))
    assert "signatures" not in payload
    assert payload["signature"] is None and payload["$signatureNote"] == "n"  # only "signatures" is excluded
    assert payload["capabilities"] == {"pushNotifications": False, "streaming": True}  # defaults kept as written
    assert payload["supportedInterfaces"][0]["tenant"] == ""


def test_the_payload_is_rfc_8785_bytes() -> None:
    payload = signing.canonical_payload(CARD)
    assert payload == signing.canonical_json(signing.signing_input(CARD))
    assert payload.startswith(b'{"capabilities":{"pushNotifications":false,"streaming":true},"defaultInputModes"')
    assert "Prévisions — forecasts for any city, 気象 ☀".encode() in payload  # raw UTF-8, no \\u escapes


def mutations() -> list[tuple[str, Callable[[dict[str, Any]], None]]]:
    def set_(path: list[Any], value: Any) -> Callable[[dict[str, Any]], None]:
        def apply(card: dict[str, Any]) -> None:
            target = card
            for token in path[:-1]:
                target = target[token]
            target[path[-1]] = value
        return apply

    return [
        ("name", set_(["name"], "Weather agent")),
        ("nested tag", set_(["skills", 0, "tags", 1], "forecasts")),
        ("default flipped", set_(["capabilities", "pushNotifications"], True)),
        ("member added", set_(["iconUrl"], "https://example.com/icon.png")),
        ("default added", set_(["capabilities", "extendedAgentCard"], False)),
        ("member removed", lambda card: card["skills"][0].pop("examples")),
        ("array reordered", lambda card: card["defaultOutputModes"].reverse()),
        ("string became number", set_(["version"], 2.1)),
        ("unicode normalization", set_(["provider", "organization"], "Me\u0301te\u0301o Example")),
        ("whitespace in a value", set_(["description"], CARD["description"] + " ")),
    ]


@pytest.mark.parametrize(("label", "mutate"), mutations(), ids=[label for label, _ in mutations()])
def test_any_change_after_signing_fails(tmp_path: Path, label: str, mutate: Callable[[dict[str, Any]], None]) -> None:
    card = signed(CARD, request_for(tmp_path, "P-256"))
    mutate(card)
    (check,) = signing.verify(card, public_keys("P-256", "k1"))
    assert not check.valid and check.reason == CONTENT_CHANGED
    assert "the card is not what key \"k1\" signed" in check.message


def test_layout_and_member_order_do_not_matter(tmp_path: Path) -> None:
    card = signed(dict(CARD, rating=1, scale=0.5), request_for(tmp_path, "Ed25519"))
    texts = [
        json.dumps(card),
        json.dumps(card, indent="\t", ensure_ascii=True),  # \uXXXX escapes
        json.dumps(dict(reversed(list(card.items()))), separators=(",", ":"), ensure_ascii=False),
        json.dumps(card, indent=4).replace('"rating": 1', '"rating": 1.0').replace('"scale": 0.5', '"scale": 5e-1'),
        "\n\n  " + json.dumps(card, indent=1).replace("\n", "\r\n") + "  \n",
    ]
    for text in texts:
        assert signing.verify(json.loads(text), public_keys("Ed25519"))[0].valid, text


def test_yaml_and_json_of_one_card_sign_alike(tmp_path: Path) -> None:
    from a2a_migrate import io

    request = request_for(tmp_path, "Ed25519")  # deterministic signatures
    yaml_text = "# a comment\nname: Weather Agent\nversion: '2.1.0'\ncapabilities: {streaming: true}\n"
    document = io.parse(yaml_text, "card.yaml")
    assert signing.sign(document.data, request) == signing.sign(
        {"name": "Weather Agent", "version": "2.1.0", "capabilities": {"streaming": True}}, request)


# -- RFC 8785 --------------------------------------------------------------------------

def test_rfc8785_section_3_2_2_example() -> None:
    text = r'''{
      "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
      "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
      "literals": [null, true, false]
    }'''
    expected = ('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],'
                '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}')
    assert signing.canonical_json(json.loads(text)) == expected.encode()
    assert signing.canonical_json(json.loads(text)).hex().startswith("7b226c69746572616c73223a5b6e756c6c2c")


def test_rfc8785_section_3_2_3_sorts_by_utf16_code_units() -> None:
    text = r'''{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
                "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control",
                "\u00f6": "Latin Small Letter O With Diaeresis"}'''
    ordered = list(json.loads(signing.canonical_json(json.loads(text))).values())
    assert ordered == ["Carriage Return", "One", "Control", "Latin Small Letter O With Diaeresis", "Euro Sign",
                       "Emoji: Grinning Face", "Hebrew Letter Dalet With Dagesh"]


#: RFC 8785 appendix B: IEEE 754 doubles (hex) and their canonical text.
NUMBERS = [
    ("0000000000000000", "0"), ("8000000000000000", "0"), ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"), ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"), ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"), ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"), ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"), ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"), ("444b1ae4d6e2ef50", "1e+21"),
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"), ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"), ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"), ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"), ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
]


@pytest.mark.parametrize(("ieee", "text"), NUMBERS)
def test_rfc8785_appendix_b_numbers(ieee: str, text: str) -> None:
    value = struct.unpack(">d", bytes.fromhex(ieee))[0]
    assert signing.canonical_json({"n": value}) == b'{"n":' + text.encode() + b"}"


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 2**53 + 1])
def test_values_without_a_canonical_form_cannot_be_signed(tmp_path: Path, value: Any) -> None:
    with pytest.raises(signing.SigningError, match="no RFC 8785 canonical form"):
        signing.sign(dict(CARD, count=value), request_for(tmp_path, "P-256"))


def test_rfc8785_agrees_with_an_independent_implementation() -> None:
    """The a2a-sdk (1.2 and later) ships its own RFC 8785 serializer: same bytes on random JSON."""
    jcs = pytest.importorskip("a2a.utils._jcs")
    from hypothesis import given, settings
    from hypothesis import strategies as st

    scalars = st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text() | st.floats(
        allow_nan=False, allow_infinity=False)
    values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                          max_leaves=20)

    @settings(max_examples=300, deadline=None)
    @given(values)
    def agree(value: Any) -> None:
        assert signing.canonical_json(value) == jcs.canonicalize(value).encode()

    agree()


# -- verification verdicts ------------------------------------------------------------------

def jws_with(header: dict[str, Any], signature: bytes = b"sig") -> dict[str, str]:
    return {"protected": b64(json.dumps(header).encode()), "signature": b64(signature)}


@pytest.mark.parametrize(("item", "words"), [
    ({"protected": "EIP-191", "signature": "0x99e3", "signer": "0x4d64"}, "an EIP-191 signature"),
    ({"algorithm": "ES256", "keyId": "k", "jws": "eyJ..c2ln"}, "{algorithm, keyId, jws} kind"),
    ("0x99e39a325be75b2c", "a hex string"),
    ("eyJhbGciOiJFUzI1NiJ9..c2ln", "a string, not an object"),
    ({"protected": "%%%", "signature": "c2ln"}, "protected header is not base64url-encoded JSON"),
    ({"protected": b64(b"[1, 2]"), "signature": "c2ln"}, "protected header is not base64url-encoded JSON"),
    ({"protected": b64(b'{"alg": "ES256"}')}, "without the string members protected and signature"),
    (42, "a int, not an object"),
])
def test_signatures_that_are_not_jws_are_named(item: Any, words: str) -> None:
    (check,) = signing.verify(dict(CARD, signatures=[item]), public_keys("P-256"))
    assert (check.valid, check.reason) == (False, NOT_A_JWS)
    assert words in check.message


def test_signatures_must_be_an_array() -> None:
    (check,) = signing.verify(dict(CARD, signatures={"protected": "x"}), public_keys("P-256"))
    assert (check.pointer, check.reason) == ("/signatures", NOT_A_JWS)
    assert signing.verify(CARD, public_keys("P-256")) == []


def test_shared_secret_and_unknown_algorithms_are_unsupported() -> None:
    import jwt

    payload = signing.canonical_payload(CARD)
    hs256 = jwt.api_jws.encode(payload, "a shared secret of 32 bytes!!!!!", "HS256", is_payload_detached=True)
    protected, _, signature = hs256.split(".")
    items = [{"protected": protected, "signature": signature}, jws_with({"alg": "none", "kid": "k"}),
             jws_with({"alg": "ES999", "kid": "k"}), jws_with({"kid": "k"}),
             jws_with({"alg": "ES256", "kid": "k1", "crit": ["exp"], "exp": 1}),
             jws_with({"alg": "ES256", "kid": "k1", "b64": False})]
    checks = signing.verify(dict(CARD, signatures=items), public_keys("P-256", "k1"))
    assert [check.reason for check in checks] == [UNSUPPORTED] * 6
    assert "HS256 is a shared-secret MAC" in checks[0].message
    assert 'alg "none" is not supported' in checks[1].message
    assert "no alg" in checks[3].message and "critical" in checks[4].message and "b64" in checks[5].message


def test_wrong_keys_are_told_apart_from_changed_content(tmp_path: Path) -> None:
    card = signed(CARD, request_for(tmp_path, "P-256", kid="k1"))
    other = private_key("P-384")
    other_keys = [signing.Key(key.jwk, "k9", "other.json") for key in signing.load_keys(public_pem(other).decode(), "x")]
    (by_kid,) = signing.verify(card, other_keys)
    assert by_kid.reason == WRONG_KEY and by_kid.message == "no key given has kid \"k1\" (given: \"k9\")"
    (by_type,) = signing.verify(card, public_keys("RSA"))
    assert by_type.reason == WRONG_KEY and "ES256 needs a EC key, the keys for it are RSA" in by_type.message
    stranger = ec.generate_private_key(ec.SECP256R1())
    (same_kid,) = signing.verify(card, [signing.Key(k.jwk, "k1", "x") for k in
                                        signing.load_keys(public_pem(stranger).decode(), "x")])
    assert same_kid.reason == CONTENT_CHANGED  # a key with its kid: the content is blamed
    assert signing.verify(card, [])[0].message == "no key given has kid \"k1\""


def test_a_jwks_picks_the_key_by_kid_and_one_good_signature_verifies_the_card(tmp_path: Path) -> None:
    from joserfc.jwk import ECKey, OKPKey

    card = signed(signed(CARD, request_for(tmp_path, "P-384", kid="gone")), request_for(tmp_path, "Ed25519", kid="ed"))
    jwks = {"keys": [dict(ECKey.import_key(public_pem(private_key("P-256"))).as_dict(), kid="ec"),
                     dict(OKPKey.import_key(public_pem(private_key("Ed25519"))).as_dict(), kid="ed"),
                     {"kty": "oct", "k": "c2VjcmV0", "kid": "mac"}]}  # an oct key in a set is skipped
    checks = signing.verify(card, signing.load_keys(json.dumps(jwks), "keys.json"))
    assert [(c.kid, c.valid, c.reason) for c in checks] == [("gone", False, WRONG_KEY), ("ed", True, "")]
    assert checks[1].message == "verified (EdDSA, key \"ed\" from keys.json)"


def test_a_jwk_alg_restricts_what_the_key_checks(tmp_path: Path) -> None:
    card = signed(CARD, request_for(tmp_path, "RSA", alg="PS256"))
    (key,) = public_keys("RSA", "k1")
    assert signing.verify(card, [key])[0].valid
    (check,) = signing.verify(card, [signing.Key(key.jwk, "k1", "x", alg="RS256")])
    assert check.reason == WRONG_KEY


def test_same_kid_replaces_and_replace_empties(tmp_path: Path) -> None:
    card = signed(CARD, request_for(tmp_path, "P-256", kid="a"))
    pointer, op = signing.add_signature(card, signing.sign(card, request_for(tmp_path, "P-384", kid="b")))
    assert (pointer, op["op"], op["path"]) == ("/signatures/1", "add", "/signatures/-")
    pointer, op = signing.add_signature(card, signing.sign(card, request_for(tmp_path, "P-256", kid="a")))
    assert (pointer, op["op"], len(card["signatures"])) == ("/signatures/0", "replace", 2)
    pointer, op = signing.add_signature(card, signing.sign(card, request_for(tmp_path, "P-256", kid="c")), replace=True)
    assert (pointer, len(card["signatures"])) == ("/signatures/0", 1)
    with pytest.raises(signing.SigningError, match="'signatures' is not an array"):
        signing.add_signature(dict(CARD, signatures="x"), card["signatures"][0])


# -- interop: other JOSE code, same canonical bytes ----------------------------------

INTEROP_ALGS = ["ES256", "ES512", "RS256", "PS256", "EdDSA"]


def attached(card: dict[str, Any]) -> str:
    """The compact JWS of the first signature with its detached payload (the canonical card) put back."""
    item = card["signatures"][0]
    return f"{item['protected']}.{b64(signing.canonical_payload(card))}.{item['signature']}"


@pytest.mark.parametrize("alg", INTEROP_ALGS)
def test_jwcrypto_verifies_the_tools_signature(tmp_path: Path, alg: str) -> None:
    from jwcrypto import jwk, jws

    card = signed(CARD, request_for(tmp_path, KEY_OF_ALG[alg], alg=alg))
    token = jws.JWS()
    token.deserialize(attached(card))
    token.verify(jwk.JWK.from_pem(public_pem(private_key(KEY_OF_ALG[alg]))), alg=alg)  # raises if invalid
    assert token.payload == signing.canonical_payload(card)


@pytest.mark.parametrize("alg", INTEROP_ALGS)
def test_pyjwt_verifies_the_tools_signature(tmp_path: Path, alg: str) -> None:
    import jwt

    card = signed(CARD, request_for(tmp_path, KEY_OF_ALG[alg], alg=alg))
    public = serialization.load_pem_public_key(public_pem(private_key(KEY_OF_ALG[alg])))
    # PyJWT takes detached_payload only with b64: false, so the payload is put back (as the a2a-sdk does)
    decoded = jwt.api_jws.decode_complete(attached(card), public, algorithms=[alg])
    assert decoded["header"] == {"alg": alg, "typ": "JOSE", "kid": "k1"}
    assert decoded["payload"] == signing.canonical_payload(card)


@pytest.mark.parametrize("alg", ["ES256", "ES384", "RS256", "PS256", "EdDSA", "Ed448"])
def test_plain_cryptography_verifies_the_tools_signature(tmp_path: Path, alg: str) -> None:
    """RFC 7515 by hand: the signing input is ASCII(protected "." BASE64URL(payload))."""
    key = private_key(KEY_OF_ALG[alg])
    card = signed(CARD, request_for(tmp_path, KEY_OF_ALG[alg], alg=alg))
    item = card["signatures"][0]
    signing_input = f"{item['protected']}.{b64(signing.canonical_payload(card))}".encode()
    raw = unb64(item["signature"])
    public = key.public_key()
    if alg.startswith("ES"):
        half = len(raw) // 2  # JWS ECDSA signatures are r || s, not DER
        der = utils.encode_dss_signature(int.from_bytes(raw[:half], "big"), int.from_bytes(raw[half:], "big"))
        public.verify(der, signing_input, ec.ECDSA({"ES256": hashes.SHA256(), "ES384": hashes.SHA384()}[alg]))
    elif alg == "RS256":
        public.verify(raw, signing_input, padding.PKCS1v15(), hashes.SHA256())
    elif alg == "PS256":
        public.verify(raw, signing_input, padding.PSS(padding.MGF1(hashes.SHA256()), hashes.SHA256().digest_size),
                      hashes.SHA256())
    else:
        public.verify(raw, signing_input)


@pytest.mark.parametrize("alg", INTEROP_ALGS)
def test_the_tool_verifies_a_jwcrypto_signature(alg: str) -> None:
    from jwcrypto import jwk, jws

    key = jwk.JWK.from_pem(private_pem(private_key(KEY_OF_ALG[alg])))
    token = jws.JWS(signing.canonical_payload(CARD))
    token.add_signature(key, alg, protected=json.dumps({"alg": alg, "kid": "jwcrypto-key", "typ": "JOSE"}))
    protected, _, signature = token.serialize(compact=True).split(".")
    card = dict(CARD, signatures=[{"protected": protected, "signature": signature}])
    (check,) = signing.verify(card, public_keys(KEY_OF_ALG[alg], "jwcrypto-key"))
    assert check.valid, check.message


@pytest.mark.parametrize("alg", INTEROP_ALGS)
def test_the_tool_verifies_a_pyjwt_signature(alg: str) -> None:
    import jwt

    key, keys = private_key(KEY_OF_ALG[alg]), public_keys(KEY_OF_ALG[alg], "pyjwt-key")
    token = jwt.api_jws.encode(signing.canonical_payload(CARD), key, alg, headers={"kid": "pyjwt-key", "typ": "JOSE"})
    protected, _, signature = token.split(".")  # the payload is detached by leaving it out, as the a2a-sdk does
    (check,) = signing.verify(dict(CARD, signatures=[{"protected": protected, "signature": signature}]), keys)
    assert check.valid, check.message
    # PyJWT's own "detached" mode is RFC 7797 (b64: false): another signing input than spec 8.4.2's
    token = jwt.api_jws.encode(signing.canonical_payload(CARD), key, alg, headers={"kid": "pyjwt-key"},
                               is_payload_detached=True)
    protected, _, signature = token.split(".")
    (check,) = signing.verify(dict(CARD, signatures=[{"protected": protected, "signature": signature}]), keys)
    assert check.reason == UNSUPPORTED


# -- interop: the official a2a-sdk (it canonicalizes the protobuf form) ---------------------

def sdk_verifies(card: dict[str, Any], kind: str = "P-256", alg: str = "ES256") -> bool:
    from google.protobuf.json_format import ParseDict

    types = pytest.importorskip("a2a.types")
    sdk = pytest.importorskip("a2a.utils.signing")
    verifier = sdk.create_signature_verifier(lambda kid, jku: public_pem(private_key(kind)), [alg])
    try:
        verifier(ParseDict(card, types.AgentCard(), ignore_unknown_fields=True))
    except sdk.SignatureVerificationError:
        return False
    return True


def sdk_signed(card: dict[str, Any], kind: str = "P-256", alg: str = "ES256") -> dict[str, Any]:
    from google.protobuf.json_format import MessageToDict, ParseDict

    types = pytest.importorskip("a2a.types")
    sdk = pytest.importorskip("a2a.utils.signing")
    signer = sdk.create_agent_card_signer(private_pem(private_key(kind)), {"alg": alg, "kid": "sdk", "typ": "JOSE"})
    signatures = MessageToDict(signer(ParseDict(card, types.AgentCard())))["signatures"]
    return dict(copy.deepcopy(card), signatures=signatures)


def test_the_a2a_sdk_accepts_the_tools_signature_on_a_card_without_empty_values(tmp_path: Path) -> None:
    card = signed(CARD, request_for(tmp_path, "P-256"))
    assert signing.interop_warnings(card) == []
    assert sdk_verifies(card)
    card["name"] = "Changed"
    assert not sdk_verifies(card)


def test_the_tool_accepts_the_a2a_sdks_signature_on_a_card_without_empty_values() -> None:
    (check,) = signing.verify(sdk_signed(CARD), public_keys("P-256", "sdk"))
    assert check.valid, check.message


def test_the_a2a_sdk_and_the_spec_disagree_on_empty_values(tmp_path: Path) -> None:
    """An API-key requirement has no scopes: ``{"apiKey": {}}``, which the SDK drops before signing."""
    card = dict(CARD, securitySchemes={"apiKey": {"apiKeySecurityScheme": {"location": "header", "name": "X-Key"}}},
                securityRequirements=[{"schemes": {"apiKey": {}}}])
    ours = signed(card, request_for(tmp_path, "P-256"))
    assert not sdk_verifies(ours)
    (warning,) = signing.interop_warnings(ours)
    assert "(/securityRequirements/0/schemes/apiKey)" in warning and "a2a-sdk" in warning
    (check,) = signing.verify(sdk_signed(card), public_keys("P-256", "sdk"))
    assert (check.valid, check.reason) == (False, OTHER_FORM)
    assert "the official a2a-sdk's form (empty values dropped)" in check.message


def test_the_a2a_sdk_does_not_see_members_1_0_does_not_define(tmp_path: Path) -> None:
    card = dict(CARD, **{"x-vendor": {"tier": "gold"}})
    ours = signed(card, request_for(tmp_path, "P-256"))
    (warning,) = signing.interop_warnings(ours)
    assert "members 1.0 does not define (/x-vendor)" in warning
    assert not sdk_verifies(ours)


def test_the_old_sdk_form_escapes_non_ascii_and_is_named(tmp_path: Path) -> None:
    """a2a-sdk 1.1 and earlier: json.dumps(sort_keys=True, separators=(',', ':')), ASCII escapes."""
    old_form = json.dumps(signing.signing_input(CARD), sort_keys=True, separators=(",", ":")).encode()
    assert old_form != signing.canonical_payload(CARD)
    assert b"Pr\\u00e9visions" in old_form and "Prévisions".encode() in signing.canonical_payload(CARD)
    from jwcrypto import jwk, jws

    token = jws.JWS(old_form)
    token.add_signature(jwk.JWK.from_pem(private_pem(private_key("P-256"))), "ES256",
                        protected=json.dumps({"alg": "ES256", "kid": "old", "typ": "JOSE"}))
    protected, _, signature = token.serialize(compact=True).split(".")
    (check,) = signing.verify(dict(CARD, signatures=[{"protected": protected, "signature": signature}]),
                              public_keys("P-256", "old"))
    assert check.reason == OTHER_FORM and "a2a-sdk 1.1 and earlier" in check.message


def test_interop_warnings_name_default_values() -> None:
    card = dict(CARD, capabilities={"streaming": False, "extensions": [
        {"uri": "https://ext.example.com", "required": False, "params": {"depth": 1, "flag": False}}]})
    card["supportedInterfaces"] = [dict(CARD["supportedInterfaces"][0], tenant="")]
    (warning,) = signing.interop_warnings(card)
    assert "(/supportedInterfaces/0/tenant, /capabilities/extensions/0/required)" in warning
    assert "streaming" not in warning and "flag" not in warning  # optional fields and free-form params are kept


# -- migration: wild signatures are reported, not verified -------------------------------

@pytest.mark.parametrize(("member", "value", "words"), [
    ("signatures", [{"protected": "EIP-191", "signature": "0x99", "signer": "0x4d"}], "not a JWS"),
    ("signatures", [{"algorithm": "ES256", "keyId": "wild-1", "jws": "eyJ..c2ln"}], "not a JWS"),
    ("signatures", ["0x99e39a325be75b2c559ece3247eb40033faef1"], "not a JWS"),
    ("signature", "0x99e39a325be75b2c559ece3247eb40033faef1", "not a JWS"),
    ("signatures", [jws_with({"alg": "ES256", "kid": "real-1"})], '"real-1"'),
])
def test_upgrade_drops_wild_signatures_with_a_lossy_note(member: str, value: Any, words: str) -> None:
    result = upgrade(base_card(**{member: value}))
    assert member not in result.card
    (note,) = [note for note in result.notes if note.transform == "signatures"]
    assert note.severity == "lossy" and words in note.message


# -- jku: fetched only on request, within limits, from this machine in tests ----------------

def public_jwks(kind: str, kid: str) -> dict[str, Any]:
    (key,) = public_keys(kind)
    return {"keys": [{"kty": "oct", "k": "c2VjcmV0", "kid": "mac"}, dict(key.jwk.as_dict(), kid=kid)]}


def test_a_jku_is_fetched_once_and_its_keys_verify(tmp_path: Path, server: JwksServer) -> None:
    url = server.json("/jwks.json", public_jwks("P-256", "k1"))
    card = signed(CARD, request_for(tmp_path, "P-256", jku=url))
    card["signatures"].append(dict(card["signatures"][0]))
    fetch = signing.key_fetcher()
    checks = signing.verify(card, [], fetch)
    assert [check.valid for check in checks] == [True, True]
    assert checks[0].message == f"verified (ES256, key \"k1\" from jku {url})"
    assert server.hits["/jwks.json"] == 1
    (unfetched,) = signing.verify(dict(card, signatures=card["signatures"][:1]), [])
    assert unfetched.reason == WRONG_KEY and f"its jku is {url} (--fetch-jku fetches it)" in unfetched.message


def test_jku_time_limits_cover_the_whole_fetch(server: JwksServer) -> None:
    server.routes["/slow"] = slow(10, server.stop)
    server.routes["/drip"] = drip(server.stop)
    for path in ("/slow", "/drip"):
        started = time.monotonic()
        with pytest.raises(signing.SigningError, match=r"^http://127\.0\.0\.1:\d+/(slow|drip): no complete answer within 0.5 s \(--jku-timeout\)$"):
            signing.fetch_jwks(server.url(path), timeout=0.5)
        assert time.monotonic() - started < 2.0, path


def test_jku_size_limits_hold_with_and_without_a_content_length(server: JwksServer) -> None:
    server.routes["/declared"] = sized(200_000, declare=True)
    server.routes["/streamed"] = sized(200_000, declare=False)
    with pytest.raises(signing.SigningError, match="sends 200000 bytes, more than the limit of 65536"):
        signing.fetch_jwks(server.url("/declared"))
    with pytest.raises(signing.SigningError, match="sends more than the limit of 1000 bytes"):
        signing.fetch_jwks(server.url("/streamed"), max_bytes=1000)


def test_jku_answers_that_are_no_jwk_set_are_refused(server: JwksServer) -> None:
    target = server.json("/jwks.json", public_jwks("P-256", "k1"))
    server.routes["/moved"] = status(302, target)
    server.routes["/text"] = lambda request: (request.send_response(200), request.end_headers(),
                                              request.wfile.write(b"hello"))  # type: ignore[func-returns-value]
    server.json("/object", {"key": 1})
    cases = {"/moved": "redirects (HTTP 302)", "/missing": "answered HTTP 404", "/text": "did not answer with JSON",
             "/object": "did not answer with a JWK Set"}
    for path, words in cases.items():
        with pytest.raises(signing.SigningError, match=re.escape(words)):
            signing.fetch_jwks(server.url(path))
    assert server.hits["/jwks.json"] == 0  # the redirect was not followed


def test_a_jku_off_this_machine_must_be_https_and_is_refused_without_connecting() -> None:
    for url in ("http://keys.example.com/jwks.json", "ftp://keys.example.com/jwks", "file:///etc/passwd", "jwks.json"):
        with pytest.raises(signing.SigningError, match="a jku must be an https URL"):
            signing.fetch_jwks(url)



def test_a_card_without_a_canonical_form_is_unsupported_not_changed() -> None:
    keys = signing.load_keys(public_pem(private_key("Ed25519")).decode(), "Ed25519.pub.pem")
    card = {"name": "A", "big": 123456789012345678901234567890,
            "signatures": [{"protected": "eyJhbGciOiJFZERTQSJ9", "signature": "c2ln"}]}
    (check,) = signing.verify(card, keys)
    assert not check.valid and check.reason == UNSUPPORTED and "canonical form" in check.message

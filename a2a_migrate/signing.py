"""Sign Agent Cards and verify their signatures (spec v1.0 section 8.4).

**What is signed.** The card exactly as given, minus its ``signatures``
member, in the RFC 8785 (JCS) canonical form: members sorted by UTF-16 code
units, numbers as ECMAScript prints them, strings as literal UTF-8 with only
the mandatory escapes, no whitespace. Section 8.4.1's presence rules ("omit
unset optional fields, keep REQUIRED ones even at their default") describe how
a producer serializes a card; for a card that is already JSON, its members as
written are the fields that are set, so nothing is added or removed: an
explicit ``"streaming": false`` or ``"tenant": ""`` is part of the signed
content, and a verifier that canonicalizes the received JSON gets the same
bytes. Verifiers that first drop empty or default values (the official
``a2a-sdk``) see other content; :func:`interop_warnings` names those members.
Signing "in the SDK form" (``signed_form="sdk"``) signs what that verifier
canonicalizes instead (:mod:`a2a_migrate.sdk_form`), and leaves out the
verifiers that follow the spec whenever the two forms differ.

**The signature** is a JWS with a detached payload (section 8.4.2): the
protected header holds ``alg``, ``kid``, ``typ: "JOSE"`` and, when given,
``jku``; the signing input is ``BASE64URL(header) "." BASE64URL(canonical
card)``; the card gets ``{"protected": ..., "signature": ...}``. Only public-key
algorithms are offered: a shared-secret MAC (``HS256``) would let every
verifier forge the card.

The libraries (``rfc8785``, ``joserfc``, ``cryptography``: the ``sign`` extra)
are imported only here and only when used; without them the error says which
``pip install`` brings them.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from a2a_migrate.context import Options
from a2a_migrate.io import to_plain
from a2a_migrate.pointer import join
from a2a_migrate.sdk_form import NoSdkForm, clean_empty, matches_default_false, sdk_form, some_pointers
from a2a_migrate.signing_choices import ALGORITHMS, JKU_MAX_BYTES, JKU_TIMEOUT, SDK_FORM, SIGNED_FORMS, SPEC_FORM
from a2a_migrate.transforms.signatures import protected_header
from a2a_migrate.versions import HYBRID, V1_0, detect_version

INSTALL_HINT = "pip install 'a2a-migrate[sign]'"

#: The algorithm a key signs with when none is asked for.
_DEFAULT_ALG = {"P-256": "ES256", "P-384": "ES384", "P-521": "ES512", "RSA": "RS256", "Ed25519": "EdDSA", "Ed448": "EdDSA"}

#: Sizes joserfc checks (its defaults would refuse cards over about 96 KiB).
_MAX_HEADER, _MAX_PAYLOAD, _MAX_SIGNATURE = 8192, 16 * 1024 * 1024, 2048


class SigningError(Exception):
    """A key, card or signature that cannot be used; the message is for people, one line."""


class MissingExtra(SigningError):
    """The ``sign`` extra is not installed."""


def _libraries() -> tuple[Any, Any, Any]:
    """``(rfc8785, joserfc.jws, joserfc.jwk)``, or :class:`MissingExtra`."""
    try:
        import cryptography  # noqa: F401  (keys are read with it)
        import rfc8785
        from joserfc import jwk, jws
    except ImportError as error:
        missing = (error.name or "a package").split(".")[0]
        raise MissingExtra(f"signing needs {missing}, which is not installed: {INSTALL_HINT}") from None
    return rfc8785, jws, jwk


# -- the canonical form ---------------------------------------------------------

def canonical_json(value: Any) -> bytes:
    """The RFC 8785 canonical form of a JSON value, as UTF-8 bytes."""
    rfc8785, _, _ = _libraries()
    try:
        return bytes(rfc8785.dumps(value))
    except (TypeError, ValueError, RecursionError) as error:  # rfc8785.CanonicalizationError is a ValueError
        raise SigningError(f"the card has no RFC 8785 canonical form: {error}") from None


def signing_input(card: Mapping[str, Any]) -> dict[str, Any]:
    """What a signature covers: the card as a plain JSON value minus ``signatures``.

    Only ``signatures`` is left out (spec section 8.4.1 rule 3); every other
    member is kept as written, default values and vendor members included.
    """
    if not isinstance(card, Mapping):
        raise SigningError(f"a card is a JSON object, not {type(card).__name__}")
    return {key: value for key, value in to_plain(card).items() if key != "signatures"}


def canonical_payload(card: Mapping[str, Any]) -> bytes:
    """The bytes a signature of ``card`` signs: RFC 8785 of :func:`signing_input`."""
    return canonical_json(signing_input(card))


def sdk_payload(card: Mapping[str, Any]) -> bytes:
    """The bytes the official a2a-sdk's verifier checks for ``card``: RFC 8785 of its SDK form.

    A :class:`SigningError` when the card has no SDK form (see :mod:`a2a_migrate.sdk_form`).
    """
    try:
        return canonical_json(sdk_form(signing_input(card)))
    except NoSdkForm as error:
        raise SigningError(f"no a2a-sdk form: {error}") from None


def payload(card: Mapping[str, Any], signed_form: str = SPEC_FORM) -> bytes:
    """What a signature in ``signed_form`` covers: :func:`canonical_payload` or :func:`sdk_payload`."""
    return sdk_payload(card) if signed_form == SDK_FORM else canonical_payload(card)


# -- keys ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Key:
    """A key read from a file: the joserfc key, its ``kid`` and where it came from."""

    jwk: Any
    kid: str | None
    source: str
    alg: str | None = None  # the JWK's own "alg", which restricts what it checks

    @property
    def kind(self) -> str:
        """``EC``, ``RSA`` or ``OKP``."""
        return str(self.jwk.key_type)

    @property
    def curve(self) -> str | None:
        return self.jwk.get("crv") if self.kind in ("EC", "OKP") else None

    def describe(self, kid: str | None = None) -> str:
        """``key 'k1' from FILE``; ``kid`` names a key that has none of its own (a PEM key)."""
        kid = self.kid if self.kid is not None else kid
        return f"{f'key {json.dumps(kid)}' if kid is not None else 'the key'} from {self.source}"

    def fits(self, alg: str) -> bool:
        """Whether this key can make or check an ``alg`` signature."""
        kind, curves = ALGORITHMS[alg]
        return self.kind == kind and (not curves or self.curve in curves) and self.alg in (None, alg)


_PEM_BLOCK = re.compile(r"-----BEGIN ([A-Z0-9 ]+)-----.+?-----END \1-----", re.DOTALL)
_PEM_KINDS = ("PRIVATE KEY", "PUBLIC KEY", "CERTIFICATE")


def read_key_file(path: str) -> str:
    """The text of a key file, or a :class:`SigningError` naming it."""
    try:
        with open(path, encoding="utf-8") as stream:
            return stream.read()
    except OSError as error:
        raise SigningError(f"{path}: cannot read the key: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise SigningError(f"{path}: not a PEM or JWK file (DER keys: convert them with openssl to PEM)") from None


def load_keys(text: str, source: str) -> list[Key]:
    """Every key in a PEM file (keys and certificates) or a JWK / JWK Set file."""
    _libraries()
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except ValueError as error:
            raise SigningError(f"{source}: not valid JSON: {error}") from None
        if not (isinstance(data, dict) and "keys" in data):
            return [_jwk_key(data, source)]
        if not isinstance(data["keys"], list) or not data["keys"]:
            raise SigningError(f"{source}: a JWK Set needs a non-empty 'keys' array")
        return _key_set(data["keys"], source)
    blocks = [match for match in _PEM_BLOCK.finditer(text) if match.group(1).endswith(_PEM_KINDS)]
    if not blocks:  # (EC PARAMETERS blocks, which openssl writes before EC keys, are no keys)
        raise SigningError(f"{source}: no PEM key or certificate and no JWK in the file")
    return [_pem_key(match.group(0), match.group(1), source) for match in blocks]


def _key_set(items: list[Any], source: str) -> list[Key]:
    """The keys of a JWK Set that can check signatures (a set may hold oct or encryption keys too)."""
    keys, problems = [], []
    for item in items:
        if isinstance(item, dict) and item.get("use", "sig") != "sig":
            continue
        try:
            keys.append(_jwk_key(item, source))
        except SigningError as error:
            problems.append(str(error))
    if not keys:
        raise SigningError(problems[0] if problems else f"{source}: the JWK Set has no signature keys")
    return keys


def _jwk_key(data: Any, source: str) -> Key:
    _, _, jwk = _libraries()
    if not isinstance(data, dict) or not isinstance(data.get("kty"), str):
        raise SigningError(f"{source}: a JWK is an object with a 'kty' member")
    if data["kty"] not in ("EC", "RSA", "OKP"):
        raise SigningError(f"{source}: a {json.dumps(data['kty'])} key cannot sign cards: use an EC, RSA or OKP (Ed25519) key")
    try:
        key = jwk.JWKRegistry.import_key(data)
    except Exception as error:  # joserfc and cryptography raise many kinds
        raise SigningError(f"{source}: not a usable JWK: {error}") from None
    kid, alg = data.get("kid"), data.get("alg")
    return Key(key, kid if isinstance(kid, str) else None, source, alg if alg in ALGORITHMS else None)


def _pem_key(pem: str, label: str, source: str) -> Key:
    from cryptography import x509
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization

    raw = pem.encode()
    try:
        if label == "CERTIFICATE":
            public: Any = x509.load_pem_x509_certificate(raw).public_key()
        elif "PRIVATE" in label:
            public = serialization.load_pem_private_key(raw, password=None)
        else:
            public = serialization.load_pem_public_key(raw)
    except TypeError:  # cryptography: "Password was not given but private key is encrypted"
        raise SigningError(f"{source}: the private key is encrypted: decrypt it first "
                           "(openssl pkey -in KEY -out PLAIN)") from None
    except (ValueError, UnsupportedAlgorithm, x509.InvalidVersion) as error:
        raise SigningError(f"{source}: not a usable {label.lower()}: {error}") from None
    return Key(_from_cryptography(public, source), None, source)


def _from_cryptography(key: Any, source: str) -> Any:
    """A joserfc key from a ``cryptography`` key object (private or public)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed448, ed25519, rsa

    _, _, jwk = _libraries()
    kinds = {
        "EC": (ec.EllipticCurvePrivateKey, ec.EllipticCurvePublicKey),
        "RSA": (rsa.RSAPrivateKey, rsa.RSAPublicKey),
        "OKP": (ed25519.Ed25519PrivateKey, ed25519.Ed25519PublicKey, ed448.Ed448PrivateKey, ed448.Ed448PublicKey),
    }
    kind = next((name for name, types in kinds.items() if isinstance(key, types)), None)
    if kind is None:
        raise SigningError(f"{source}: a {type(key).__name__.lstrip('_')} cannot sign cards: "
                           "use an EC (P-256, P-384, P-521), RSA or Ed25519/Ed448 key")
    if hasattr(key, "private_bytes"):
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
    else:
        pem = key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    try:
        return jwk.JWKRegistry.import_key(pem, kind)
    except Exception as error:  # e.g. an EC curve JOSE has no name for
        raise SigningError(f"{source}: the key cannot be used for JOSE: {error}") from None


# -- signing ------------------------------------------------------------------------

@dataclass(frozen=True)
class SigningRequest:
    """Everything needed to sign cards: picklable, so batch workers get it too.

    ``key`` is the key file's text (PEM or JWK): workers parse it once each.
    """

    key: str
    kid: str
    alg: str
    jku: str | None = None
    source: str = ""
    signed_form: str = SPEC_FORM  # what is signed: the card as published, or the a2a-sdk's form

    def describe(self) -> str:
        form = ", a2a-sdk form" if self.signed_form == SDK_FORM else ""
        return f"{self.alg}, key {json.dumps(self.kid)}{form}"


def signing_request(key_file: str, kid: str | None = None, alg: str | None = None,
                    jku: str | None = None, signed_form: str = SPEC_FORM) -> SigningRequest:
    """Read and check a signing key; the ``kid`` defaults to the JWK's own.

    ``signed_form`` is ``"spec"`` (the card as published, spec 8.4.1) or
    ``"sdk"`` (the form the official a2a-sdk's verifier canonicalizes).
    """
    if signed_form not in SIGNED_FORMS:
        raise SigningError(f"signed form {json.dumps(signed_form)} is not one of {', '.join(SIGNED_FORMS)}")
    text = read_key_file(key_file)
    key = _signing_key(text, key_file)
    kid = kid if kid is not None else key.kid
    if not kid:
        raise SigningError(f"{key_file}: the key has no 'kid': name it with --kid (spec 8.4.2: the header must have one)")
    chosen = alg or key.alg or _DEFAULT_ALG.get(key.curve or key.kind)
    if chosen is None or chosen not in ALGORITHMS:
        raise SigningError(f"{key_file}: no JWS algorithm for this key: name one with --alg")
    if not key.fits(chosen):
        need_kind, curves = ALGORITHMS[chosen]
        need = f"{need_kind} key" + (f" on {' or '.join(curves)}" if curves else "")
        have = f"{key.kind} key" + (f" on {key.curve}" if key.curve else "")
        raise SigningError(f"{key_file}: {chosen} needs an {need}, this is an {have}")
    if jku is not None:
        jku_problem = check_jku_url(jku)
        if jku_problem:
            raise SigningError(f"jku {json.dumps(jku)}: {jku_problem}")
    return SigningRequest(text, kid, chosen, jku, key_file, signed_form)


def _signing_key(text: str, source: str) -> Key:
    keys = load_keys(text, source)
    private = [key for key in keys if key.jwk.is_private]
    if len(private) != 1:
        what = "no private key" if not private else f"{len(private)} private keys"
        raise SigningError(f"{source}: {what}: signing needs exactly one private key in the file")
    return private[0]


@functools.lru_cache(maxsize=8)
def _cached_signing_key(text: str, source: str) -> Key:
    return _signing_key(text, source)


def sign(card: Mapping[str, Any], request: SigningRequest) -> dict[str, str]:
    """The signature object ``{"protected", "signature"}`` of ``card``."""
    import warnings

    _, jws, _ = _libraries()
    signed = payload(card, request.signed_form)
    key = _cached_signing_key(request.key, request.source)
    header: dict[str, Any] = {"alg": request.alg, "typ": "JOSE", "kid": request.kid}
    if request.jku is not None:
        header["jku"] = request.jku
    from joserfc.errors import JoseError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # joserfc warns that RFC 9864 deprecates "EdDSA"; the user chose it
            token = jws.serialize_compact(header, signed, key.jwk, algorithms=[request.alg],
                                          registry=_registry(request.alg))
    except (JoseError, ValueError) as error:
        raise SigningError(f"{request.source}: cannot sign with {request.alg}: {error}") from None
    protected, _, signature = token.split(".")
    return {"protected": protected, "signature": signature}


def add_signature(card: Any, signature: dict[str, str], *, replace: bool = False) -> tuple[str, dict[str, Any]]:
    """Put ``signature`` into the card's ``signatures`` (made when absent).

    A signature of the same ``kid`` is replaced (it signed older content); with
    ``replace`` every existing signature goes. Returns the pointer written and
    the RFC 6902 operation that does it.
    """
    existing = card.get("signatures")
    if replace or existing is None:
        card["signatures"] = [signature]
        return "/signatures/0", {"op": "add", "path": "/signatures", "value": [signature]}
    if not isinstance(existing, list):
        raise SigningError("'signatures' is not an array: fix it, or sign with --replace")
    kid = (protected_header(signature) or {}).get("kid")
    for index, old in enumerate(existing):
        if (protected_header(old) or {}).get("kid") == kid:
            existing[index] = signature
            pointer = join("/signatures", index)
            return pointer, {"op": "replace", "path": pointer, "value": signature}
    existing.append(signature)
    return join("/signatures", len(existing) - 1), {"op": "add", "path": "/signatures/-", "value": signature}


def interop_warnings(card: Mapping[str, Any], signed_form: str = SPEC_FORM) -> list[str]:
    """Which verifiers will not accept a signature of ``card`` in ``signed_form``, and why.

    Nothing when the card's two forms are the same bytes: every verifier then
    computes them. Otherwise a spec-form signature leaves out verifiers built on
    the official ``a2a-sdk`` (they drop empty values, defaults of fields without
    presence and members 1.0 does not define before canonicalizing), and an
    SDK-form signature leaves out the verifiers that follow the spec; a card
    with no SDK form raises :class:`SigningError` for the latter.
    """
    plain = signing_input(card)
    if signed_form == SDK_FORM:
        return _sdk_form_warnings(card, plain)
    try:
        differs = canonical_payload(card) != sdk_payload(card)
    except SigningError:
        differs = None  # no SDK form modelled (a card with 0.3 members): say what the SDK drops all the same
    if differs is False:
        return []
    empty, unknown = _sdk_drops(plain)
    found = []
    if empty:
        found.append("it has empty or default values (" + some_pointers(empty) + "), which verifiers built on the "
                     "official a2a-sdk drop before canonicalizing: they will not accept this signature")
    if unknown:
        found.append("it has members 1.0 does not define (" + some_pointers(unknown) + "), which verifiers that "
                     "canonicalize the protobuf form (the official a2a-sdk) do not see: they will not accept "
                     "this signature")
    return found if found or not differs else ["it spells members as the official a2a-sdk does not (proto names, nulls): verifiers built "
                     "on it canonicalize other bytes and will not accept this signature"]


def _sdk_form_warnings(card: Mapping[str, Any], plain: Mapping[str, Any]) -> list[str]:
    """Why verifiers that follow the spec will not accept an SDK-form signature of ``card``."""
    sdk = sdk_payload(card)  # a SigningError for a card with no SDK form, as signing it raises
    try:
        if canonical_payload(card) == sdk:
            return []
    except SigningError as error:  # the card as published has no canonical form (a number beyond doubles)
        return [f"{error}: verifiers that canonicalize the card as published (spec 8.4.1) cannot check "
                "this signature"]
    empty, unknown = _sdk_drops(plain)
    left_out = some_pointers(empty + unknown) if empty or unknown else "proto names and nulls"
    return [f"it signs the official a2a-sdk's form, which leaves out what the card as published has "
            f"({left_out}): verifiers that canonicalize the card as published (spec 8.4.1) will not accept "
            "this signature"]


def _sdk_drops(plain: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """The empty and default values, and the members 1.0 does not define, that the SDK's form leaves out."""
    from a2a_migrate.validation import validate

    empty = list(_default_values(plain, ""))
    unknown: list[str] = []
    if detect_version(plain) in (V1_0, HYBRID):
        unknown = [f.pointer for f in validate(plain, V1_0, lint=False) if f.rule == "unknown-member"]
    return empty, unknown


def _default_values(value: Any, where: str, path: tuple[str, ...] = ()) -> Iterator[str]:
    if isinstance(value, dict):
        items: Iterator[tuple[Any, Any]] = iter(value.items())
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, item in items:
        pointer, at = join(where, key), path + ("*" if isinstance(value, list) else str(key),)
        if item in ("", [], {}) and not isinstance(item, bool) or (item is False and matches_default_false(at)):
            yield pointer
        else:
            yield from _default_values(item, pointer, at)


# -- the options a batch carries -----------------------------------------------------

def with_signing(options: Options, request: SigningRequest | None) -> Options:
    """``options`` carrying ``request`` (unchanged when there is none)."""
    return options if request is None else replace(options, signing=request)


@dataclass
class SignResult:
    """What signing one migrated card did: notes and the patch operation."""

    notes: list[Any] = field(default_factory=list)
    ops: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(note.severity == "error" for note in self.notes)


def sign_migrated(card: Any, options: Options) -> SignResult:
    """Sign a migrated card in place when ``options`` carry a request (the batch's hook)."""
    from a2a_migrate.context import Note

    request = options.signing
    result = SignResult()
    if request is None:
        return result
    try:
        pointer, op = add_signature(card, sign(card, request))
    except SigningError as error:
        result.notes.append(Note("error", "sign", "/signatures", f"cannot sign the card: {error}"))
        return result
    result.ops.append(op)
    result.notes.append(Note("info", "sign", pointer, f"signed ({request.describe()})"))
    result.notes.extend(Note("warning", "sign", pointer, text) for text in interop_warnings(card, request.signed_form))
    return result


# -- verification -------------------------------------------------------------------

#: Why a signature did not verify (stable words scripts can match).
NOT_A_JWS, UNSUPPORTED, WRONG_KEY, CONTENT_CHANGED, OTHER_FORM = (
    "not-a-jws", "unsupported", "wrong-key", "content-changed", "other-form")


@dataclass(frozen=True)
class Check:
    """The verdict on one signature."""

    pointer: str
    valid: bool
    message: str
    reason: str = ""  # one of the words above when not valid
    kid: str | None = None
    alg: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"pointer": self.pointer, "valid": self.valid, "reason": self.reason or None,
                "kid": self.kid, "alg": self.alg, "message": self.message}


#: Fetches the JWK Set at a jku: its keys, or raises SigningError.
KeyFetcher = Callable[[str], list[Key]]


def verify(card: Mapping[str, Any], keys: Sequence[Key], fetch: KeyFetcher | None = None,
           signed_form: str = SPEC_FORM) -> list[Check]:
    """Check every signature of ``card``; an empty list when it has none.

    ``signed_form`` says what a valid signature covers: the card as published
    (``"spec"``, what verifiers that follow spec 8.4 accept) or the official
    a2a-sdk's form (``"sdk"``, what its verifier accepts).
    """
    signatures = card.get("signatures")
    if signatures is None:
        return []
    if not isinstance(signatures, list):
        return [Check("/signatures", False, "'signatures' is not an array of JWS objects", NOT_A_JWS)]
    try:
        expected = payload(card, signed_form)
    except MissingExtra:
        raise
    except SigningError as error:
        # No canonical form (an integer beyond I-JSON, a card with no SDK form): it cannot be checked at all.
        return [Check(join("/signatures", i), False, str(error), UNSUPPORTED) for i in range(len(signatures))]
    return [_check(join("/signatures", index), item, card, (expected, signed_form), keys, fetch)
            for index, item in enumerate(signatures)]


def _check(pointer: str, item: Any, card: Mapping[str, Any], signed: tuple[bytes, str], keys: Sequence[Key],
           fetch: KeyFetcher | None) -> Check:
    header = protected_header(item)
    if header is None or not isinstance(item.get("signature"), str):
        return Check(pointer, False, f"not a JWS: {describe_non_jws(item)}", NOT_A_JWS)
    alg, kid, jku = header.get("alg"), header.get("kid"), header.get("jku")
    kid = kid if isinstance(kid, str) else None
    alg = alg if isinstance(alg, str) else None

    def fail(reason: str, text: str) -> Check:
        return Check(pointer, False, text, reason, kid, alg)

    problem = _unsupported(header)
    if problem:
        return fail(UNSUPPORTED, problem)
    assert alg is not None
    candidates, missing = _candidates(kid, jku, keys, fetch)
    if not candidates:
        return fail(WRONG_KEY, missing)
    fitting = [key for key in candidates if key.fits(alg)]
    if not fitting:
        kinds = sorted({key.kind + (f" {key.curve}" if key.curve else "") for key in candidates})
        return fail(WRONG_KEY, f"{alg} needs a {ALGORITHMS[alg][0]} key, the keys for it are {', '.join(kinds)}")
    token_parts, (expected, signed_form) = (item["protected"], item["signature"]), signed
    in_form = ", a2a-sdk form" if signed_form == SDK_FORM else ""
    for key in fitting:
        try:
            if _verifies(token_parts, expected, key, alg):
                return Check(pointer, True, f"verified ({alg}, {key.describe(kid)}{in_form})", "", kid, alg)
        except SigningError as error:
            return fail(NOT_A_JWS, str(error))
    for form, other in _other_forms(card, signed_form):
        if other != expected and any(_verifies(token_parts, other, key, alg) for key in fitting):
            return fail(OTHER_FORM, _other_form_message(form, signed_form))
    who = f"key {json.dumps(kid)}" if kid is not None else "the key"
    return fail(CONTENT_CHANGED, f"the card is not what {who} signed: it changed after signing, "
                                 f"or another key signed it ({alg}, tried {some_pointers([k.describe() for k in fitting], 2)})")


def describe_non_jws(item: Any) -> str:
    """What a signature that is not a spec JWS object looks like, for messages."""
    if isinstance(item, str):
        if re.fullmatch(r"0x[0-9a-fA-F]+", item):
            return "a hex string (an Ethereum-style signature, checked by recovering an address, not by JOSE)"
        return "a string, not an object with protected and signature"
    if not isinstance(item, Mapping):
        return f"a {type(item).__name__}, not an object with protected and signature"
    protected = item.get("protected")
    if isinstance(protected, str) and protected.upper().startswith("EIP-"):
        return f"an {protected} signature (Ethereum: checked by recovering the signer's address, not by JOSE)"
    if "jws" in item or "keyId" in item or "algorithm" in item:
        return ("an object of the {algorithm, keyId, jws} kind, not the spec's {protected, signature}; "
                "verify it with the tool that made it")
    if not isinstance(protected, str) or not isinstance(item.get("signature"), str):
        return "an object without the string members protected and signature"
    return "its protected header is not base64url-encoded JSON"


def _unsupported(header: Mapping[str, Any]) -> str:
    alg = header.get("alg")
    if not isinstance(alg, str):
        return "the protected header has no alg"
    if alg.startswith("HS"):
        return f"{alg} is a shared-secret MAC: anyone who can check it can forge it, so cards are not signed with it"
    if alg not in ALGORITHMS:
        return f"alg {json.dumps(alg)} is not supported (supported: {', '.join(ALGORITHMS)})"
    crit = header.get("crit")
    if crit is not None:
        return f"the header marks {json.dumps(crit)} critical, which this tool does not implement"
    if header.get("b64") is False:
        return "unencoded payloads (b64: false, RFC 7797) are not supported"
    return ""


def _candidates(kid: str | None, jku: Any, keys: Sequence[Key], fetch: KeyFetcher | None) -> tuple[list[Key], str]:
    """The keys that may have made a signature, or why there are none."""
    def pick(pool: Sequence[Key]) -> list[Key]:
        if kid is None:
            return list(pool)
        return [key for key in pool if key.kid == kid] + [key for key in pool if key.kid is None]

    found = pick(keys)
    note = ""
    if isinstance(jku, str):
        if fetch is None:
            note = f"; its jku is {jku} (--fetch-jku fetches it)"
        else:
            try:
                found += pick(fetch(jku))
            except SigningError as error:
                note = f"; fetching its jku failed: {error}"
    if found:
        return found, ""
    given = sorted({json.dumps(key.kid) for key in keys if key.kid is not None})
    if kid is None:
        return [], "no key was given" + note
    return [], f"no key given has kid {json.dumps(kid)}" + (f" (given: {', '.join(given)})" if given else "") + note


def _verifies(parts: tuple[str, str], payload: bytes, key: Key, alg: str) -> bool:
    import warnings

    _, jws, _ = _libraries()
    from joserfc.errors import BadSignatureError, JoseError

    encoded = base64.urlsafe_b64encode(payload).rstrip(b"=").decode("ascii")
    token = f"{parts[0]}.{encoded}.{parts[1]}"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            jws.deserialize_compact(token, key.jwk, algorithms=[alg], registry=_registry(alg))
    except BadSignatureError:
        return False
    except (JoseError, ValueError, binascii.Error) as error:
        raise SigningError(f"the signature cannot be decoded: {error}") from None
    return True


def _registry(alg: str) -> Any:
    from joserfc.jws import JWSRegistry

    registry = JWSRegistry(algorithms=[alg], strict_check_header=False)
    registry.max_header_length, registry.max_payload_length = _MAX_HEADER, _MAX_PAYLOAD
    registry.max_signature_length = _MAX_SIGNATURE
    return registry


#: How messages name the two forms a signature can cover.
_SPEC_FORM_NAME = "the RFC 8785 form of the card as published (spec 8.4.1)"
_SDK_FORM_NAME = "the official a2a-sdk's form (empty values dropped)"


def _other_form_message(form: str, signed_form: str) -> str:
    if signed_form == SDK_FORM:
        return f"it signs {form}, not the official a2a-sdk's form: the a2a-sdk's verifier rejects it"
    hint = "; checked in the a2a-sdk form (--signed-form sdk) it verifies" if form == _SDK_FORM_NAME else ""
    return f"it signs {form}, not {_SPEC_FORM_NAME}: verifiers that follow the spec reject it{hint}"


def _other_forms(card: Mapping[str, Any], signed_form: str) -> Iterator[tuple[str, bytes]]:
    """Payloads signers sign instead of ``signed_form``'s, to explain a failure.

    The official a2a-sdk signs its own form (1.2 and later in RFC 8785; 1.1
    and earlier with json.dumps, sorted keys and ASCII escapes). For a card
    with no modelled SDK form (0.3 members), its empty values dropped is the
    nearest guess.
    """
    plain = signing_input(card)
    try:
        sdk = sdk_form(plain)
    except NoSdkForm:
        sdk = clean_empty(plain) or {}
    compact = {"sort_keys": True, "separators": (",", ":")}
    forms: list[tuple[str, Callable[[], bytes]]] = [
        (_SDK_FORM_NAME, lambda: canonical_json(sdk)) if signed_form == SPEC_FORM
        else (_SPEC_FORM_NAME, lambda: canonical_json(plain)),
        ("the form of a2a-sdk 1.1 and earlier (empty values dropped, json.dumps with ASCII escapes)",
         lambda: json.dumps(sdk, **compact).encode()),  # type: ignore[arg-type]
        ("json.dumps with sorted keys and ASCII escapes", lambda: json.dumps(plain, **compact).encode()),  # type: ignore[arg-type]
    ]
    for name, make in forms:
        try:
            yield name, make()
        except (SigningError, TypeError, ValueError):
            continue  # a form this card does not have explains nothing


# -- jku ------------------------------------------------------------------------------

def check_jku_url(url: str) -> str:
    """Why ``url`` may not be a jku, or "" (HTTPS; plain HTTP only on this machine)."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return ""
    if parts.scheme == "http" and parts.hostname and _is_loopback(parts.hostname):
        return ""
    return "a jku must be an https URL (RFC 7515 4.1.2; plain http only for localhost)"


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def fetch_jwks(url: str, timeout: float = JKU_TIMEOUT, max_bytes: int = JKU_MAX_BYTES) -> list[Key]:
    """The keys of the JWK Set at ``url``: at most ``max_bytes``, within ``timeout`` seconds.

    Fetched by :func:`a2a_migrate.fetch.fetch` with the jku's own policy: the
    URL checked by :func:`check_jku_url` (so private addresses stay allowed,
    as a key server on this machine or network may be), redirects refused
    (a jku names the set, not a way to it), and the time limit covering the
    whole fetch (connect, headers and body), not each read.
    """
    from a2a_migrate import fetch

    problem = check_jku_url(url)
    if problem:
        raise SigningError(problem)
    limits = fetch.FetchLimits(timeout=timeout, max_bytes=max_bytes, max_redirects=0, allow_http=True,
                               allow_private=True, accept="application/jwk-set+json, application/json",
                               timeout_option="--jku-timeout", size_option="--jku-max-bytes")
    try:
        body = fetch.fetch(url, limits).body
    except fetch.FetchError as error:
        raise SigningError(str(error)) from None
    try:
        data = json.loads(body)
    except ValueError:
        raise SigningError(f"{url} did not answer with JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
        raise SigningError(f"{url} did not answer with a JWK Set (no 'keys' array)")
    return _key_set(data["keys"], f"jku {url}")


def key_fetcher(timeout: float = JKU_TIMEOUT, max_bytes: int = JKU_MAX_BYTES) -> KeyFetcher:
    """A :data:`KeyFetcher` that fetches each jku once."""
    cache: dict[str, list[Key] | SigningError] = {}

    def fetch(url: str) -> list[Key]:
        if url not in cache:
            try:
                cache[url] = fetch_jwks(url, timeout, max_bytes)
            except SigningError as error:
                cache[url] = error
        found = cache[url]
        if isinstance(found, SigningError):
            raise found
        return found

    return fetch

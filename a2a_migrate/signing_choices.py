"""What the signing options accept, apart from :mod:`a2a_migrate.signing`.

The command line offers ``--alg`` choices and ``--jku-*`` defaults while it
parses its options; importing the signing service for that (and through it the
transforms) would slow every command, signing or not.
"""

from __future__ import annotations

from typing import Literal

#: The JWS algorithms offered, with the key type and curves each needs.
ALGORITHMS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ES256": ("EC", ("P-256",)),
    "ES384": ("EC", ("P-384",)),
    "ES512": ("EC", ("P-521",)),
    "RS256": ("RSA", ()),
    "RS384": ("RSA", ()),
    "RS512": ("RSA", ()),
    "PS256": ("RSA", ()),
    "PS384": ("RSA", ()),
    "PS512": ("RSA", ()),
    "EdDSA": ("OKP", ("Ed25519", "Ed448")),
    "Ed25519": ("OKP", ("Ed25519",)),  # RFC 9864's fully specified names
    "Ed448": ("OKP", ("Ed448",)),
}
JKU_TIMEOUT = 5.0  # seconds for the whole fetch of one jku
JKU_MAX_BYTES = 65536  # a JWK Set of a few keys is a few KiB

#: What a signature covers: the card as published, canonicalized (spec 8.4.1),
#: or the form the official a2a-sdk's verifier canonicalizes (a2a_migrate.sdk_form).
SPEC_FORM, SDK_FORM = "spec", "sdk"
SIGNED_FORMS = (SPEC_FORM, SDK_FORM)
SignedForm = Literal["spec", "sdk"]

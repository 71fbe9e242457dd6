"""Signatures: no signature verifies after a migration.

Spec v1.0 section 8.4.1 signs the RFC 8785 canonical form of the card minus
``signatures``; every rename or move a migration makes changes that content
(spec-mapping section 7), and 0.3 pinned no canonical form at all. Passing the
old signatures along would publish signatures that fail, so they are dropped
with a lossy note per signature (naming its ``kid`` when the protected header
says it), unless ``--keep-signatures`` keeps them with a warning. A card the
chain did not otherwise change keeps its signatures.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

from a2a_migrate.context import Context, show
from a2a_migrate.io import to_plain
from a2a_migrate.pointer import join


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True


def protected_header(signature: Any) -> dict[str, Any] | None:
    """The decoded JWS protected header of a signature object, or None if it is not one."""
    protected = signature.get("protected") if isinstance(signature, Mapping) else None
    if not isinstance(protected, str):
        return None
    try:
        decoded = base64.urlsafe_b64decode(protected + "=" * (-len(protected) % 4))
        header = json.loads(decoded)
    except (binascii.Error, ValueError):
        return None
    return header if isinstance(header, dict) else None


def _describe(signature: Any) -> str:
    header = protected_header(signature)
    if header is None:
        return "a signature that is not a JWS"
    kid = header.get("kid")
    return f"the signature of key {show(kid)}" if kid is not None else "a signature with no key id"


def _unsigned(card: Any) -> Any:
    return {key: value for key, value in card.items() if key not in ("signatures", "signature")}


def _handle(card: Any, ctx: Context) -> None:
    if "signatures" not in card and card.get("signature") is None:
        return
    if ctx.original is not None and to_plain(_unsigned(card)) == _unsigned(ctx.original):
        return  # nothing else changed: the signatures still cover the same content
    for member in ("signatures", "signature"):
        if member not in card or (member == "signature" and card[member] is None):
            continue
        value = card[member]
        items = value if isinstance(value, list) else [value]
        if ctx.options.keep_signatures:
            for index, signature in enumerate(items):
                ctx.note(join("", member, index) if isinstance(value, list) else join("", member), "warning",
                         f"{_describe(signature)} kept, but it no longer verifies: re-sign the card")
            continue
        ctx.remove(card, member, at="")
        for index, signature in enumerate(items):
            ctx.note(join("", member, index) if isinstance(value, list) else join("", member), "lossy",
                     f"{_describe(signature)} dropped: the migrated card is different content and would not verify")


def up(card: Any, ctx: Context) -> None:
    """Drop (or keep, on request) every signature."""
    _handle(card, ctx)


def down(card: Any, ctx: Context) -> None:
    """The same holds for a downgrade."""
    _handle(card, ctx)


# -- for ``a2a-migrate transforms signatures`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "spec v1.0 section 8.4.1; spec-mapping section 7"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "name": "Echo",
    "signatures": [
        {
            "protected": "eyJraWQiOiJrZXktMSJ9",
            "signature": "c2ln"
        }
    ]
}

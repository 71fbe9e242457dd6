"""The official a2a-sdk's form of a card: the value its signature verifier canonicalizes.

The spec (v1.0 section 8.4.1) signs the card as published. The official Python
SDK (``a2a.utils.signing``, 1.2 and later) signs and verifies something else:
the card read into its protobuf ``AgentCard`` and written back with
``MessageToDict``, minus ``signatures``, with empty strings, arrays and objects
removed recursively, then RFC 8785. So its form has

* only the members 1.0 defines, under their JSON names
  (:func:`a2a_migrate.validation.proto_json`);
* no ``false`` in the two booleans without presence (they are unset);
* no empty values, even required ones (``{"apiKey": {}}``, ``"tags": []``).

This is a model of that, not a call into the SDK: the SDK is a large optional
dependency, and tests check the model against its own signer and verifier.
Cards with 0.3 members are refused: the SDK's card reader rewrites them (the
legacy ``url``, ``security``, scheme ``type`` ...) before parsing, which is
not modelled, and a guess would sign bytes no verifier computes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from a2a_migrate.pointer import join
from a2a_migrate.versions import V1_0, detect_version

#: 0.3 members the SDK's card reader turns into 1.0 fields before it parses a card.
_REWRITTEN = ("url", "preferredTransport", "protocolVersion", "additionalInterfaces",
              "supportsAuthenticatedExtendedCard", "security")

#: Fields without presence whose default (``false``) the protobuf form omits.
DEFAULT_FALSE = {("capabilities", "extensions", "*", "required"),
                 ("securitySchemes", "*", "oauth2SecurityScheme", "flows", "authorizationCode", "pkceRequired")}


class NoSdkForm(ValueError):
    """The a2a-sdk would not read the card, or reads it in a way this model does not cover."""


def sdk_form(plain: Mapping[str, Any]) -> dict[str, Any]:
    """The a2a-sdk's form of ``plain`` (a plain card without ``signatures``), or :class:`NoSdkForm`."""
    from a2a_migrate.validation import proto_json

    version = detect_version(plain)
    if version != V1_0:
        raise NoSdkForm(f"it is no 1.0 card (its shape is {version}), and the a2a-sdk reads other cards through "
                        "a 0.3 mapping that is not modelled: sign a 1.0 card")
    rewritten = list(_rewritten_members(plain))
    if rewritten:
        raise NoSdkForm(f"the a2a-sdk rewrites its 0.3 members ({some_pointers(rewritten)}) before it verifies, "
                        "which is not modelled: remove them")
    if "skills" in plain and plain["skills"] is None:  # its reader iterates over the skills before it parses
        raise NoSdkForm("the a2a-sdk's card reader fails on a null 'skills': remove the member")
    try:
        proto = proto_json(plain)
    except ValueError as error:
        raise NoSdkForm(f"the a2a-sdk cannot read it: {error}") from None
    return clean_empty(_without_default_false(proto, ())) or {}


def _rewritten_members(plain: Mapping[str, Any]) -> Iterator[str]:
    yield from (join("", name) for name in _REWRITTEN if name in plain)
    skills = plain.get("skills")
    for index, skill in enumerate(skills if isinstance(skills, list) else ()):
        if isinstance(skill, dict) and "security" in skill:
            yield join("/skills", index, "security")
    schemes = plain.get("securitySchemes")
    for name, scheme in (schemes.items() if isinstance(schemes, dict) else ()):
        if isinstance(scheme, dict) and "type" in scheme:
            yield join("/securitySchemes", name, "type")


def _without_default_false(value: Any, path: tuple[str, ...]) -> Any:
    if isinstance(value, dict):
        return {key: _without_default_false(item, path + (key,)) for key, item in value.items()
                if not (item is False and matches_default_false(path + (key,)))}
    if isinstance(value, list):
        return [_without_default_false(item, path + ("*",)) for item in value]
    return value


def matches_default_false(path: tuple[str, ...]) -> bool:
    """Whether ``path`` (member names, ``*`` for any item or map key) is a field whose ``false`` is unset."""
    return any(len(p) == len(path) and all(a in ("*", b) for a, b in zip(p, path)) for p in DEFAULT_FALSE)


def clean_empty(value: Any) -> Any:
    """``value`` without empty strings, arrays, objects and nulls, recursively (``None`` when nothing is left)."""
    if isinstance(value, dict):
        cleaned = {k: c for k, v in value.items() if (c := clean_empty(v)) is not None}
        return cleaned or None
    if isinstance(value, list):
        items = [c for v in value if (c := clean_empty(v)) is not None]
        return items or None
    return None if value == "" else value


def some_pointers(pointers: Sequence[str], shown: int = 4) -> str:
    """The first ``shown`` pointers, comma-separated, and how many more there are."""
    more = f" and {len(pointers) - shown} more" if len(pointers) > shown else ""
    return ", ".join(pointers[:shown]) + more

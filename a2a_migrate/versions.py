"""Protocol version strings and version detection by shape.

The one helper for version strings: every transform that reads or writes a
``protocolVersion`` goes through :func:`major_minor`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

V1_0 = "1.0"
V0_3 = "0.3"
HYBRID = "hybrid"
V0_2 = "0.2"
V0_1 = "0.1"
UNKNOWN = "unknown"

#: Top-level members that only a 0.3 (or older) card carries.
LEGACY_ENDPOINT_MEMBERS = ("url", "preferredTransport", "additionalInterfaces", "protocolVersion")

_VERSION = re.compile(r"^\s*v?(\d+)(?:\.(\d+))?(?:\.\d+)?(?:[-+.][0-9A-Za-z.+-]*)?\s*$")


def major_minor(value: Any) -> str | None:
    """Return ``"Major.Minor"`` for a version string, or None if it is not one.

    Spec v1.0 section 3.6: "Patch version numbers SHOULD NOT be used in ... Agent
    Cards", so ``"0.3.0"`` is ``"0.3"``; ``"1"`` is ``"1.0"``. Numbers (``0.3``)
    are accepted since a YAML card may carry one.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        value = str(value)
    if not isinstance(value, str):
        return None
    match = _VERSION.match(value)
    if not match:
        return None
    return f"{int(match.group(1))}.{int(match.group(2) or 0)}"


def is_legacy(version: str | None) -> bool:
    """True for a 0.x version, and for no version at all (spec v1.0 section 3.6.2:
    an empty version means 0.3)."""
    return version is None or version.startswith("0.")


def _member(card: Mapping[str, Any], camel: str, snake: str) -> Any:
    return card.get(camel, card.get(snake))


def detect_version(card: Any) -> str:
    """Name the protocol generation a card is shaped for.

    Returns ``"1.0"``, ``"hybrid"`` (1.0 with 0.3 members beside it), ``"0.3"``,
    ``"0.2"``, ``"0.1"`` or ``"unknown"``. The shape decides, not the version
    string (spec-mapping section 8): a card with ``supportedInterfaces`` is 1.0
    whatever its ``protocolVersion`` says. Proto (snake_case) names count too.
    """
    if not isinstance(card, Mapping):
        return UNKNOWN
    if _member(card, "supportedInterfaces", "supported_interfaces") is not None:
        legacy = any(
            _member(card, name, _snake(name)) is not None for name in LEGACY_ENDPOINT_MEMBERS
        )
        return HYBRID if legacy else V1_0
    declared = major_minor(_member(card, "protocolVersion", "protocol_version"))
    if declared is not None and not declared.startswith("0.") and declared != "0.0":
        return V0_3  # a 0.3 shape that claims 1.x: still a 0.3 card by shape
    if declared == V0_3 or any(
        _member(card, name, _snake(name)) is not None
        for name in ("preferredTransport", "additionalInterfaces", "signatures")
    ):
        return V0_3
    if declared is not None and declared.startswith("0.") and declared != V0_3:
        return V0_1 if declared in ("0.0", "0.1") else V0_2
    if card.get("url") is None and "name" not in card:
        return UNKNOWN
    if "authentication" in card and "securitySchemes" not in card:
        return V0_1
    if card.get("url") is None and "skills" not in card:
        return UNKNOWN
    return V0_2


def _snake(camel: str) -> str:
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), camel)

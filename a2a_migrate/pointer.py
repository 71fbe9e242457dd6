"""JSON Pointers (RFC 6901): the one place that builds and splits them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

#: What :func:`resolve` returns for a place the document does not have, unless told otherwise.
MISSING: Any = object()


def escape(token: str | int) -> str:
    """Escape one reference token: ``~`` becomes ``~0`` and ``/`` becomes ``~1``."""
    text = str(token)
    if "~" in text or "/" in text:  # rare: most tokens are member names and indexes
        return text.replace("~", "~0").replace("/", "~1")
    return text


def unescape(token: str) -> str:
    """Undo :func:`escape` (``~1`` first, as RFC 6901 section 4 requires)."""
    return token.replace("~1", "/").replace("~0", "~")


def join(base: str, *tokens: str | int) -> str:
    """Append reference tokens to a pointer: ``join("/skills", 0, "id") == "/skills/0/id"``."""
    # Called for every note and every recorded edit: one token, the common case, without a join
    # (1.7 µs to 0.6 µs), and a list rather than a generator for several.
    if len(tokens) == 1:
        return f"{base}/{escape(tokens[0])}"
    return base + "".join(["/" + escape(token) for token in tokens])


def split(pointer: str) -> list[str]:
    """Split a pointer into unescaped tokens; the root pointer ``""`` has none."""
    if not pointer:
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer: {pointer!r}")
    return [unescape(token) for token in pointer[1:].split("/")]


def resolve(document: Any, where: str | Iterable[str], missing: Any = MISSING) -> Any:
    """The value at a pointer (or at its split tokens), or ``missing`` if there is none."""
    value = document
    for token in split(where) if isinstance(where, str) else where:
        if isinstance(value, dict) and token in value:
            value = value[token]
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return missing
    return value

"""JSON Pointers (RFC 6901): the one place that builds and splits them."""

from __future__ import annotations


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
    return base + "".join("/" + escape(token) for token in tokens)


def split(pointer: str) -> list[str]:
    """Split a pointer into unescaped tokens; the root pointer ``""`` has none."""
    if not pointer:
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer: {pointer!r}")
    return [unescape(token) for token in pointer[1:].split("/")]

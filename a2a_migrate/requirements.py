"""Walk and rewrite the security requirements of a 1.0-shaped card.

Shared by the transforms that rename, split, merge or remove security schemes:
each must rewrite every requirement that names the scheme, on the card and on
every skill, in the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from a2a_migrate.cardtree import skills
from a2a_migrate.pointer import join

if TYPE_CHECKING:
    from a2a_migrate.context import Context

#: Rewrites one requirement's ``schemes`` map into zero or more alternatives.
Rewrite = Callable[[dict[str, Any]], list[dict[str, Any]]]


def holders(card: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    """Yield ``(pointer, object)`` for the card and each skill with ``securityRequirements``."""
    if isinstance(card.get("securityRequirements"), list):
        yield join("", "securityRequirements"), card
    for pointer, skill in skills(card):
        if isinstance(skill.get("securityRequirements"), list):
            yield join(pointer, "securityRequirements"), skill


def rewrite(card: Mapping[str, Any], change: Rewrite, ctx: Context) -> None:
    """Replace each requirement by the alternatives ``change`` returns for its schemes (edits through ``ctx``)."""
    for pointer, holder in holders(card):
        rewritten: list[Any] = []
        for requirement in holder["securityRequirements"]:
            schemes = requirement.get("schemes") if isinstance(requirement, Mapping) else None
            if not isinstance(schemes, Mapping):
                rewritten.append(requirement)
                continue
            rewritten.extend(_as_requirement(alternative) for alternative in change(dict(schemes)))
        write(holder, pointer, rewritten, ctx)


def write(holder: Any, pointer: str, requirements: list[Any], ctx: Context) -> None:
    """Put ``requirements`` in place of the holder's (``pointer`` as :func:`holders` gives it), recorded
    only where they differ: the same requirements as a new list are no change."""
    if requirements != holder["securityRequirements"]:
        ctx.set(holder, "securityRequirements", requirements, at=pointer.rsplit("/", 1)[0])
    else:
        holder["securityRequirements"] = requirements


def _as_requirement(schemes: dict[str, Any]) -> dict[str, Any]:
    # ProtoJSON omits an empty map: a requirement that needs nothing is {}.
    return {"schemes": schemes} if schemes else {}


def names_in_use(card: Mapping[str, Any]) -> set[str]:
    """Every scheme name some requirement of the card or a skill names."""
    used: set[str] = set()
    for _, holder in holders(card):
        for requirement in holder["securityRequirements"]:
            schemes = requirement.get("schemes") if isinstance(requirement, Mapping) else None
            if isinstance(schemes, Mapping):
                used.update(schemes)
    return used


def scopes_of(value: Any) -> list[Any]:
    """The scope list of a 1.0 ``StringList``: ``{"list": [...]}``, ``{}`` or a bare list."""
    if isinstance(value, Mapping):
        scopes = value.get("list", [])
        return list(scopes) if isinstance(scopes, list) else []
    return list(value) if isinstance(value, list) else []

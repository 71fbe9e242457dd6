"""``security`` becomes ``securityRequirements``, on the card and on each skill.

v1.0 ``a2a.proto``: ``repeated SecurityRequirement security_requirements``
with ``SecurityRequirement { map<string, StringList> schemes }``, so the 0.3
``[{"oauth": ["read"]}]`` is ``[{"schemes": {"oauth": {"list": ["read"]}}}]``
(spec-mapping section 5.4; an empty scope list is omitted: ``{}``). The
meaning, an OR of ANDs, is unchanged. Cards transcoded from the 0.3 gRPC proto
already carry ``[{"schemes": ...}]`` under the old name and are recognised.
A ``security`` member that is no list at all (free text, a vendor object) was
never readable by any client: it is dropped with a lossy note.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from a2a_migrate import edit
from a2a_migrate.cardtree import skills
from a2a_migrate.requirements import scopes_of
from a2a_migrate.context import Context, show
from a2a_migrate.pointer import join


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True


def is_proto_shaped(requirement: Any) -> bool:
    """True for ``{"schemes": {...}}``, the 1.0 (and 0.3 gRPC) shape."""
    return isinstance(requirement, Mapping) and list(requirement) == ["schemes"] and isinstance(
        requirement["schemes"], Mapping
    )


def to_v1(requirement: Mapping[str, Any]) -> Any:
    """``{"oauth": ["read"]}`` -> ``{"schemes": {"oauth": {"list": ["read"]}}}``; ``{}`` stays ``{}``.

    In a YAML card a comment beside a scheme name stays beside it.
    """
    holder = requirement["schemes"] if is_proto_shaped(requirement) else requirement
    schemes = edit.like(holder, [(name, {"list": scopes_of(value)} if scopes_of(value) else {})
                                 for name, value in holder.items()])
    for name in holder:
        edit.move_comment(holder, name, schemes, name)
    # ProtoJSON omits an empty map: the requirement that needs nothing is {}.
    return edit.like(requirement, [("schemes", schemes)]) if schemes else edit.like(requirement)


def to_v03(requirement: Mapping[str, Any]) -> dict[str, list[Any]]:
    """``{"schemes": {"oauth": {"list": ["read"]}}}`` -> ``{"oauth": ["read"]}``."""
    schemes = requirement.get("schemes", {})
    return {name: scopes_of(value) for name, value in (schemes.items() if isinstance(schemes, Mapping) else [])}


def _valid_v03(requirement: Any) -> bool:
    return isinstance(requirement, Mapping) and all(
        isinstance(scopes, list) and all(isinstance(scope, str) for scope in scopes) for scopes in requirement.values())


def _reshape_misnamed(holder: Any, pointer: str, ctx: Context) -> None:
    """``securityRequirements`` written in the 0.3 shape: a 1.0 reader would see no schemes."""
    requirements = holder.get("securityRequirements")
    if not isinstance(requirements, list):
        return
    for index, requirement in enumerate(requirements):
        if requirement and not is_proto_shaped(requirement) and _valid_v03(requirement):
            ctx.set(requirements, index, to_v1(requirement), at=join(pointer, "securityRequirements"))
            ctx.note(join(pointer, "securityRequirements", index), "assumed",
                     "requirement in the 0.3 shape under the 1.0 name: written as {\"schemes\": ...}")


def _up_holder(holder: Any, pointer: str, ctx: Context) -> None:
    _reshape_misnamed(holder, pointer, ctx)
    if "security" not in holder:
        return
    old = holder["security"]
    if not isinstance(old, list):
        # No 0.3 client could read it either, so dropping it misstates nothing a client relied on.
        ctx.remove(holder, "security", at=pointer)
        ctx.note(join(pointer, "security"), "lossy", f"security {show(old)} is "
                                                    "not a list of requirements (no version can read it): dropped")
        return
    if not all(is_proto_shaped(r) or _valid_v03(r) for r in old):
        ctx.note(join(pointer, "security"), "error", "security is not a list of {scheme: [scopes]} objects")
        return
    converted = [to_v1(requirement) for requirement in old]
    if "securityRequirements" in holder:
        ctx.remove(holder, "security", at=pointer)
        same = converted == [to_v1(r) for r in holder["securityRequirements"] if isinstance(r, Mapping)]
        ctx.note(join(pointer, "security"), "info" if same else "lossy",
                 "0.3 security dropped beside securityRequirements" + ("" if same else ", which says otherwise"))
        return
    ctx.replace(holder, ["security"], "securityRequirements", converted, at=pointer)
    ctx.note(join(pointer, "security"), "info", "security written as securityRequirements")


def _down_holder(holder: Any, pointer: str, ctx: Context) -> None:
    if "securityRequirements" not in holder:
        return
    new = holder["securityRequirements"]
    if not isinstance(new, list) or not all(isinstance(r, Mapping) for r in new):
        ctx.note(join(pointer, "securityRequirements"), "error", "securityRequirements is not a list of objects")
        return
    converted = [to_v03(requirement) for requirement in new]
    if ctx.options.hybrid:
        ctx.insert_at(holder, edit.position(holder, "securityRequirements") + 1, "security", converted, at=pointer)
    else:
        ctx.replace(holder, ["securityRequirements"], "security", converted, at=pointer)
    ctx.note(join(pointer, "securityRequirements"), "info", "securityRequirements written as security")


def up(card: Any, ctx: Context) -> None:
    """Rename and reshape the requirements of the card and of every skill."""
    _up_holder(card, "", ctx)
    for pointer, skill in skills(card):
        _up_holder(skill, pointer, ctx)


def down(card: Any, ctx: Context) -> None:
    """Write the requirements in the 0.3 shape (beside the 1.0 ones for ``--hybrid``)."""
    _down_holder(card, "", ctx)
    for pointer, skill in skills(card):
        _down_holder(skill, pointer, ctx)


# -- for ``a2a-migrate transforms security_requirements`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "a2a.proto SecurityRequirement; spec-mapping section 5.4"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "security": [
        {
            "oauth": [
                "read"
            ]
        }
    ]
}

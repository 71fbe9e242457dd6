"""Each interface states its protocol version, as ``Major.Minor``.

whats-new-v1 (#1401): "Each AgentInterface now specifies its own
protocolVersion"; spec v1.0 section 3.6: "Patch version numbers SHOULD NOT be
used in ... Agent Cards", so ``"0.3.0"`` is written ``"0.3"``. The version is
the one the server speaks: an upgraded card still says ``"0.3"`` unless
``--interface-version 1.0`` declares that the endpoints now speak 1.0. No
version at all means 0.3 (section 3.6.2: "Agents MUST interpret empty value as
0.3 version").

Downgrade: only an interface whose server speaks 0.x can be offered to a 0.3
client (spec v1.0 section 3.6; a 0.3 client sends ``message/send``, which a
1.0-only endpoint rejects). ``--interface-version 0.3`` declares that every
interface speaks 0.3 (a gateway translates for 0.3 clients).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from a2a_migrate import edit
from a2a_migrate.context import Context, Options, show
from a2a_migrate.pointer import join
from a2a_migrate.versions import V0_3, is_legacy, major_minor


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True

#: What a refusal tells the user to pass when a gateway serves 0.3 clients.
GATEWAY_HINT = "if a gateway translates for 0.3 clients, pass --interface-version 0.3 (treat the interfaces as 0.3 endpoints)"


def _set(interface: Any, value: str, at: str, ctx: Context) -> None:
    if "protocolVersion" in interface:
        ctx.set(interface, "protocolVersion", edit.restyled(interface["protocolVersion"], value), at=at)
    else:
        ctx.insert_at(interface, edit.position(interface, "protocolBinding") + 1, "protocolVersion", value, at=at)


def _normalize(interface: Any, pointer: str, declared: str | None, ctx: Context) -> None:
    raw = interface.get("protocolVersion")
    at, pointer = pointer, join(pointer, "protocolVersion")
    if declared is not None:
        if raw != declared:
            _set(interface, declared, at, ctx)
            ctx.note(pointer, "assumed", f"protocol version {declared} declared by --interface-version (was {show(raw)})")
        return
    if raw is None:
        _set(interface, V0_3, at, ctx)
        ctx.note(pointer, "assumed", "no protocol version: 0.3 assumed (spec 3.6.2: an empty version means 0.3)")
        return
    version = major_minor(raw)
    if version is None:
        ctx.note(pointer, "error", f"protocol version {show(raw)} is not a version: pass --interface-version")
    elif version != raw:
        _set(interface, version, at, ctx)
        ctx.note(pointer, "info", f"protocol version {show(raw)} written as {show(version)} (spec 3.6: no patch numbers)")
    if version is not None and not is_legacy(version) and _was_0_3_shaped(ctx):
        ctx.note(pointer, "warning", f"the 0.3-shaped card claimed protocol {show(raw)}: kept, but a server that still "
                                     "speaks 0.3 must say so (--interface-version 0.3), or 1.0 clients will fail")


def _was_0_3_shaped(ctx: Context) -> bool:
    # spec-mapping 9: a card is configuration; a 0.3 card labelled 1.x often fronts a 0.3 server.
    original = ctx.original
    return isinstance(original, Mapping) and "supportedInterfaces" not in original and "supported_interfaces" not in original


def declared_version(options: Options) -> str | None:
    """The ``Major.Minor`` of ``--interface-version``, or None when it is not given."""
    return major_minor(options.interface_version) if options.interface_version else None


def legacy_version(interface: Mapping[str, Any], options: Options) -> str | None:
    """The 0.x ``Major.Minor`` an interface serves a 0.3 client with, or None if it cannot.

    ``--interface-version`` decides for every interface; else the interface's
    own version, and no version at all is 0.3 (spec v1.0 section 3.6.2). The one
    place that decides downgrade eligibility.
    """
    raw = interface.get("protocolVersion")
    version = declared_version(options) or (V0_3 if raw is None else major_minor(raw))
    return version if version is not None and is_legacy(version) else None


def up(card: Any, ctx: Context) -> None:
    """Write ``Major.Minor`` on every interface."""
    declared = declared_version(ctx.options)
    interfaces = card.get("supportedInterfaces")
    for index, interface in enumerate(interfaces if isinstance(interfaces, list) else []):
        if isinstance(interface, Mapping):
            _normalize(interface, join("/supportedInterfaces", index), declared, ctx)


def _report(interface: Mapping[str, Any], pointer: str, ctx: Context) -> bool:
    """Say what a 0.3 client is offered of one interface; True if it speaks 0.x."""
    raw = interface.get("protocolVersion")
    declared = declared_version(ctx.options)
    at_version = join(pointer, "protocolVersion")
    if legacy_version(interface, ctx.options) is not None:
        if declared is not None and major_minor(raw) != declared:
            ctx.note(at_version, "assumed", f"interface taken to speak {declared} by --interface-version (it says {show(raw)})")
        elif raw is None:
            ctx.note(at_version, "assumed", "no protocol version: 0.3 assumed (spec 3.6.2: an empty version means 0.3)")
        return True
    if declared is None and major_minor(raw) is None:
        ctx.note(at_version, "error", f"protocol version {show(raw)} is not a version: pass --interface-version")
    else:
        ctx.note(pointer, "lossy", f"interface {show(interface.get('url'))} speaks {declared or major_minor(raw)}, "
                                   "which a 0.3 client cannot use: left out")
    return False


def down(card: Any, ctx: Context) -> None:
    """Decide which interfaces a 0.3 client can be offered; refuse a card with none.

    Spec v1.0 section 3.6 / 3.6.2 and spec-mapping section 4 ("Which interfaces
    are eligible for a downgrade?"): those whose ``protocolVersion`` is 0.x or
    empty. Each left-out interface gets a lossy note; ``endpoints.down`` then
    writes the 0.3 members from the eligible ones.
    """
    interfaces = card.get("supportedInterfaces")
    if not isinstance(interfaces, list):
        return
    offered = [
        _report(interface, join("/supportedInterfaces", index), ctx)
        for index, interface in enumerate(interfaces)
        if isinstance(interface, Mapping)
    ]
    if not any(offered):
        ctx.note("/supportedInterfaces", "error",
                 f"no interface speaks protocol 0.x, so a 0.3 client can use none of them; {GATEWAY_HINT}")


# -- for ``a2a-migrate transforms interface_protocol_version`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "whats-new-v1 (#1401); spec v1.0 section 3.6"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "supportedInterfaces": [
        {
            "url": "https://agent.example.com/a2a",
            "protocolBinding": "JSONRPC",
            "protocolVersion": "0.3.0"
        }
    ]
}

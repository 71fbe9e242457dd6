"""Each interface states its protocol version, as ``Major.Minor``.

whats-new-v1 (#1401): "Each AgentInterface now specifies its own
protocolVersion"; spec v1.0 section 3.6: "Patch version numbers SHOULD NOT be
used in ... Agent Cards", so ``"0.3.0"`` is written ``"0.3"``. The version is
the one the server speaks: an upgraded card still says ``"0.3"`` unless
``--interface-version 1.0`` declares that the endpoints now speak 1.0. No
version at all means 0.3 (section 3.6.2: "Agents MUST interpret empty value as
0.3 version").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from a2a_migrate import edit
from a2a_migrate.context import Context
from a2a_migrate.pointer import join
from a2a_migrate.versions import V0_3, major_minor


def _set(interface: Any, value: str) -> None:
    if "protocolVersion" in interface:
        interface["protocolVersion"] = value
    else:
        edit.insert_at(interface, edit.position(interface, "protocolBinding") + 1, "protocolVersion", value)


def _normalize(interface: Any, pointer: str, declared: str | None, ctx: Context) -> None:
    raw = interface.get("protocolVersion")
    pointer = join(pointer, "protocolVersion")
    if declared is not None:
        if raw != declared:
            _set(interface, declared)
            ctx.note(pointer, "assumed", f"protocol version {declared} declared by --interface-version (was {raw!r})")
        return
    if raw is None:
        _set(interface, V0_3)
        ctx.note(pointer, "assumed", "no protocol version: 0.3 assumed (spec 3.6.2: an empty version means 0.3)")
        return
    version = major_minor(raw)
    if version is None:
        ctx.note(pointer, "error", f"protocol version {raw!r} is not a version: pass --interface-version")
    elif version != raw:
        _set(interface, version)
        ctx.note(pointer, "info", f"protocol version {raw!r} written as {version!r} (spec 3.6: no patch numbers)")


def up(card: Any, ctx: Context) -> None:
    """Write ``Major.Minor`` on every interface."""
    declared = major_minor(ctx.options.interface_version) if ctx.options.interface_version else None
    interfaces = card.get("supportedInterfaces")
    for index, interface in enumerate(interfaces if isinstance(interfaces, list) else []):
        if isinstance(interface, Mapping):
            _normalize(interface, join("/supportedInterfaces", index), declared, ctx)


def down(card: Any, ctx: Context) -> None:
    """Filled in by the downgrade work."""
    raise NotImplementedError

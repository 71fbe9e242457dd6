"""Endpoints: ``url``, ``preferredTransport`` and ``additionalInterfaces``
become ``supportedInterfaces``.

whats-new-v1 (v1.0.1): "url: Primary endpoint now in supportedInterfaces[0].url",
and ``preferredTransport`` / ``additionalInterfaces`` are merged into
``supportedInterfaces`` ("The first entry is preferred", ``a2a.proto``). The
0.3 ``AgentInterface.transport`` is the 1.0 ``protocolBinding``, same values
(spec-mapping section 4); ``preferredTransport`` defaults to ``JSONRPC`` (v0.3
schema default). An additional interface equal to one already listed is not
repeated (0.3 section 5.6.2 asks cards to repeat the primary there).

Interface spellings seen in real cards (``transport`` in a 1.0 interface,
``json-rpc``, ``TRANSPORT_PROTOCOL_REST``) are read as the binding they mean.

Downgrade (spec-mapping sections 4 and 10): the interfaces that speak 0.x
(decided by ``interface_protocol_version``) are offered; the first becomes
``url`` + ``preferredTransport``, and when there are several all of them, the
primary included (0.3 section 5.6.2: "SHOULD include all supported transports,
including the main URL's transport"), become ``additionalInterfaces``.
``protocolVersion`` is written as 0.3 cards write it (``"0.3.0"``). 0.3 has no
``tenant``: such an interface is left out, or kept without its tenant on
request (``--keep-tenant-interfaces``), with a lossy note either way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from a2a_migrate import bindings, edit
from a2a_migrate.context import Context, show
from a2a_migrate.pointer import join
from a2a_migrate.versions import LEGACY_ENDPOINT_MEMBERS, major_minor

from .interface_protocol_version import legacy_version


#: Every edit goes through the context, which records it as a patch operation (see engine.run).
RECORDS_EDITS = True

#: The members an interface means (0.3 and 1.0 names); anything else is the author's.
_INTERFACE_MEMBERS = frozenset({"url", "protocolBinding", "protocolVersion", "tenant", "transport"})
#: Members of interface objects that name a binding in cards seen in the wild.
_BINDING_SPELLINGS = ("transport", "protocol", "transportProtocol", "type")


def _binding(value: Any, pointer: str, ctx: Context) -> str:
    canonical = bindings.canonical(value)
    if canonical is not None:
        if canonical == value:
            return value  # as written, quotes and all
        ctx.note(pointer, "assumed", f"binding {show(value)} written as {show(canonical)}")
        return edit.restyled(value, canonical)
    if isinstance(value, str) and value.strip():
        ctx.note(pointer, "warning", f"binding {show(value)} is not one of {', '.join(bindings.CORE)}: kept as written")
        return value
    ctx.note(pointer, "assumed", f"no binding given: {bindings.JSONRPC} assumed (the 0.3 default)")
    return bindings.JSONRPC


def _repair_interface(interface: Any, pointer: str, ctx: Context) -> None:
    """Give a 1.0 interface object a canonical ``protocolBinding``."""
    if "protocolBinding" in interface:
        _set_binding(interface, "protocolBinding", pointer, ctx)
        transport = interface.get("transport")
        if "transport" in interface:
            ctx.remove(interface, "transport", at=pointer)
            same = bindings.canonical(transport) == interface["protocolBinding"] or transport == interface["protocolBinding"]
            ctx.note(join(pointer, "transport"), "info" if same else "lossy",
                     "0.3 transport dropped beside protocolBinding" + ("" if same else f" (it said {show(transport)})"))
        return
    if "transport" in interface:
        ctx.rename(interface, "transport", "protocolBinding", at=pointer)
        _set_binding(interface, "transport", pointer, ctx)
        ctx.note(join(pointer, "transport"), "info", "interface transport written as protocolBinding")
        return
    spelled = next((interface[k] for k in _BINDING_SPELLINGS if bindings.canonical(interface.get(k))), None)
    position = edit.position(interface, "url") + 1
    binding = _binding(spelled, join(pointer, "protocolBinding"), ctx)
    ctx.insert_at(interface, position, "protocolBinding", binding, at=pointer)


def _set_binding(interface: Any, spelled_as: str, pointer: str, ctx: Context) -> None:
    """Write the interface's ``protocolBinding`` canonically (notes point at the member as the card spelled it)."""
    binding = _binding(interface["protocolBinding"], join(pointer, spelled_as), ctx)
    ctx.set(interface, "protocolBinding", binding, at=pointer)  # (the same value as written: no operation)


def _key(interface: Mapping[str, Any]) -> tuple[Any, ...]:
    # spec-mapping section 4: interfaces are equal iff url, binding, version and tenant are.
    return tuple(interface.get(k) for k in ("url", "protocolBinding", "protocolVersion", "tenant"))


def _legacy_interfaces(card: Any, ctx: Context) -> list[tuple[str, Any]]:
    """The 0.3 endpoint members as (pointer, 1.0 interface) pairs, primary first.

    In a YAML card the comments beside ``url``, ``preferredTransport`` and an
    interface's ``transport`` follow them into the new interface.
    """
    found: list[tuple[str, Any]] = []
    url = card.get("url")
    if url is not None or "preferredTransport" in card:
        binding = _binding(card.get("preferredTransport", bindings.JSONRPC), "/preferredTransport", ctx)
        primary = edit.like(card, [("url", url), ("protocolBinding", binding)])
        edit.move_comment(card, "url", primary, "url")
        edit.move_comment(card, "preferredTransport", primary, "protocolBinding")
        found.append(("/url", primary))
    extras = card.get("additionalInterfaces")
    for index, extra in enumerate(extras if isinstance(extras, list) else []):
        pointer = join("/additionalInterfaces", index)
        if not isinstance(extra, Mapping):
            ctx.note(pointer, "error", f"additional interface {show(extra)} is not an object")
            continue
        interface = edit.renamed_copy(extra, {"transport": "protocolBinding"})
        edit.replace(interface, ["protocolBinding"], "protocolBinding",
                     _binding(extra.get("transport"), join(pointer, "transport"), ctx))
        found.append((pointer, interface))
    return found


def _with_version(interface: Any, version: Any, ctx: Context | None = None, at: str = "") -> Any:
    """Give the interface the card's version, before any ``tenant`` (the proto's order).

    An interface already in the card is edited through ``ctx`` (at pointer ``at``), a new one directly.
    """
    if version is not None and "protocolVersion" not in interface:
        index = edit.position(interface, "tenant")
        if ctx is not None:
            ctx.insert_at(interface, index, "protocolVersion", version, at=at)
        else:
            edit.insert_at(interface, index, "protocolVersion", version)
    return interface


def _from_legacy(card: Any, ctx: Context) -> None:
    version = card.get("protocolVersion")
    interfaces: list[Any] = []
    for pointer, interface in _legacy_interfaces(card, ctx):
        interface = _with_version(interface, version)
        if not isinstance(interface.get("url"), str) or not interface["url"].strip():
            ctx.note(pointer, "error", "interface has no url")
            continue
        if any(_key(interface) == _key(listed) for listed in interfaces):
            ctx.note(pointer, "info", "interface repeats one already listed: not repeated")
            for extra in [key for key in interface if key not in _INTERFACE_MEMBERS]:
                ctx.note(join(pointer, extra), "lossy", f"{extra} of the repeated interface dropped with it")
            continue
        interfaces.append(interface)
    if interfaces:
        edit.move_comment(card, "protocolVersion", interfaces[0], "protocolVersion")
    legacy = [key for key in card if key in LEGACY_ENDPOINT_MEMBERS]
    ctx.replace(card, legacy, "supportedInterfaces", interfaces, at="")
    if interfaces:
        ctx.note("/url", "info", "url, preferredTransport and additionalInterfaces moved to supportedInterfaces")


def _same_endpoint(listed: Any, legacy: Mapping[str, Any], binding_given: bool) -> bool:
    """Whether a hybrid's 0.3 member only repeats a listed interface.

    spec-mapping section 4: interfaces are equal iff url, binding, version and
    tenant are; a top-level url with no preferredTransport names no binding of
    its own, and a side without a version does not tell them apart.
    """
    if not isinstance(listed, Mapping) or listed.get("url") != legacy.get("url"):
        return False
    if binding_given and listed.get("protocolBinding") != legacy.get("protocolBinding"):
        return False
    versions = {major_minor(side.get("protocolVersion")) for side in (listed, legacy)} - {None}
    return len(versions) <= 1


def _strip_hybrid(card: Any, ctx: Context) -> None:
    interfaces = card["supportedInterfaces"]
    version = card.get("protocolVersion")
    for index, interface in enumerate(interfaces):
        if isinstance(interface, Mapping) and "protocolVersion" not in interface and version is not None:
            _with_version(interface, version, ctx, join("/supportedInterfaces", index))
            ctx.note(join("/supportedInterfaces", index, "protocolVersion"), "assumed",
                     f"interface had no protocolVersion: the card's {show(version)} used")
    for pointer, interface in _legacy_interfaces(card, ctx):
        interface = _with_version(interface, version)
        binding_given = pointer != "/url" or "preferredTransport" in card
        match = next((i for i, listed in enumerate(interfaces) if _same_endpoint(listed, interface, binding_given)), None)
        if match is not None:
            ctx.note(pointer, "info", f"0.3 copy of supportedInterfaces/{match} removed")
        elif isinstance(interface.get("url"), str):
            ctx.append(interfaces, interface, at="/supportedInterfaces")
            ctx.note(pointer, "assumed", "0.3 endpoint missing from supportedInterfaces: appended to it")
    for key in [key for key in card if key in LEGACY_ENDPOINT_MEMBERS]:
        ctx.remove(card, key, at="")


def _read_draft_versions(card: Any, ctx: Context) -> None:
    """Draft 1.0 cards (spec-mapping 8.2, Jan 2026) list ``protocolVersions``: read like ``protocolVersion``.

    One interface states one version, so the first listed feeds the
    interfaces; a different version listed beside it is reported lost.
    """
    if "protocolVersions" not in card:
        return
    listed = card["protocolVersions"]
    versions = [v for v in listed if major_minor(v) is not None] if isinstance(listed, list) else []
    if not versions or "protocolVersion" in card:
        ctx.remove(card, "protocolVersions", at="")
        same = bool(versions) and {major_minor(v) for v in versions} == {major_minor(card.get("protocolVersion"))}
        ctx.note("/protocolVersions", "info" if same else "lossy",
                 f"draft member protocolVersions {show(listed)} dropped" + (": it repeats protocolVersion" if same else ""))
        return
    ctx.replace(card, ["protocolVersions"], "protocolVersion", versions[0], at="")
    ctx.note("/protocolVersions", "info", f"draft member protocolVersions read as protocolVersion {show(versions[0])}")
    for index, version in enumerate(listed):
        if major_minor(version) != major_minor(versions[0]):
            ctx.note(join("/protocolVersions", index), "lossy", f"version {show(version)} dropped: an interface states "
                                                                "one version (add an interface for this one by hand)")


def up(card: Any, ctx: Context) -> None:
    """Build ``supportedInterfaces`` from the 0.3 members (or strip them from a hybrid)."""
    _read_draft_versions(card, ctx)
    interfaces = card.get("supportedInterfaces")
    if interfaces is None:
        url = card.get("url")
        usable = isinstance(url, str) and bool(url.strip())
        if not usable and ctx.options.default_url is not None:
            if "url" in card:
                ctx.set(card, "url", ctx.options.default_url, at="")
            else:
                ctx.insert_at(card, edit.position(card, "description") + 1, "url", ctx.options.default_url, at="")
            ctx.filled("/url", "url", url, ctx.options.default_url, "--default-url")
        elif url is not None and not usable:
            ctx.note("/url", "error", f"url {show(url)} is not an endpoint: fix it, or pass --default-url")
            return
        if card.get("url") is None:
            ctx.note("/url", "error", "the card has no url and no supportedInterfaces: pass --default-url")
        else:
            _from_legacy(card, ctx)
        return
    if not isinstance(interfaces, list):
        ctx.note("/supportedInterfaces", "error", "supportedInterfaces is not a list")
        return
    for index, interface in enumerate(interfaces):
        pointer = join("/supportedInterfaces", index)
        if isinstance(interface, Mapping):
            _repair_interface(interface, pointer, ctx)
        else:
            ctx.note(pointer, "error", f"interface {show(interface)} is not an object")
    if any(key in card for key in LEGACY_ENDPOINT_MEMBERS):
        _strip_hybrid(card, ctx)


#: Members of a 1.0 interface that its 0.3 form has no place for (or renames).
_V1_ONLY = ("protocolBinding", "protocolVersion", "tenant")


def _keeps_tenant(interface: Mapping[str, Any], pointer: str, ctx: Context) -> bool:
    """Whether an interface with a ``tenant`` is still offered (the tenant never is)."""
    tenant = interface["tenant"]
    if ctx.options.keep_tenant_interfaces:
        ctx.note(join(pointer, "tenant"), "lossy",
                 f"tenant {show(tenant)} dropped: 0.3 clients cannot send it, and the interface may reject them without it")
        return True
    ctx.note(pointer, "lossy", f"interface with tenant {show(tenant)} left out: 0.3 clients cannot send "
                                               "the tenant (--keep-tenant-interfaces keeps it without the tenant)")
    return False


def _as_v03(interface: Mapping[str, Any], pointer: str, ctx: Context) -> dict[str, Any]:
    """The 0.3 ``AgentInterface`` form: ``transport`` for ``protocolBinding``, 1.0-only members left out."""
    binding = _binding(interface.get("protocolBinding", interface.get("transport")), join(pointer, "protocolBinding"), ctx)
    extras = {key: value for key, value in interface.items() if key not in (*_V1_ONLY, "url", "transport")}
    return {"url": interface["url"], "transport": binding, **extras}


def _offered(interfaces: list[Any], ctx: Context) -> list[tuple[str, str, dict[str, Any]]]:
    """``(pointer, version, 0.3 interface)`` for each interface a 0.3 client can use, in order."""
    offered: list[tuple[str, str, dict[str, Any]]] = []
    for index, interface in enumerate(interfaces):
        pointer = join("/supportedInterfaces", index)
        if not isinstance(interface, Mapping):
            ctx.note(pointer, "error", f"interface {show(interface)} is not an object")
            continue
        version = legacy_version(interface, ctx.options)
        if version is None or ("tenant" in interface and not _keeps_tenant(interface, pointer, ctx)):
            continue
        if not isinstance(interface.get("url"), str) or not interface["url"].strip():
            ctx.note(pointer, "error", "interface has no url")
            continue
        offered.append((pointer, version, _as_v03(interface, pointer, ctx)))
    return offered


def _v03_members(offered: list[tuple[str, str, dict[str, Any]]], ctx: Context) -> dict[str, Any]:
    """``url``, ``preferredTransport``, ``protocolVersion`` (and ``additionalInterfaces``)."""
    pointer, version, primary = offered[0]
    members: dict[str, Any] = {"url": primary["url"], "preferredTransport": primary["transport"],
                               "protocolVersion": f"{version}.0"}
    for other_pointer, other_version, _ in offered[1:]:
        if other_version != version:
            ctx.note(join(other_pointer, "protocolVersion"), "lossy",
                     f"0.3 states one protocol version per card: {version}.0 written, though this interface speaks {other_version}")
    if len(offered) > 1:
        members["additionalInterfaces"] = [entry for _, _, entry in offered]
    elif len(primary) > 2:
        ctx.note(pointer, "lossy", f"members {', '.join(list(primary)[2:])} of the only interface have no place in 0.3")
    return members


def _same_member(key: str, old: Any, new: Any) -> bool:
    """Whether a hybrid card's 0.3 copy says what the members written from its interfaces say."""
    if key == "protocolVersion":
        return major_minor(old) == major_minor(new)
    if key == "preferredTransport":
        return (bindings.canonical(old) or old) == (bindings.canonical(new) or new)
    if key == "additionalInterfaces":
        urls = [{entry.get("url") for entry in side if isinstance(entry, Mapping)} for side in (old, new)
                if isinstance(side, list)]
        return len(urls) == 2 and urls[0] == urls[1]
    return bool(old == new)


def _report_replaced_copies(card: Any, members: dict[str, Any], ctx: Context) -> None:
    """A hybrid input's 0.3 members are rewritten from its interfaces (1.0 wins): say where they differed."""
    for key in LEGACY_ENDPOINT_MEMBERS:
        if key in card and not _same_member(key, card[key], members.get(key)):
            ctx.note(join("", key), "lossy", f"the card's 0.3 {key} {show(card[key])} replaced: "
                                             "its supportedInterfaces say otherwise, and they win")


def _write(card: Any, members: dict[str, Any], ctx: Context) -> None:
    """Put the members where ``supportedInterfaces`` stood (any 0.3 copies of a hybrid card go)."""
    for key in LEGACY_ENDPOINT_MEMBERS:
        if key in card:
            ctx.pop(card, key, at="")
    names = list(members)
    ctx.replace(card, ["supportedInterfaces"], names[0], members[names[0]], at="")
    start = edit.position(card, names[0])
    for offset, name in enumerate(names[1:], 1):
        ctx.insert_at(card, start + offset, name, members[name], at="")


def down(card: Any, ctx: Context) -> None:
    """Write ``url``, ``preferredTransport``, ``protocolVersion`` and ``additionalInterfaces``.

    Spec-mapping section 10, downgrade step 2; v0.3 schema: ``url`` and
    ``protocolVersion`` are required. A card that is already 0.3-shaped is left
    as it is.
    """
    interfaces = card.get("supportedInterfaces")
    if interfaces is None:
        if card.get("url") is None:
            ctx.note("/supportedInterfaces", "error", "the card has neither supportedInterfaces nor url")
        return
    if not isinstance(interfaces, list):
        ctx.note("/supportedInterfaces", "error", "supportedInterfaces is not a list")
        return
    offered = _offered(interfaces, ctx)
    if not offered:
        if any(isinstance(i, Mapping) and "tenant" in i and legacy_version(i, ctx.options) for i in interfaces):
            ctx.note("/supportedInterfaces", "error", "every interface a 0.3 client could use has a tenant: "
                                                      "pass --keep-tenant-interfaces to offer them without it")
        return
    members = _v03_members(offered, ctx)
    _report_replaced_copies(card, members, ctx)
    _write(card, members, ctx)
    ctx.note("/supportedInterfaces", "info", f"supportedInterfaces written as {', '.join(members)}")


# -- for ``a2a-migrate transforms endpoints`` (issue 13) --
#: Where the spec says what this transform implements.
SPEC = "whats-new-v1: supportedInterfaces; spec-mapping section 4"
#: A card fragment whose upgrade shows what the transform does.
EXAMPLE = {
    "url": "https://agent.example.com/a2a",
    "preferredTransport": "JSONRPC",
    "protocolVersion": "0.3.0",
    "additionalInterfaces": [
        {
            "url": "https://agent.example.com/grpc",
            "transport": "GRPC"
        }
    ]
}

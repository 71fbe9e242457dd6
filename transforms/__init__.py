"""The transform chains, in order: one module per spec change.

Each module has ``up(card, ctx)`` (towards 1.0) and ``down(card, ctx)``
(towards 0.3), mutates the card in place and reports through ``ctx.note``.
Repairs of shapes seen in real cards run first, so that the spec changes
after them meet well-formed cards.
"""

from __future__ import annotations

from types import ModuleType

from . import (
    capabilities_shape,
    card_identity,
    endpoints,
    explicit_nulls,
    extended_agent_card,
    interface_protocol_version,
    legacy_authentication,
    media_types,
    oauth_flows,
    proto_field_names,
    provider_organization,
    security_requirements,
    security_schemes,
    signatures,
    skill_io_schemas,
    skill_members,
    state_transition_history,
    vendor_members,
)

#: Towards 1.0.
UPGRADE: tuple[ModuleType, ...] = (
    proto_field_names,
    explicit_nulls,
    card_identity,
    capabilities_shape,
    provider_organization,
    skill_members,
    legacy_authentication,
    extended_agent_card,
    state_transition_history,
    endpoints,
    interface_protocol_version,
    security_requirements,
    security_schemes,
    oauth_flows,
    skill_io_schemas,
    media_types,
    signatures,
    vendor_members,
)

#: Towards 0.3: the spec changes undone in reverse order.
DOWNGRADE: tuple[ModuleType, ...] = (
    proto_field_names,
    explicit_nulls,
    card_identity,
    capabilities_shape,
    provider_organization,
    skill_members,
    legacy_authentication,
    interface_protocol_version,
    endpoints,
    oauth_flows,
    security_schemes,
    security_requirements,
    extended_agent_card,
    state_transition_history,
    skill_io_schemas,
    media_types,
    signatures,
    vendor_members,
)

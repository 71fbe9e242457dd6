"""Protocol binding names: the one place that reads the spellings seen in the wild."""

from __future__ import annotations

from typing import Any

JSONRPC = "JSONRPC"
GRPC = "GRPC"
HTTP_JSON = "HTTP+JSON"
#: The bindings spec v1.0 section 5.8 calls "core" (0.3's TransportProtocol enum).
CORE = (JSONRPC, GRPC, HTTP_JSON)

_ALIASES = {
    JSONRPC: ("jsonrpc", "json-rpc", "json_rpc", "jsonrpc2", "json-rpc-2.0", "jsonrpc2.0",
              "transport_protocol_json_rpc", "transport_protocol_jsonrpc"),
    GRPC: ("grpc", "transport_protocol_grpc"),
    HTTP_JSON: ("http+json", "http_json", "http-json", "rest", "http+rest", "transport_protocol_rest",
                "transport_protocol_http_json"),
}
_BY_ALIAS = {alias: binding for binding, aliases in _ALIASES.items() for alias in aliases}


def spelled(value: Any) -> Any:
    """The binding a value names: the core binding its spelling means, else the value as written
    (a custom binding such as ``KAFKA`` is still a binding)."""
    return canonical(value) or value


def canonical(value: Any) -> str | None:
    """The core binding a spelling means (``"json-rpc"`` -> ``"JSONRPC"``), or None."""
    if not isinstance(value, str):
        return None
    return _BY_ALIAS.get(value.strip().lower())

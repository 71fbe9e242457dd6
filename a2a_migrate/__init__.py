"""a2a-migrate: move A2A Agent Cards between protocol versions 0.3 and 1.0.

>>> from a2a_migrate import upgrade
>>> result = upgrade({"name": "Echo", "description": "Echoes", "version": "1.0.0",
...                   "url": "https://echo.example.com/a2a", "protocolVersion": "0.3.0",
...                   "capabilities": {}, "defaultInputModes": ["text/plain"],
...                   "defaultOutputModes": ["text/plain"], "skills": []})
>>> result.card["supportedInterfaces"]
[{'url': 'https://echo.example.com/a2a', 'protocolBinding': 'JSONRPC', 'protocolVersion': '0.3'}]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from a2a_migrate.api import (OptionFields, TextResult, apply, diff, downgrade, migrate_text, plan, sign, upgrade,
                                 validate, verify)
    from a2a_migrate.context import Note, Options
    from a2a_migrate.engine import Result
    from a2a_migrate.io import CardError
    from a2a_migrate.versions import detect_version

__version__ = "0.1.0"
__all__ = ["CardError", "Note", "OptionFields", "Options", "Result", "TextResult", "__version__", "apply",
           "detect_version", "diff", "downgrade", "migrate_text", "plan", "sign", "upgrade", "validate", "verify"]

#: Where each public name lives. They are imported on first use (PEP 562), so that
#: ``a2a-migrate --version`` or any submodule does not load the whole chain first.
_PUBLIC = {**dict.fromkeys(("upgrade", "downgrade", "migrate_text", "plan", "apply", "diff", "validate", "sign",
                            "verify", "OptionFields", "TextResult"), "api"),
           "Note": "context", "Options": "context", "Result": "engine", "CardError": "io", "detect_version": "versions"}


def __getattr__(name: str) -> Any:
    if name not in _PUBLIC:
        raise AttributeError(f"module 'a2a_migrate' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"a2a_migrate.{_PUBLIC[name]}"), name)
    globals()[name] = value
    return value

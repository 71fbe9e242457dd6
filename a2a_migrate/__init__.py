"""a2a-migrate: move A2A Agent Cards between protocol versions 0.3 and 1.0.

>>> from a2a_migrate import upgrade
>>> result = upgrade({"name": "Echo", "description": "Echoes", "version": "1.0.0",
...                   "url": "https://echo.example.com/a2a", "protocolVersion": "0.3.0",
...                   "capabilities": {}, "defaultInputModes": ["text/plain"],
...                   "defaultOutputModes": ["text/plain"], "skills": []})
>>> result.card["supportedInterfaces"]
[{'url': 'https://echo.example.com/a2a', 'protocolBinding': 'JSONRPC', 'protocolVersion': '0.3'}]
"""

from a2a_migrate.api import downgrade, upgrade
from a2a_migrate.context import Note, Options
from a2a_migrate.engine import Result
from a2a_migrate.versions import detect_version

__version__ = "0.1.0"
__all__ = ["Note", "Options", "Result", "detect_version", "downgrade", "upgrade", "__version__"]

"""The Python API: migrate card values in memory."""

from __future__ import annotations

from typing import Any

from a2a_migrate.context import Options
from a2a_migrate.engine import Direction, Result, run
from a2a_migrate.io import to_plain


def _migrate(card: Any, direction: Direction, options: dict[str, Any]) -> Result:
    from a2a_migrate.transforms import DOWNGRADE, UPGRADE

    working = to_plain(card)
    chain = UPGRADE if direction == "up" else DOWNGRADE
    return run(working, direction, chain, Options(**options))


def upgrade(card: Any, **options: Any) -> Result:
    """Upgrade a card (a JSON value) to protocol 1.0.

    ``options`` are the fields of :class:`a2a_migrate.context.Options`
    (``interface_version="1.0"``, ``default_version="1.0.0"``, ...). The input
    is not modified; ``Result.card`` is the upgraded copy, ``Result.patch`` the
    RFC 6902 patch from the input to it, ``Result.notes`` what was assumed,
    lost or refused. A result with an ``error`` note has ``ok`` False.
    """
    return _migrate(card, "up", options)


def downgrade(card: Any, **options: Any) -> Result:
    """Downgrade a card (a JSON value) to protocol 0.3; see :func:`upgrade`."""
    return _migrate(card, "down", options)

"""Run one transform on a card and see what it did."""

from __future__ import annotations

import copy
from types import ModuleType
from typing import Any

from a2a_migrate.context import Context, Note, Options
from a2a_migrate.io import to_plain


def run(module: ModuleType, card: dict[str, Any], direction: str = "up", **options: Any) -> tuple[dict[str, Any], list[Note]]:
    """Apply ``module.up`` (or ``down``) to a copy of ``card``; return it and the notes."""
    working = copy.deepcopy(card)
    ctx = Context(Options(**options), original=to_plain(card))
    ctx.transform = module.__name__.rsplit(".", 1)[-1]
    getattr(module, direction)(working, ctx)
    return working, ctx.notes


def brief(notes: list[Note]) -> list[tuple[str, str]]:
    """``(severity, pointer)`` of each note, in order."""
    return [(note.severity, note.pointer) for note in notes]


def base_card(**members: Any) -> dict[str, Any]:
    """A complete, valid 0.3 card, with ``members`` replacing or adding members."""
    card: dict[str, Any] = {
        "name": "Echo",
        "description": "Echoes messages",
        "url": "https://echo.example.com/a2a",
        "protocolVersion": "0.3.0",
        "version": "1.0.0",
        "capabilities": {},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "Echo", "description": "Echo back", "tags": ["echo"]}],
    }
    card.update(members)
    return card

"""Issue 15: a YAML card is parsed once. Its styles are read when it is parsed, and
rendering with them gives the same text as parsing the source again to find them."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from a2a_migrate import io, yamltext
from a2a_migrate.api import migrate_in_place
from a2a_migrate.context import Options

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.0.3.yaml")) + sorted(GOLDEN.glob("*.1.0.yaml")),
                         ids=lambda path: path.name)
def test_styles_read_at_parse_time_render_as_a_second_parse_would(path: Path) -> None:
    document = io.parse(path.read_text(encoding="utf-8"), str(path))
    assert document.yaml_styles is not None
    migrate_in_place(document.data, "up" if ".0.3." in path.name else "down", Options(), original=document.original,
                     record=False)
    again = copy.deepcopy(document.data)
    assert document.render() == yamltext.dump(again, document.text.lstrip("\ufeff"))

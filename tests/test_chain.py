"""The chain is complete, documented, and each transform has the shape the design asks."""

from __future__ import annotations

import pkgutil
import re
from pathlib import Path

import pytest

import a2a_migrate.transforms as transforms
from a2a_migrate.engine import transform_name

ROOT = Path(__file__).resolve().parents[1]
MODULES = sorted(info.name for info in pkgutil.iter_modules(transforms.__path__))


def test_every_transform_module_is_in_both_chains() -> None:
    assert sorted(map(transform_name, transforms.UPGRADE)) == MODULES
    assert sorted(map(transform_name, transforms.DOWNGRADE)) == MODULES


def test_a_transform_is_named_by_its_name_else_its_module() -> None:
    import types
    from typing import ClassVar

    plugin = types.ModuleType("acme.plugins.docs")
    assert transform_name(plugin) == "docs"
    plugin.name = "acme_docs"  # type: ignore[attr-defined]
    assert transform_name(plugin) == "acme_docs"

    class Step:
        name: ClassVar[str] = "recipe:gateway.yaml#1"

    assert transform_name(Step()) == "recipe:gateway.yaml#1"


def test_chains_have_no_repeats() -> None:
    assert len(set(transforms.UPGRADE)) == len(transforms.UPGRADE)
    assert len(set(transforms.DOWNGRADE)) == len(transforms.DOWNGRADE)


def test_readme_catalogue_lists_every_transform_in_chain_order() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    catalogue = readme.split("## Transform catalogue", 1)[1].split("\n## ", 1)[0]
    listed = re.findall(r"^\| `(\w+)` \|", catalogue, re.M)
    assert listed == [transform_name(module) for module in transforms.UPGRADE]


@pytest.mark.parametrize("module", transforms.UPGRADE, ids=transform_name)
def test_transform_has_up_down_and_a_docstring_citing_the_spec(module) -> None:
    assert callable(module.up) and callable(module.down)
    assert module.up.__doc__ and module.down.__doc__
    doc = module.__doc__ or ""
    assert re.search(r"spec|a2a\.proto|schema|whats-new|ProtoJSON|commit", doc, re.I), doc


@pytest.mark.parametrize("module", transforms.UPGRADE, ids=transform_name)
def test_each_transform_has_its_own_test_module(module) -> None:
    assert (ROOT / "tests" / f"test_transform_{transform_name(module)}.py").exists()


def test_the_whole_chain_has_all_each_transform_needs() -> None:
    """select() returns the whole chain unchecked when nothing is skipped or chosen (issue 15): it must be whole."""
    from a2a_migrate.chain import NEEDS, full_chain

    for direction in ("up", "down"):
        names = [transform_name(module) for module in full_chain(direction)]
        assert all(needed in names for name in names for needed in NEEDS.get(name, ())), direction

"""Fuzzing every command with malformed and adversarial cards (issue 11).

Hypothesis generates cards: random JSON and YAML values, real cards with bytes
inserted, deleted or repeated, real cards with a member replaced by a value of
the wrong type (anywhere in the tree), huge strings and arrays, deep nesting,
YAML aliases and numbers JSON does not have. Every card goes through the
library (both directions, validation, rendering) and a share of them through
every command in process. Nothing may escape: exit codes are 0, 1 or 123
only, and a card the tool cannot read is left byte for byte as it was.

The default budget is small for CI, and the examples are derandomized so a CI
run is repeatable. A long run is one variable away and random each time::

    A2A_MIGRATE_FUZZ_EXAMPLES=20000 python -m pytest -q -s tests/test_fuzz.py

(``-s`` shows how many cards it tried; every command runs over a tenth of that number.)
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from a2a_migrate import io
from a2a_migrate.batch import Job, migrate_text
from a2a_migrate.validation import validate
from hostile_support import problems, run_all

ROOT = Path(__file__).resolve().parent.parent
LONG_RUN = int(os.environ.get("A2A_MIGRATE_FUZZ_EXAMPLES", "0"))
TRIED: Counter[str] = Counter()


def budget(default: int, share: int = 1) -> Any:
    """Hypothesis settings: ``default`` examples in CI; in a long run the environment's number,
    divided by ``share`` for a test that costs that many times more per card."""
    return settings(max_examples=max(1, LONG_RUN // share) if LONG_RUN else default, deadline=None, database=None, derandomize=not LONG_RUN,
                    suppress_health_check=list(HealthCheck), report_multiple_bugs=False)


def _readable(text: str, name: str) -> bool:
    try:
        io.parse(text, name)
    except io.CardError:
        return False
    return True


def base_cards() -> list[tuple[str, str]]:
    """``(suffix, text)`` of the golden and example cards: the material mutations start from."""
    patterns = ("golden/*.*", "golden/down/*.*", "golden/format/*.in.*", "examples/*")
    paths = sorted(path for pattern in patterns for path in ROOT.glob(pattern) if path.suffix in (".json", ".yaml"))
    return [(path.suffix, path.read_text("utf-8")) for path in paths if _readable(path.read_text("utf-8"), path.name)]


BASES = base_cards()
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=20)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                      max_leaves=20)
HOSTILE_VALUES = st.sampled_from([
    "x" * 200_000, list(range(20_000)), [[[[[[[[[[[]]]]]]]]]]], {"": None}, "\u0000\ufeff\u202e", [None] * 5000,
    {"k" * 1000: "v" * 1000}, 10**300, -(2**63), 1e308, "é" * 10_000,
])
SNIPPETS = st.sampled_from([
    "NaN", "-Infinity", "1e400", "&a [*a, *a]", "*a", "&b {x: 1}", "[" * 300, "]" * 30, "{" * 100, "\ufeff", "\r\n",
    "%YAML 1.2\n---\n", "\n...\n", "\n---\n", "!!python/object:os.system", "!!binary aGk=", "? [a, b]\n: c\n", "<<: *a",
    '"\\ud800"', "'", '"', ",", ":", "#", "- ", "\t", "\x00", "0x1F", "2024-01-01", ".nan", "~", "1" * 5000,
])


def _paths(value: Any, where: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield where
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        yield from _paths(child, (*where, key))


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[path[0]] = _replaced(value[path[0]], path[1:], new)
    return copy


def _as_text(value: Any, fmt: str) -> str:
    if fmt == ".json":
        return json.dumps(value, indent=2, ensure_ascii=False)
    import io as stdio

    from ruamel.yaml import YAML

    stream = stdio.StringIO()
    YAML(typ="safe", pure=True).dump(value, stream)
    return stream.getvalue()


@st.composite
def wrong_types(draw: st.DrawFn) -> tuple[str, str]:
    """A real card with one member, anywhere in it, replaced by another value (often of another type)."""
    suffix, text = draw(st.sampled_from(BASES))
    card = io.parse(text, "card" + suffix).original
    path = draw(st.sampled_from(list(_paths(card))))
    new = draw(VALUES | HOSTILE_VALUES)
    return draw(st.sampled_from([".json", ".yaml", suffix])), _as_text(_replaced(card, path, new), suffix)


@st.composite
def mutated_texts(draw: st.DrawFn) -> tuple[str, str]:
    """A real card's text with a few snippets or random text inserted, slices deleted or repeated."""
    suffix, text = draw(st.sampled_from(BASES))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(["insert", "random", "delete", "repeat"]))
        if edit == "insert":
            text = text[:at] + draw(SNIPPETS) + text[at:]
        elif edit == "random":
            text = text[:at] + draw(st.text(max_size=10)) + text[at:]
        else:
            end = min(len(text), at + draw(st.integers(1, 200)))
            text = text[:at] + (text[at:end] * draw(st.integers(2, 50)) if edit == "repeat" else "") + text[end:]
    return draw(st.sampled_from([suffix, "", ".yml"])), text


@st.composite
def random_cards(draw: st.DrawFn) -> tuple[str, str]:
    """Random JSON values, as JSON or YAML, some with card member names."""
    members = st.sampled_from(["name", "url", "skills", "supportedInterfaces", "securitySchemes", "security",
                               "capabilities", "protocolVersion", "signatures", "defaultInputModes"])
    card = draw(st.dictionaries(members | st.text(max_size=8), VALUES, max_size=8))
    suffix = draw(st.sampled_from([".json", ".yaml"]))
    return suffix, _as_text(card, suffix)


CARDS = st.one_of(wrong_types(), mutated_texts(), random_cards())


@budget(default=120)
@given(CARDS)
def test_the_library_survives_any_card(card: tuple[str, str]) -> None:
    suffix, text = card
    name = "agent-card" + suffix
    TRIED["library"] += 1
    for direction in ("up", "down"):
        outcome = migrate_text(text, name, Job(direction, record=True))
        assert outcome.status in ("changed", "unchanged", "failed")
        assert (outcome.status == "failed") == bool(outcome.error or any(n.severity == "error" for n in outcome.notes))
        if outcome.status == "changed":  # what the tool writes, it reads back
            assert _readable(outcome.new_text, name), outcome.new_text[:500]
    if _readable(text, name):
        assert all(finding.severity in ("error", "warning") for finding in validate(io.parse(text, name).original))


@budget(default=6, share=10)
@given(CARDS)
def test_every_command_survives_any_card(card: tuple[str, str]) -> None:
    suffix, text = card
    TRIED["commands"] += 1
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"agent-card{suffix}"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        readable = _readable(text, path.name)
        runs = run_all(path, Path(folder), stdin=text)
        assert problems(runs) == []
        if not readable:
            assert path.read_bytes() == text.encode("utf-8", "surrogatepass"), "a card the tool cannot read was rewritten"


@pytest.fixture(scope="module", autouse=True)
def report_the_count() -> Iterator[None]:
    yield
    print(f"\nfuzz: {TRIED['library']} cards through the library, {TRIED['commands']} through every command")

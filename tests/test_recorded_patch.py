"""Patches recorded as edits (issue 15): the built-in transforms record their RFC 6902 operations as they edit.

Over every golden input and every card of the shared corpus, upgraded,
downgraded and made hybrid, and every golden recipe: the recorded patch applies
to the input (with jsonpatch and with a2a_migrate.patching) and gives the
output; it says what the old snapshot-and-diff patch says (applying either
gives the same card, and so does each transform's share of it, in order);
every operation is labelled with a transform that exists. A transform that
does not record (a plugin mutating the card directly) and a YAML card whose
aliases share objects still get a right patch from the diff fallback, and
``patch=False`` records nothing.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonpatch
import pytest

import a2a_migrate
from a2a_migrate import io, transforms
from a2a_migrate.api import migrate_in_place
from a2a_migrate.context import Context, Options
from a2a_migrate.engine import Change, Result, run, transform_name
from a2a_migrate.engine import diff as DIFF
from a2a_migrate.patching import Patcher
from golden_support import case_options
from shared_support import CORPUS, corpus_files, missing

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
CARD_SUFFIXES = (".json", ".yaml", ".yml")
#: Labels that are no module of the chains: the hybrid merge.
OTHER_LABELS = {"hybrid"}
CHAIN = list(dict.fromkeys((*transforms.UPGRADE, *transforms.DOWNGRADE)))
CHAIN_NAMES = {transform_name(module) for module in CHAIN}


def golden_files() -> list[Path]:
    """Every JSON and YAML file under golden/ but options and recipes (inputs and expected outputs)."""
    return sorted(path for path in GOLDEN.rglob("*") if path.suffix in CARD_SUFFIXES
                  and ".options." not in path.name and ".recipe." not in path.name)


def golden_inputs() -> list[Path]:
    """The golden files that are cards (golden/refused keeps a few that are not: refused before any transform)."""
    return [path for path in golden_files() if _is_card(path)]


def cases() -> Iterator[Any]:
    for path in golden_inputs():
        options = _options(path)
        for mode in ("up", "down", "hybrid"):
            yield pytest.param(path, mode, options, id=f"{path.relative_to(GOLDEN)}-{mode}")
    if not CORPUS.is_dir():
        yield pytest.param(None, "up", Options(), id="no-corpus", marks=pytest.mark.skip(reason=missing(CORPUS)))
        return
    for path in corpus_cards():
        for mode in ("up", "down", "hybrid"):
            yield pytest.param(path, mode, Options(), id=f"corpus/{path.name}-{mode}")


def corpus_cards() -> list[Path]:
    """The corpus files that are cards (a few are broken JSON, refused in one line: test_conservation's)."""
    return [path for path in corpus_files() if _is_card(path)]


def _is_card(path: Path) -> bool:
    try:
        io.parse(read(path), path.name)
    except io.CardError:
        return False
    return True


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def _options(path: Path) -> Options:
    case = path.name.split(".")[0]
    return case_options(path.parent, case)


def migrate(text: str, name: str, mode: str, options: Options) -> tuple[Any, Result]:
    """(the input as plain JSON, the result) of migrating the text as the command line does."""
    document = io.parse(text, name)
    direction = "down" if mode == "down" else "up"
    if mode == "hybrid":
        options = dataclasses.replace(options, hybrid=True)
    result = migrate_in_place(document.data, direction, options, original=document.original)
    return io.json_values(document.original), result


def diffed(text: str, name: str, mode: str, options: Options, monkeypatch: pytest.MonkeyPatch) -> Result:
    """The same migration with every transform on the snapshot-and-diff fallback."""
    with monkeypatch.context() as patched:
        for module in CHAIN:
            patched.setattr(module, "RECORDS_EDITS", False, raising=False)
        return migrate(text, name, mode, options)[1]


def plain(value: Any) -> Any:
    return io.json_values(io.to_plain(value))


def applied(card: Any, ops: list[dict[str, Any]]) -> Any:
    return jsonpatch.apply_patch(card, ops)


def states(start: Any, changes: list[Change]) -> list[tuple[str, Any]]:
    """The card after each transform's share of the patch, in order; shares that change nothing left out."""
    result: list[tuple[str, Any]] = []
    card = start
    index = 0
    while index < len(changes):
        label = changes[index].transform
        end = index
        while end < len(changes) and changes[end].transform == label:
            end += 1
        after = applied(card, [change.op for change in changes[index:end]])
        if after != card:
            result.append((label, after))
        card, index = after, end
    return result


@pytest.mark.parametrize(("path", "mode", "options"), list(cases()))
def test_recorded_patch_gives_the_output_and_says_what_a_diff_says(
        path: Path, mode: str, options: Options, monkeypatch: pytest.MonkeyPatch) -> None:
    text = read(path)
    start, result = migrate(text, path.name, mode, options)
    output = plain(result.card)
    # The recorded patch applies to the input and gives the output, with jsonpatch and with our applier.
    assert applied(start, result.patch) == output
    ours = copy.deepcopy(start)
    Patcher(ours).apply(result.patch)
    assert ours == output
    # Every operation is labelled with a transform that exists.
    assert {change.transform for change in result.changes} <= CHAIN_NAMES | OTHER_LABELS
    # It says what the snapshot-and-diff patch says: as a whole, and transform by transform.
    reference = diffed(text, path.name, mode, options, monkeypatch)
    assert plain(reference.card) == output
    assert applied(start, reference.patch) == output
    recorded, diffed_states = states(start, result.changes), states(start, reference.changes)
    assert [label for label, _ in recorded] == [label for label, _ in diffed_states]
    assert recorded == diffed_states
    assert result.changed == reference.changed
    assert [note.as_dict() for note in result.notes] == [note.as_dict() for note in reference.notes]


RECIPES = sorted((GOLDEN / "recipes").glob("*.recipe.*"))


@pytest.mark.parametrize("base", ["base.in.json", "base.in.yaml"])
@pytest.mark.parametrize("recipe_file", RECIPES, ids=lambda path: path.name)
@pytest.mark.parametrize("mode", ["transform", "up", "down"])
def test_recipe_steps_record_what_a_diff_says(recipe_file: Path, base: str, mode: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Each golden recipe on the golden base card, alone (the transform command), after an upgrade and after
    a downgrade: the steps' recorded operations give what their diffs give."""
    from a2a_migrate import recipes

    recipe = recipes.load(str(recipe_file))
    options = Options(recipes=(recipe,), version_chain=mode != "transform")
    text = (GOLDEN / "recipes" / base).read_text("utf-8")
    start, result = migrate(text, base, mode if mode != "transform" else "up", options)
    assert applied(start, result.patch) == plain(result.card)
    steps = {step.name for step in recipe.steps}
    assert {change.transform for change in result.changes} <= CHAIN_NAMES | OTHER_LABELS | steps
    assert any(change.transform in steps for change in result.changes) or not result.ok
    with monkeypatch.context() as patched:
        patched.setattr(recipes.Step, "RECORDS_EDITS", False)
        reference = diffed(text, base, mode if mode != "transform" else "up", options, monkeypatch)
    assert plain(reference.card) == plain(result.card)
    assert states(start, result.changes) == states(start, reference.changes)
    assert [note.as_dict() for note in result.notes] == [note.as_dict() for note in reference.notes]


def test_every_chain_module_records_its_edits() -> None:
    """A module that stopped recording would silently fall back to the slow diff."""
    assert [transform_name(module) for module in CHAIN if not getattr(module, "RECORDS_EDITS", False)] == []


def test_the_inputs_are_found() -> None:
    paths = golden_inputs()
    assert len(paths) >= 100
    assert {path.parent.name for path in golden_files() if path not in paths} <= {"refused"}
    assert any(path.suffix == ".yaml" for path in paths)
    assert len(RECIPES) >= 10


@pytest.mark.skipif(not CORPUS.is_dir(), reason=missing(CORPUS))
def test_all_but_a_few_corpus_files_are_cards() -> None:
    assert len(corpus_cards()) >= len(corpus_files()) - 3


# -- the fallback ------------------------------------------------------------------------------


class DirectPlugin:
    """A plugin-style transform: it mutates the card directly, records nothing."""

    name = "direct_plugin"

    def up(self, card: Any, ctx: Context) -> None:
        card["documentationUrl"] = "https://docs.example"
        card["skills"][0]["tags"].append("added")
        del card["skills"][0]["description"]
        card["capabilities"]["streaming"] = True

    def down(self, card: Any, ctx: Context) -> None:
        self.up(card, ctx)


CARD_V1 = {
    "name": "Echo", "description": "Echoes.", "version": "1.0.0",
    "supportedInterfaces": [
        {"url": "https://echo.example/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
    "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "echo", "name": "Echo", "description": "Echoes.", "tags": ["echo"]}],
}


def test_a_transform_that_mutates_directly_gets_a_right_patch_from_the_diff() -> None:
    card = copy.deepcopy(CARD_V1)
    card["skills_count"] = None  # something the chain (recording) removes before the plugin runs
    start = copy.deepcopy(card)
    result = run(card, "up", [*transforms.UPGRADE, DirectPlugin()], Options())
    assert applied(start, result.patch) == plain(card)
    mine = [change.op for change in result.changes if change.transform == "direct_plugin"]
    assert {"op": "add", "path": "/documentationUrl", "value": "https://docs.example"} in mine
    assert {"op": "remove", "path": "/skills/0/description"} in mine
    assert any(change.transform == "explicit_nulls" for change in result.changes)


def test_yaml_aliases_fall_back_to_the_diff() -> None:
    """One list under two names: an edit through one changes both, and the patch must say so."""
    text = ("name: E\ndescription: d\nversion: '1'\nurl: https://e.example/a2a\nprotocolVersion: '0.3.0'\n"
            "capabilities: {}\ndefaultInputModes: &modes [text]\ndefaultOutputModes: *modes\nskills: []\n")
    start, result = migrate(text, "card.yaml", "up", Options())
    assert result.card["defaultOutputModes"] == ["text/plain"]
    assert applied(start, result.patch) == plain(result.card)
    assert {change.op["path"] for change in result.changes if change.transform == "media_types"} >= {
        "/defaultInputModes/0", "/defaultOutputModes/0"}


def test_values_in_operations_are_copies_taken_at_the_edit() -> None:
    card = {"capabilities": {}}
    ctx = Context(ops=[])
    extensions: list[Any] = []
    ctx.set(card["capabilities"], "extensions", extensions, at="/capabilities")
    ctx.append(extensions, {"uri": "https://x.example"}, at="/capabilities/extensions")
    extensions[0]["required"] = True
    assert ctx.ops == [{"op": "add", "path": "/capabilities/extensions", "value": []},
                       {"op": "add", "path": "/capabilities/extensions/0", "value": {"uri": "https://x.example"}}]


def test_editing_methods_edit_without_recording_when_not_asked() -> None:
    card: dict[str, Any] = {"a": 1, "b": [1, 2]}
    ctx = Context()
    ctx.rename(card, "a", "c", at="")
    ctx.set_items(card["b"], [3], at="/b")
    ctx.insert_at(card, 0, "d", {}, at="")
    assert list(card.items()) == [("d", {}), ("c", 1), ("b", [3])]
    assert ctx.ops is None


def test_patch_false_records_nothing_and_gives_the_same_card() -> None:
    card = json.loads((GOLDEN / "explicit-nulls.0.3.json").read_text("utf-8"))
    with_patch = a2a_migrate.upgrade(card)
    without = a2a_migrate.upgrade(card, patch=False)
    assert with_patch.patch and without.patch == [] and without.changes == []
    assert without.card == with_patch.card
    assert without.changed and with_patch.changed
    assert [note.as_dict() for note in without.notes] == [note.as_dict() for note in with_patch.notes]
    down_with = a2a_migrate.downgrade(with_patch.card)
    down_without = a2a_migrate.downgrade(with_patch.card, patch=False)
    assert down_without.patch == [] and down_without.card == down_with.card and down_with.patch


def test_operation_values_are_json_whatever_the_card_holds() -> None:
    """A YAML card's values (ruamel scalars, timestamps, a number as a key) go into operations as JSON."""
    document = io.parse("a: 'quoted'\nb: 2024-01-01\nc: {1: x, y: [1.5, true, null]}\n", "card.yaml")
    for key in ("a", "b", "c"):
        assert json.dumps(io.json_copy(document.data[key])) == json.dumps(plain(document.data[key]))
    assert io.json_copy(document.data["b"]) == "2024-01-01"
    assert io.json_copy(document.data["c"]) == {"1": "x", "y": [1.5, True, None]}
    assert type(io.json_copy(document.data["a"])) is str


def test_recipe_steps_and_the_signatures_after_them_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """Recipe steps record their edits, and so does the signatures transform that runs after them to drop
    the signatures they invalidated: no copy is diffed, and the whole patch still gives the output."""
    from a2a_migrate import engine, recipes

    diffs: list[Any] = []

    def counted(before: Any, after: Any) -> list[dict[str, Any]]:
        diffs.append(after)
        return DIFF(before, after)

    monkeypatch.setattr(engine, "diff", counted)
    recipe = recipes.load(str(GOLDEN / "recipes" / "set-member.recipe.yaml"))
    card = {**copy.deepcopy(CARD_V1), "signatures": [{"protected": "eyJraWQiOiJrLTEifQ", "signature": "c2ln"}]}
    result = migrate_in_place(copy.deepcopy(card), "up", Options(recipes=(recipe,)))
    assert result.ok
    assert applied(card, result.patch) == plain(result.card)
    labels = [change.transform for change in result.changes]
    assert labels[-1] == "signatures" and result.changes[-1].op == {"op": "remove", "path": "/signatures"}
    assert any(label.startswith("recipe:") for label in labels)
    assert diffs == []


def test_an_edit_that_changes_nothing_records_no_operation() -> None:
    """A hybrid card downgraded: its 0.3 members are written again with the values they have (a plan would
    show a replace that does nothing); a value of another type is a change, however equal in Python."""
    text = read(GOLDEN / "hybrid-card.0.3.json")
    start, result = migrate(text, "hybrid-card.0.3.json", "down", Options())
    state = start
    for change in result.changes:
        after = applied(state, [change.op])
        assert after != state, change
        state = after
    ctx = Context(ops=[])
    card: dict[str, Any] = {"a": [1], "b": 1, "c": {"x": [True]}}
    ctx.set(card, "a", [1], at="")
    ctx.set(card, "b", True, at="")
    ctx.set(card, "c", {"x": [1]}, at="")
    assert ctx.ops == [{"op": "replace", "path": "/b", "value": True},
                       {"op": "replace", "path": "/c", "value": {"x": [1]}}]

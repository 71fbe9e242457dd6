"""The apply command and the in-place RFC 6902 applier.

A reviewer edits the plan: deleted operations are not applied and apply names
their transform; a card changed after planning is refused unless --force, which
applies what still applies and reports the rest; a failing operation is named;
the result is validated; formatting (layout, key order, YAML comments) is kept.
"""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import jsonpatch
import pytest
from click.testing import CliRunner, Result

from a2a_migrate import cli, io
from a2a_migrate.applying import review
from a2a_migrate.patching import PatchError, Patcher, json_equal
from a2a_migrate.batch import Job, migrate_text
from a2a_migrate.context import Options

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
STH = "/capabilities/stateTransitionHistory"


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli.main, list(args))


def make_plan(tmp_path: Path, source: str, name: str = "agent-card.json") -> tuple[Path, Path]:
    card = tmp_path / name
    shutil.copyfile(GOLDEN / source, card)
    plan_file = tmp_path / "plan.json"
    result = invoke("plan", str(card), "-o", str(plan_file))
    assert result.exit_code == 0, result.output
    return card, plan_file


def edit_plan(plan_file: Path, keep: Any) -> None:
    """Keep only the patch operations for which ``keep(op)`` is true, as a reviewer would."""
    data = json.loads(plan_file.read_text("utf-8"))
    for card in data["cards"]:
        card["patch"] = [op for op in card["patch"] if keep(op)]
    plan_file.write_text(json.dumps(data, indent=2), "utf-8")


def upgraded(text: str, name: str) -> str:
    return migrate_text(text, name, Job("up")).new_text


# -- a reviewer's edits ----------------------------------------------------------------------


def test_dropping_one_transform_leaves_exactly_that_part(tmp_path: Path) -> None:
    card, plan_file = make_plan(tmp_path, "state-transition-history-dropped.0.3.json")
    original = card.read_text("utf-8")
    edit_plan(plan_file, lambda op: op["path"] != STH)
    result = invoke("apply", str(plan_file))
    assert result.exit_code == 0, result.output
    assert f"{card}:11:5: warning: [state_transition_history] {STH}: left out by the reviewer: 1 operation" in result.stderr
    assert "left out by the reviewer: state_transition_history (1 card)" in result.stderr.splitlines()[-1]
    written = card.read_text("utf-8")
    expected = json.loads(upgraded(original, card.name))
    expected["capabilities"]["stateTransitionHistory"] = json.loads(original)["capabilities"]["stateTransitionHistory"]
    assert json.loads(written) == expected
    # exactly that part untouched: the line is the original's, the rest is upgrade's text
    line = next(line for line in original.splitlines() if "stateTransitionHistory" in line)
    assert line.rstrip(",") in written.splitlines() or line in written.splitlines()
    without = [l for l in written.splitlines() if "stateTransitionHistory" not in l]
    assert [l.rstrip(",") for l in without] == [l.rstrip(",") for l in upgraded(original, card.name).splitlines()]


def test_dropping_one_transform_in_yaml_keeps_comments(tmp_path: Path) -> None:
    card, plan_file = make_plan(tmp_path, "yaml-comments.0.3.yaml", "agent-card.yaml")
    original = card.read_text("utf-8")
    edit_plan(plan_file, lambda op: op["path"] != STH)
    result = invoke("apply", str(plan_file))
    assert result.exit_code == 0, result.output
    written = card.read_text("utf-8")
    for line in original.splitlines():
        if line.lstrip().startswith("#") or "stateTransitionHistory" in line:
            assert line in written.splitlines(), f"lost: {line!r}"
    expected_lines = upgraded(original, card.name).splitlines()
    assert [l for l in written.splitlines() if "stateTransitionHistory" not in l] == expected_lines


def test_edited_and_added_operations_are_reported(tmp_path: Path) -> None:
    card, plan_file = make_plan(tmp_path, "protocol-version-0-3-0.0.3.json")
    data = json.loads(plan_file.read_text("utf-8"))
    ops = data["cards"][0]["patch"]
    version = next(op for op in ops if op["op"] == "replace" and op["path"].endswith("/protocolVersion"))
    version["value"] = "1.0"
    ops.append({"op": "add", "path": "/documentationUrl", "value": "https://example.com/docs"})
    plan_file.write_text(json.dumps(data), "utf-8")
    result = invoke("apply", str(plan_file))
    assert result.exit_code == 0, result.output
    assert "[interface_protocol_version]" in result.stderr and "edited by the reviewer: 1 operation" in result.stderr
    assert "[reviewer] /documentationUrl: not in the plan: 1 operation (add /documentationUrl)" in result.stderr
    written = json.loads(card.read_text("utf-8"))
    assert written["supportedInterfaces"][0]["protocolVersion"] == "1.0"
    assert written["documentationUrl"] == "https://example.com/docs"


def test_review_matches_planned_operations() -> None:
    planned = [("a", {"op": "remove", "path": "/x"}), ("b", {"op": "add", "path": "/y", "value": 1}),
               ("c", {"op": "remove", "path": "/z"})]
    matched = review(planned, [{"op": "add", "path": "/y", "value": 2}, {"op": "remove", "path": "/x"},
                               {"op": "remove", "path": "/w"}])
    assert matched.transforms == ["b", "a", "reviewer"]
    assert matched.left_out == [("c", {"op": "remove", "path": "/z"})]
    assert matched.edited == [("b", {"op": "add", "path": "/y", "value": 1})]
    assert matched.added == [2]


# -- a card that changed, an operation that does not apply ------------------------------------


def test_card_changed_after_planning_is_refused(tmp_path: Path) -> None:
    card, plan_file = make_plan(tmp_path, "hybrid-card.0.3.json")
    changed = card.read_text("utf-8").replace('"Hotel', '"Grand Hotel', 1)
    assert changed != card.read_text("utf-8")
    card.write_text(changed, "utf-8")
    result = invoke("apply", str(plan_file))
    assert result.exit_code == 123
    assert "changed since the plan was made" in result.stderr and "--force" in result.stderr
    assert card.read_text("utf-8") == changed
    assert "1 failed" in result.stderr.splitlines()[-1]


def test_force_applies_what_still_applies_and_reports_the_rest(tmp_path: Path) -> None:
    card, plan_file = make_plan(tmp_path, "state-transition-history-dropped.0.3.json")
    data = json.loads(card.read_text("utf-8"))
    del data["capabilities"]["stateTransitionHistory"]  # someone removed it by hand meanwhile
    card.write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    refused = invoke("apply", str(plan_file))
    assert refused.exit_code == 123
    result = invoke("apply", "--force", str(plan_file))
    assert result.exit_code == 0, result.output
    assert "applied anyway (--force)" in result.stderr
    assert (f"[state_transition_history] {STH}: not applied (--force): operation" in result.stderr
            and f"(remove {STH}) does not apply: {STH} does not exist" in result.stderr)
    written = json.loads(card.read_text("utf-8"))
    assert "supportedInterfaces" in written and "url" not in written
    assert written == json.loads(upgraded(json.dumps(data, indent=2) + "\n", card.name))


def test_a_patch_that_no_longer_applies_names_the_operation(tmp_path: Path) -> None:
    card, plan_file = make_plan(tmp_path, "protocol-version-0-3-0.0.3.json")
    original = card.read_text("utf-8")
    # the reviewer drops the interfaces but keeps the operation that edits them
    edit_plan(plan_file, lambda op: op["path"] != "/supportedInterfaces")
    result = invoke("apply", str(plan_file))
    assert result.exit_code == 123
    assert "error: [interface_protocol_version] /supportedInterfaces/0/protocolVersion: operation" in result.stderr
    assert "(replace /supportedInterfaces/0/protocolVersion) does not apply: /supportedInterfaces does not exist" in result.stderr
    assert card.read_text("utf-8") == original


def test_an_invalid_result_is_not_written(tmp_path: Path) -> None:
    card, plan_file = make_plan(tmp_path, "protocol-version-0-3-0.0.3.json")
    original = card.read_text("utf-8")
    data = json.loads(plan_file.read_text("utf-8"))
    data["cards"][0]["patch"].append({"op": "remove", "path": "/name"})
    plan_file.write_text(json.dumps(data), "utf-8")
    result = invoke("apply", str(plan_file))
    assert result.exit_code == 123
    assert "[validate]" in result.stderr and "not a valid 1.0 card" in result.stderr
    assert card.read_text("utf-8") == original


def test_unreadable_plans_are_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "plan.json").write_text("{}", "utf-8")
    assert invoke("apply", str(tmp_path / "plan.json")).exit_code == 2
    assert invoke("apply", str(tmp_path / "missing.json")).exit_code == 2
    assert invoke("apply").exit_code == 2


def test_quiet_and_verbose(tmp_path: Path) -> None:
    card, plan_file = make_plan(tmp_path, "protocol-version-0-3-0.0.3.json")
    backup = card.read_text("utf-8")
    verbose = invoke("apply", "-v", str(plan_file))
    assert verbose.exit_code == 0 and "info: [apply]" in verbose.stderr and "operations applied" in verbose.stderr
    card.write_text(backup, "utf-8")
    quiet = invoke("apply", "-q", str(plan_file))
    assert quiet.exit_code == 0 and quiet.stderr == ""


# -- apply --patch ------------------------------------------------------------------------------


def test_apply_a_plain_patch_to_one_card(tmp_path: Path) -> None:
    card = tmp_path / "agent.yaml"
    shutil.copyfile(GOLDEN / "yaml-comments.0.3.yaml", card)
    original = card.read_text("utf-8")
    patch_file = tmp_path / "patch.json"
    result = invoke("upgrade", "--patch", str(card))
    patch_file.write_text(result.stdout, "utf-8")
    applied = invoke("apply", "--patch", str(patch_file), str(card))
    assert applied.exit_code == 0, applied.output
    assert json.loads(json.dumps(io.read(card).original)) == io.parse(upgraded(original, card.name), card.name).original
    assert "# what the server can do" in card.read_text("utf-8")


def test_apply_patches_keyed_by_path(tmp_path: Path) -> None:
    for name in ("a.agent-card.json", "b.agent-card.json"):
        shutil.copyfile(GOLDEN / "protocol-version-0-3-0.0.3.json", tmp_path / name)
    patches = json.loads(invoke("upgrade", "--patch", str(tmp_path)).stdout)
    (tmp_path / "patches.json").write_text(json.dumps(patches), "utf-8")
    result = invoke("apply", "--patch", str(tmp_path / "patches.json"))
    assert result.exit_code == 0, result.output
    assert "2 cards applied" in result.stderr
    assert invoke("apply", "--patch", str(tmp_path / "patches.json"), "other.json").exit_code == 2


def test_apply_patch_usage_errors(tmp_path: Path) -> None:
    (tmp_path / "p.json").write_text("[]", "utf-8")
    assert invoke("apply", "--patch", str(tmp_path / "p.json")).exit_code == 2
    (tmp_path / "q.json").write_text("3", "utf-8")
    assert invoke("apply", "--patch", str(tmp_path / "q.json"), "x").exit_code == 2


# -- the in-place applier ---------------------------------------------------------------------------


def apply_ops(doc: dict[str, Any], ops: list[dict[str, Any]]) -> dict[str, Any]:
    Patcher(doc).apply(ops)
    return doc


def test_rfc6902_appendix_a_examples() -> None:
    assert apply_ops({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}]) == {"foo": "bar", "baz": "qux"}
    assert apply_ops({"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}]) == {"foo": ["bar", "qux", "baz"]}
    assert apply_ops({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}]) == {"foo": "bar"}
    assert apply_ops({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}]) == {"foo": ["bar", "baz"]}
    assert apply_ops({"baz": "qux", "foo": "bar"}, [{"op": "replace", "path": "/baz", "value": "boo"}]) == {"baz": "boo", "foo": "bar"}
    moved = apply_ops({"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
                      [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}])
    assert moved == {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}
    assert apply_ops({"foo": ["all", "grass", "cows", "eat"]}, [{"op": "move", "from": "/foo/1", "path": "/foo/3"}]) == {
        "foo": ["all", "cows", "eat", "grass"]}
    assert apply_ops({"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}]) == {"foo": ["bar", ["abc", "def"]]}
    assert apply_ops({"a/b": 1, "m~n": 2}, [{"op": "copy", "from": "/a~1b", "path": "/m~0n"}]) == {"a/b": 1, "m~n": 1}
    assert apply_ops({"baz": "qux", "foo": ["a", 2, "c"]}, [{"op": "test", "path": "/foo", "value": ["a", 2.0, "c"]}])


@pytest.mark.parametrize(("doc", "op", "reason"), [
    ({"baz": "qux"}, {"op": "test", "path": "/baz", "value": "bar"}, "not the one the test expects"),
    ({"foo": "bar"}, {"op": "add", "path": "/baz/bat", "value": "qux"}, "/baz does not exist"),
    ({"foo": [1]}, {"op": "add", "path": "/foo/2", "value": 3}, "past the end"),
    ({"foo": [1]}, {"op": "replace", "path": "/foo/01", "value": 3}, "not an array index"),
    ({"foo": 1}, {"op": "remove", "path": "/bar"}, "/bar does not exist"),
    ({"foo": {}}, {"op": "move", "from": "/foo", "path": "/foo/x"}, "into itself"),
    ({"foo": 1}, {"op": "frobnicate", "path": "/foo"}, "unknown op"),
    ({"foo": 1}, {"op": "add", "path": "/bar"}, "needs a 'value'"),
    ({"foo": 1}, {"op": "test", "path": "/foo", "value": True}, "not the one the test expects"),
])
def test_failing_operations_are_named_and_change_nothing(doc: dict[str, Any], op: dict[str, Any], reason: str) -> None:
    before = copy.deepcopy(doc)
    with pytest.raises(PatchError, match=reason) as caught:
        Patcher(doc).apply([{"op": "test", "path": "", "value": before}, op])
    assert caught.value.index == 1
    assert doc == before


def test_a_failed_move_puts_the_value_back() -> None:
    doc = {"a": {"x": 1, "y": 2}, "b": [1]}
    skipped = Patcher(doc).apply([{"op": "move", "from": "/a/x", "path": "/b/5"}], skip_failures=True)
    assert len(skipped) == 1 and doc == {"a": {"x": 1, "y": 2}, "b": [1]} and list(doc["a"]) == ["x", "y"]


def test_member_order_is_kept() -> None:
    doc = {"a": 1, "b": 2, "c": 3}
    apply_ops(doc, [{"op": "replace", "path": "/b", "value": 9}, {"op": "move", "from": "/a", "path": "/z"},
                    {"op": "add", "path": "/d", "value": 4}])
    assert list(doc) == ["z", "b", "c", "d"]


def test_json_equality() -> None:
    assert json_equal({"a": [1, 2.0]}, {"a": [1.0, 2]})
    assert not json_equal(1, True) and not json_equal(0, False) and not json_equal(None, False)
    assert not json_equal({"a": 1}, {"a": 1, "b": 2})


@pytest.mark.parametrize("source", sorted(GOLDEN.glob("*.0.3.json")), ids=lambda p: p.name)
def test_applier_agrees_with_jsonpatch(source: Path) -> None:
    text = source.read_text("utf-8")
    options_file = source.with_name(source.name.replace(".0.3.json", ".options.json"))
    options = Options(**json.loads(options_file.read_text("utf-8"))) if options_file.exists() else Options()
    outcome = migrate_text(text, source.name, Job("up", options, record=True))
    assert outcome.status != "failed"
    ours = apply_ops(json.loads(text), outcome.patch)
    assert ours == jsonpatch.apply_patch(json.loads(text), outcome.patch)


def test_a_replaced_object_hands_its_members_comments_to_the_new_value() -> None:
    """``replace`` of a whole YAML object: a member that comes back inside the new value keeps its comment
    and quoting, as for a removed one (the security_schemes transform replaces a scheme whole)."""
    text = "schemes:\n  key:  # issued by the portal\n    type: apiKey\n    in: 'header'  # no query keys\n"
    document = io.parse(text, "card.yaml")
    Patcher(document.data).apply([{"op": "replace", "path": "/schemes/key",
                                   "value": {"apiKeySecurityScheme": {"location": "header"}}}])
    assert document.render() == ("schemes:\n  key:  # issued by the portal\n    apiKeySecurityScheme:\n"
                                 "      location: 'header'  # no query keys\n")

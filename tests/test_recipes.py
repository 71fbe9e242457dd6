"""Recipes (issue 13): golden pairs per step kind, idempotence, errors, CLI, plan-edit-apply.

``golden/recipes/<case>.recipe.(yaml|json)`` is applied to ``base.in.json`` and
``base.in.yaml`` (with comments) by ``transform``; the result must be exactly
``<case>.out.json`` / ``<case>.out.yaml``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonpatch
import pytest
from click.testing import CliRunner, Result

from a2a_migrate import cli, recipes
from a2a_migrate.api import migrate_in_place
from a2a_migrate.batch import Job, Outcome, migrate_text
from a2a_migrate.context import Context, Options
from golden_support import parse_plain, read

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "golden" / "recipes"
CASES = sorted(path.name.split(".recipe.")[0] for path in FOLDER.glob("*.recipe.*"))
KINDS_COVERED = {"rewrite_urls", "add_interface", "remove_interfaces", "pin_protocol_version", "set", "merge",
                 "remove", "skills", "set_provider", "set_documentation_url", "set_icon_url", "add_extension",
                 "remove_extension"}

CARD_03 = {
    "name": "Weather", "description": "Forecasts.", "version": "1.0.0",
    "url": "http://localhost:8000/a2a", "protocolVersion": "0.3.0",
    "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "forecast", "name": "Forecast", "description": "Daily.", "tags": ["weather"]}],
}
GATEWAY = """\
- step: rewrite_urls
  prefix: http://localhost:8000
  to: https://agents.example.com/weather
- name: public 1.0 endpoint
  step: add_interface
  url: https://agents.example.com/weather/v1
  binding: JSONRPC
  protocol_version: "1.0"
"""


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli.main, list(args))


def recipe_file(case: str) -> Path:
    return next(FOLDER.glob(f"{case}.recipe.*"))


def transformed(text: str, name: str, recipe: recipes.Recipe) -> Outcome:
    return migrate_text(text, name, Job("up", Options(recipes=(recipe,), version_chain=False), record=True))


# -- golden pairs ------------------------------------------------------------------------


def test_every_step_kind_has_a_golden_case() -> None:
    used = {step.KIND for case in CASES for step in recipes.load(str(recipe_file(case))).steps}
    assert used == KINDS_COVERED == set(recipes.KINDS)


@pytest.mark.parametrize("ext", ["json", "yaml"])
@pytest.mark.parametrize("case", CASES)
def test_golden_recipe(case: str, ext: str) -> None:
    recipe = recipes.load(str(recipe_file(case)))
    source, expected = read(FOLDER / f"base.in.{ext}"), read(FOLDER / f"{case}.out.{ext}")
    outcome = transformed(source, f"card.{ext}", recipe)
    assert outcome.status == "changed", outcome.error
    assert outcome.new_text == expected  # YAML comments and JSON layout kept
    assert not [note for note in outcome.notes if note.severity == "error"]
    labels = {step.name for step in recipe.steps}
    assert {change.transform for change in outcome.changes} <= labels
    patched = jsonpatch.apply_patch(parse_plain(source, f"x.{ext}"), outcome.patch)
    assert patched == parse_plain(expected, f"x.{ext}")
    again = transformed(expected, f"card.{ext}", recipe)  # idempotent: a second run changes nothing
    assert again.status == "unchanged" and not again.changes


def test_every_replaced_or_removed_value_has_a_lossy_note_at_its_place() -> None:
    outcome = transformed(read(FOLDER / "base.in.json"), "card.json", recipes.load(str(recipe_file("skills-keep"))))
    assert [(n.severity, n.transform, n.pointer) for n in outcome.notes if n.severity != "info"] == [
        ("lossy", f"recipe:{recipe_file('skills-keep')}#1", "/skills/1")]


# -- with the version chain ------------------------------------------------------------------


def test_recipe_after_upgrade_gives_a_public_gateway_and_a_1_0_interface(tmp_path: Path) -> None:
    path = tmp_path / "gateway.yaml"
    path.write_text(GATEWAY, "utf-8")
    result = migrate_in_place(json.loads(json.dumps(CARD_03)), "up", Options(recipes=(recipes.load(str(path)),)))
    assert result.ok, result.notes
    assert result.card["supportedInterfaces"] == [
        {"url": "https://agents.example.com/weather/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        {"url": "https://agents.example.com/weather/v1", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]
    assert [c.transform for c in result.changes][-2:] == [f"recipe:{path}#1", "public 1.0 endpoint"]
    second = migrate_in_place(json.loads(json.dumps(result.card)), "up", Options(recipes=(recipes.load(str(path)),)))
    assert not second.changed and not second.changes


def test_a_step_that_drops_a_value_silently_is_caught_by_the_conservation_check() -> None:
    class Silent(recipes.Step):
        def apply(self, card: Any, ctx: Context) -> None:
            del card["provider"]

    card = {**json.loads(read(FOLDER / "base.in.json"))}
    result = migrate_in_place(card, "up", Options(version_chain=False, recipes=(recipes.Recipe("x", (Silent("silent"),)),)))
    assert not result.ok
    assert {(n.transform, n.pointer) for n in result.notes if n.severity == "error"} == {
        ("conservation", "/provider/organization"), ("conservation", "/provider/url")}


def _run_recipe(card: dict[str, Any], recipe: str) -> Any:
    return migrate_in_place(card, "up", Options(version_chain=False, recipes=(recipes.parse(recipe, "r.json"),)))


def test_values_compare_as_json_values_true_is_no_1() -> None:
    card = json.loads(read(FOLDER / "base.in.json"))
    card["capabilities"] = {"streaming": True}
    result = _run_recipe(card, '[{"step": "set", "pointer": "/capabilities/streaming", "value": 1}]')
    assert result.card["capabilities"]["streaming"] == 1 and type(result.card["capabilities"]["streaming"]) is int
    assert [(n.severity, n.pointer) for n in result.notes if n.transform.startswith("recipe")] == [
        ("lossy", "/capabilities/streaming")]
    card = json.loads(read(FOLDER / "base.in.json"))
    card["skills"][0]["x"] = True
    kept = _run_recipe(card, '[{"step": "skills", "drop": {"where": {"pointer": "/x", "equals": 1}}}]')
    assert len(kept.card["skills"]) == len(card["skills"])


def test_the_cards_own_url_keeps_a_custom_binding_for_rewrites() -> None:
    card = {**CARD_03, "preferredTransport": "KAFKA"}
    recipe = recipes.parse('[{"step": "rewrite_urls", "prefix": "%s", "to": "https://gw.example", "binding": "KAFKA"}]'
                           % CARD_03["url"], "r.json")
    result = migrate_in_place(json.loads(json.dumps(card)), "down", Options(version_chain=False, recipes=(recipe,)))
    assert result.card["url"].startswith("https://gw.example"), result.notes


def test_a_version_written_as_a_yaml_number_is_refused_with_the_cure() -> None:
    with pytest.raises(recipes.RecipeError, match=r'1.0 is not a protocol version such as "0.3" or "1.0" \(quote it'):
        recipes.parse("- step: pin_protocol_version\n  version: 1.0\n", "pin.yaml")


def test_a_rewrite_that_would_rewrite_its_own_result_is_refused() -> None:
    step = recipes.parse('[{"step": "rewrite_urls", "prefix": "https://a.example", "to": "https://a.example/v2"}]',
                         "loop.json")
    card = json.loads(read(FOLDER / "base.in.json"))
    card["supportedInterfaces"][0]["url"] = "https://a.example/x"
    result = migrate_in_place(card, "up", Options(version_chain=False, recipes=(step,)))
    assert [(n.severity, n.pointer) for n in result.notes if n.severity == "error"] == [
        ("error", "/supportedInterfaces/0/url")]


def test_signatures_a_recipe_invalidates_are_dropped() -> None:
    card = json.loads(read(FOLDER / "base.in.json"))
    card["signatures"] = [{"protected": "e30", "signature": "abc"}]
    recipe = recipes.load(str(recipe_file("card-members")))
    result = migrate_in_place(card, "up", Options(version_chain=False, recipes=(recipe,)))
    assert "signatures" not in result.card
    assert ("lossy", "signatures", "/signatures/0") in {(n.severity, n.transform, n.pointer) for n in result.notes}


def test_a_step_needing_a_1_0_card_says_so_on_a_0_3_card() -> None:
    recipe = recipes.load(str(recipe_file("remove-interfaces")))
    result = migrate_in_place(json.loads(json.dumps(CARD_03)), "up", Options(version_chain=False, recipes=(recipe,)))
    assert [(n.severity, n.pointer) for n in result.notes] == [("error", "/supportedInterfaces")]
    assert "needs a 1.0 card" in result.notes[0].message


def test_add_interface_on_a_0_3_card_lists_the_primary_first_and_is_idempotent() -> None:
    recipe = recipes.parse('[{"step": "add_interface", "url": "https://gw.example.com/grpc", "binding": "grpc", '
                           '"protocol_version": "0.3"}]', "grpc.json")
    result = migrate_in_place(json.loads(json.dumps(CARD_03)), "up", Options(version_chain=False, recipes=(recipe,)))
    assert result.ok, result.notes
    assert list(result.card)[list(result.card).index("url") + 1] == "additionalInterfaces"
    assert result.card["additionalInterfaces"] == [{"url": "http://localhost:8000/a2a", "transport": "JSONRPC"},
                                                   {"url": "https://gw.example.com/grpc", "transport": "GRPC"}]
    again = migrate_in_place(result.card, "up", Options(version_chain=False, recipes=(recipe,)))
    assert not again.changed


def test_a_0_3_card_cannot_be_given_a_1_0_interface() -> None:
    recipe = recipes.load(str(recipe_file("add-interface")))  # protocol 1.0, with a tenant
    result = migrate_in_place(json.loads(json.dumps(CARD_03)), "up", Options(version_chain=False, recipes=(recipe,)))
    assert [(n.severity, n.pointer) for n in result.notes] == [("error", "/additionalInterfaces")]
    assert "a 0.3 card cannot list an interface that has a tenant" in result.notes[0].message


# -- mistakes in recipes -------------------------------------------------------------------------

MISTAKES = [
    ("unknown-kind", '[{"step": "rename_everything"}]', 'step 1: step: "rename_everything" is not a step kind'),
    ("no-kind", '[{"url": "x"}]', "step 1: step: null is not a step kind"),
    ("not-a-mapping", '["set"]', "step 1: must be a mapping"),
    ("unknown-field", '[{"step": "set_icon_url", "url": "u", "uri": "u"}]', "step 1 (set_icon_url): uri: unknown field"),
    ("missing-field", '[{"step": "set", "pointer": "/x"}]', "step 1 (set): value: missing (required)"),
    ("wrong-type", '[{"step": "add_extension", "uri": "u", "required": "yes"}]',
     "step 1 (add_extension): required: must be true or false"),
    ("bad-regex", '[{"step": "rewrite_urls", "pattern": "(", "to": "x"}]', "step 1 (rewrite_urls): pattern: not a regular"),
    ("both-prefix-and-pattern", '[{"step": "rewrite_urls", "prefix": "a", "pattern": "b", "to": "x"}]',
     "step 1 (rewrite_urls): prefix: give exactly one of prefix and pattern"),
    ("bad-pointer", '[{"step": "remove", "pointer": "skills"}]', "step 1 (remove): pointer: \"skills\" is not a JSON pointer"),
    ("bad-version", '[{"step": "pin_protocol_version", "version": "latest"}]',
     'step 1 (pin_protocol_version): version: "latest" is not a protocol version'),
    ("bad-rule", '[{"step": "remove_interfaces", "match": {"transport": "GRPC"}}]',
     'step 1 (remove_interfaces): match: unknown member "transport"'),
    ("empty-rule", '[{"step": "remove_interfaces", "match": {}}]', "step 1 (remove_interfaces): match: must name"),
    ("keep-and-drop", '[{"step": "skills", "keep": {"ids": ["a"]}, "drop": {"ids": ["b"]}}]',
     "step 1 (skills): keep: give exactly one of keep and drop"),
    ("bad-where", '[{"step": "skills", "drop": {"where": {"pointer": "/id"}}}]', "step 1 (skills): drop: /where: must be"),
    ("bad-name", '[{"step": "remove", "pointer": "/x", "name": 3}]', "step 1 (remove): name: must be a non-empty string"),
    ("second-step", '[{"step": "remove", "pointer": "/x"}, {"step": "set"}]', "step 2 (set): pointer: missing"),
    ("no-steps", '{"steps": []}', "a recipe is a non-empty list of steps"),
    ("unknown-top", '{"stepz": []}', "stepz: unknown member"),
    ("not-json", '[{"step": ', "line 1 column 11: not valid JSON"),
]


@pytest.mark.parametrize("text, message", [m[1:] for m in MISTAKES], ids=[m[0] for m in MISTAKES])
def test_recipe_mistakes_are_named(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(text, "utf-8")
    with pytest.raises(recipes.RecipeError) as raised:
        recipes.load(str(path))
    assert str(raised.value).startswith(f"{path}: ") and message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_yaml_mistakes_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("- step: set\n  pointer: [\n", "utf-8")
    with pytest.raises(recipes.RecipeError, match=r"bad.yaml: line \d+ column \d+: not valid YAML"):
        recipes.load(str(path))


@pytest.mark.parametrize("text, where", [
    ("- step: set\n  pointer: /released\n  value: 2024-01-01\n", "/0/value"),
    ("- step: merge\n  pointer: /capabilities\n  value: {1: true}\n", "/0/value/1"),
], ids=["yaml-date", "number-key"])
def test_values_no_card_can_hold_are_refused(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "values.yaml"
    path.write_text(text, "utf-8")
    with pytest.raises(recipes.RecipeError, match=f"values.yaml: {where}: not a JSON value"):
        recipes.load(str(path))


@pytest.mark.parametrize("name, text, message", [
    ("values.yaml", "- step: set\n  pointer: /x\n  value: .nan\n", "values.yaml: line 3 column 10: .nan is not a JSON number"),
    ("twice.json", '[{"step": "set_icon_url", "url": "https://one", "url": "https://two"}]',
     "twice.json: duplicate member 'url'"),
    ("bomb.yaml", "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(6)) + "steps: []\n",
     "bomb.yaml: line 4 column 36: YAML aliases expand to more than 10000 nodes"),
], ids=["nan", "duplicate-member", "alias-bomb"])
def test_recipes_are_read_with_the_cards_limits(tmp_path: Path, name: str, text: str, message: str) -> None:
    path = tmp_path / name
    path.write_text(text, "utf-8")
    with pytest.raises(recipes.RecipeError) as refused:
        recipes.load(str(path))
    assert str(refused.value).startswith(f"{path.parent}/{message}")


def test_a_json_recipe_may_start_with_a_bom(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_text("\ufeff" + '[{"step": "set_icon_url", "url": "https://icons.example/a.png"}]', "utf-8")
    assert [step.KIND for step in recipes.load(str(path)).steps] == ["set_icon_url"]


def test_the_cli_refuses_a_bad_recipe_as_a_usage_error(tmp_path: Path) -> None:
    card = tmp_path / "agent-card.json"
    card.write_text(json.dumps(CARD_03), "utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text("- step: set_provider\n  organization: X\n", "utf-8")
    result = invoke("upgrade", "--recipe", str(bad), str(card))
    assert result.exit_code == 2
    assert f"{bad}: step 1 (set_provider): url: missing (required)" in result.output
    assert "Traceback" not in result.output
    assert json.loads(card.read_text("utf-8")) == CARD_03  # nothing was written
    missing = invoke("transform", "--recipe", str(tmp_path / "none.yaml"), str(card))
    assert missing.exit_code == 2 and "none.yaml: cannot read: No such file or directory" in missing.output


# -- the command line ----------------------------------------------------------------------------


@pytest.fixture()
def gateway(tmp_path: Path) -> tuple[Path, Path]:
    card = tmp_path / "agent-card.json"
    card.write_text(json.dumps(CARD_03, indent=2) + "\n", "utf-8")
    recipe = tmp_path / "gateway.yaml"
    recipe.write_text(GATEWAY, "utf-8")
    return card, recipe


def test_upgrade_with_a_recipe_check_diff_patch_and_report(gateway: tuple[Path, Path], tmp_path: Path) -> None:
    card, recipe = gateway
    before = card.read_text("utf-8")
    check = invoke("upgrade", "--check", "--recipe", str(recipe), str(card))
    assert check.exit_code == 1
    diff = invoke("upgrade", "--diff", "--recipe", str(recipe), str(card))
    assert '+      "url": "https://agents.example.com/weather/v1",' in diff.output
    patch = CliRunner().invoke(cli.main, ["upgrade", "--patch", "-q", "--recipe", str(recipe), str(card)])
    ops = json.loads(patch.stdout)
    assert {"op": "replace", "path": "/supportedInterfaces/0/url", "value": "https://agents.example.com/weather/a2a"} in ops
    report = tmp_path / "report.json"
    assert invoke("upgrade", "--report", str(report), "--recipe", str(recipe), str(card)).exit_code == 0
    entry = json.loads(report.read_text("utf-8"))["cards"][0]
    assert entry["transforms"][-2:] == [f"recipe:{recipe}#1", "public 1.0 endpoint"]
    assert {"severity": "lossy", "transform": f"recipe:{recipe}#1", "pointer": "/supportedInterfaces/0/url",
            "message": 'url "http://localhost:8000/a2a" rewritten to "https://agents.example.com/weather/a2a"',
            "line": 1, "column": 1} in entry["notes"]  # a place the 0.3 input lacks: its nearest ancestor, the root
    assert card.read_text("utf-8") != before
    assert invoke("upgrade", "--check", "--recipe", str(recipe), str(card)).exit_code == 0  # idempotent on disk


def test_transform_keeps_the_version(gateway: tuple[Path, Path]) -> None:
    card, _ = gateway
    recipe = card.parent / "rewrite.yaml"
    recipe.write_text("- step: rewrite_urls\n  prefix: http://localhost:8000\n  to: https://gw.example.com\n", "utf-8")
    result = invoke("transform", "--recipe", str(recipe), str(card))
    assert result.exit_code == 0, result.output
    assert "1 card transformed, 0 unchanged" in result.output
    written = json.loads(card.read_text("utf-8"))
    assert written["url"] == "https://gw.example.com/a2a" and written["protocolVersion"] == "0.3.0"
    assert "supportedInterfaces" not in written
    again = invoke("transform", "--check", "--recipe", str(recipe), str(card))
    assert again.exit_code == 0 and "0 cards would be transformed, 1 unchanged" in again.output


def test_plan_with_a_recipe_applies_exactly_and_after_an_edit(gateway: tuple[Path, Path], tmp_path: Path) -> None:
    card, recipe = gateway
    expected = migrate_text(card.read_text("utf-8"), card.name,
                            Job("up", Options(recipes=(recipes.load(str(recipe)),)))).new_text
    plan_file = tmp_path / "plan.json"
    assert invoke("plan", "--recipe", str(recipe), str(card), "-o", str(plan_file)).exit_code == 0
    data = json.loads(plan_file.read_text("utf-8"))
    assert "public 1.0 endpoint" in {p["transform"] for p in data["cards"][0]["planned"]}
    assert data["options"]["recipes"][0]["path"] == str(recipe)
    original = card.read_text("utf-8")
    applied = invoke("apply", str(plan_file))
    assert applied.exit_code == 0, applied.output
    assert card.read_text("utf-8") == expected
    # a reviewer removes the added interface: everything else still applies
    card.write_text(original, "utf-8")
    data["cards"][0]["patch"] = [op for op in data["cards"][0]["patch"] if op["path"] != "/supportedInterfaces/1"]
    plan_file.write_text(json.dumps(data, indent=2), "utf-8")
    assert invoke("apply", str(plan_file)).exit_code == 0
    written = json.loads(card.read_text("utf-8"))
    assert [i["url"] for i in written["supportedInterfaces"]] == ["https://agents.example.com/weather/a2a"]


def test_corpus_like_folder_with_a_recipe(tmp_path: Path) -> None:
    """Several cards, JSON and YAML, one recipe: every card is handled and counted."""
    for ext in ("json", "yaml"):
        shutil.copyfile(FOLDER / f"base.in.{ext}", tmp_path / f"agent-card.{ext}")
    result = invoke("transform", "--recipe", str(recipe_file("card-members")), str(tmp_path))
    assert result.exit_code == 0 and "2 cards transformed, 0 unchanged" in result.output


def test_recipes_run_in_order_after_a_downgrade(tmp_path: Path) -> None:
    first, second = tmp_path / "first.yaml", tmp_path / "second.json"
    first.write_text("- step: rewrite_urls\n  prefix: http://localhost:8000\n  to: https://gw.example.com\n", "utf-8")
    second.write_text('[{"step": "set_documentation_url", "url": "https://gw.example.com/docs"}]', "utf-8")
    card = json.loads(read(FOLDER / "base.in.json"))
    options = Options(recipes=(recipes.load(str(first)), recipes.load(str(second))))
    result = migrate_in_place(card, "down", options)
    assert result.ok, result.notes
    assert result.card["url"] == "https://gw.example.com/a2a" and result.target_version == "0.3"
    assert result.card["additionalInterfaces"][0]["url"] == "https://gw.example.com/a2a"  # 0.3 repeats the primary
    assert list(dict.fromkeys(c.transform for c in result.changes if c.transform.startswith("recipe:"))) == [
        f"recipe:{first}#1", f"recipe:{second}#1"]

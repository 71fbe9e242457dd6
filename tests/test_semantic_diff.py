"""The diff command: a semantic diff of two cards that shows the version mapping's moves as moves."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from a2a_migrate import cli, io
from a2a_migrate.batch import Job, migrate_text
from a2a_migrate.context import Options
from a2a_migrate.semantic_diff import Difference, compare
from shared_support import corpus_files

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
#: Members the version mapping moves into 1.0; none of them may show as a plain removal.
MOVED_BY_MAPPING = ("/url", "/preferredTransport", "/supportsAuthenticatedExtendedCard", "/extensions", "/security")


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli.main, list(args))


def upgrade_pair(source: Path, options: Options | None = None) -> tuple[Any, Any] | None:
    options_file = source.with_name(source.name.split(".0.3.")[0] + ".options.json")
    if options is None:
        options = Options(**json.loads(options_file.read_text("utf-8"))) if options_file.exists() else Options()
    outcome = migrate_text(io.read_text(source), source.name, Job("up", options))
    if outcome.status == "failed":
        return None
    return io.parse(outcome.old_text, source.name).original, io.parse(outcome.new_text, source.name).original


def inputs() -> list[Any]:
    found = [p for p in sorted(GOLDEN.glob("*.0.3.*")) if p.suffix in (".json", ".yaml")]
    found += corpus_files()  # none on a fresh clone: the goldens still run
    return [pytest.param(path, id=path.name) for path in found]


def kinds(differences: list[Difference]) -> set[tuple[str, str, str | None]]:
    return {(d.kind, d.path, d.source) for d in differences}


def test_upgraded_card_shows_the_moves_of_the_mapping() -> None:
    pair = upgrade_pair(GOLDEN / "scheme-apikey.0.3.json")
    assert pair is not None
    found = kinds(compare(*pair))
    assert ("moved", "/supportedInterfaces/0/url", "/url") in found
    assert ("moved", "/supportedInterfaces/0/protocolBinding", "/preferredTransport") in found
    assert ("moved", "/supportedInterfaces/0/protocolVersion", "/protocolVersion") in found
    assert ("moved", "/securityRequirements/0/schemes/apiKey", "/security/0/apiKey") in found
    assert ("moved", "/securitySchemes/apiKey/apiKeySecurityScheme/location", "/securitySchemes/apiKey/in") in found
    assert not any(kind == "removed" and path in ("/url", "/preferredTransport", "/protocolVersion", "/security")
                   for kind, path, _ in found)
    assert not any(kind == "added" and path.startswith("/supportedInterfaces") for kind, path, _ in found)
    version = next(d for d in compare(*pair) if d.source == "/protocolVersion")
    assert (version.old, version.new) == ("0.3.0", "0.3")


@pytest.mark.parametrize("source", inputs())
def test_no_member_the_mapping_moves_shows_as_removed(source: Path) -> None:
    try:
        pair = upgrade_pair(source)
    except io.CardError as error:  # unreadable: nothing to compare, but the error must be one clear line
        assert str(error) and "\n" not in str(error)
        return
    if pair is None:  # refused by upgrade: no upgraded card to compare with
        return
    old, new = pair
    differences = compare(old, new)
    removed = {d.path for d in differences if d.kind == "removed"}
    for member in MOVED_BY_MAPPING:
        if member in old and "supportedInterfaces" not in old:  # a hybrid card's copies are really removed
            assert not any(p == member or p.startswith(member + "/") for p in removed), (member, differences)


def test_moved_whole_values_are_one_move() -> None:
    pair = upgrade_pair(GOLDEN / "top-level-extensions.0.3.json")
    assert pair is not None
    assert ("moved", "/capabilities/extensions", "/extensions") in kinds(compare(*pair))
    oauth = upgrade_pair(GOLDEN / "oauth-three-flows-split.0.3.json")
    assert oauth is not None
    assert ("moved", "/securitySchemes/oauth__implicit/oauth2SecurityScheme/flows/implicit",
            "/securitySchemes/oauth/flows/implicit") in kinds(compare(*oauth))


def test_downgrade_moves_back() -> None:
    source = GOLDEN / "down" / "schemes-and-extended-card.1.0.json"
    outcome = migrate_text(source.read_text("utf-8"), source.name, Job("down"))
    found = kinds(compare(json.loads(outcome.old_text), json.loads(outcome.new_text)))
    assert ("moved", "/supportsAuthenticatedExtendedCard", "/capabilities/extendedAgentCard") in found
    assert ("moved", "/url", "/supportedInterfaces/0/url") in found
    assert ("moved", "/securitySchemes/key/in", "/securitySchemes/key/apiKeySecurityScheme/location") in found


def test_proto_names_are_renames() -> None:
    found = kinds(compare({"default_input_modes": ["text/plain"]}, {"defaultInputModes": ["text/plain"]}))
    assert found == {("moved", "/defaultInputModes", "/default_input_modes")}


def test_plain_changes_additions_and_removals() -> None:
    old = {"name": "A", "version": "1", "skills": [{"id": "x"}], "gone": {"deep": True}}
    new = {"name": "B", "version": "1", "skills": [{"id": "x"}, {"id": "y"}], "iconUrl": "https://i.example/a.png"}
    differences = compare(old, new)
    assert kinds(differences) == {("changed", "/name", None), ("added", "/skills/1", None),
                                  ("added", "/iconUrl", None), ("removed", "/gone", None)}
    assert compare(old, json.loads(json.dumps(old))) == []


def test_cli_text_and_json(tmp_path: Path) -> None:
    old = tmp_path / "old.json"
    shutil.copyfile(GOLDEN / "scheme-apikey.0.3.json", old)
    new = tmp_path / "new.json"
    new.write_text(migrate_text(old.read_text(), "x.json", Job("up")).new_text)
    text = invoke("diff", str(old), str(new))
    assert text.exit_code == 0
    assert f"--- {old} (0.3)" in text.stdout and f"+++ {new} (1.0)" in text.stdout
    assert 'moved    /url -> /supportedInterfaces/0/url: "https://invoices.example.com/a2a"' in text.stdout
    assert 'moved    /protocolVersion -> /supportedInterfaces/0/protocolVersion: "0.3.0" -> "0.3"' in text.stdout
    assert "removed  /url" not in text.stdout
    assert "moved" in text.stderr
    data = json.loads(invoke("diff", "--format", "json", str(old), str(new)).stdout)
    assert data["old"] == {"path": str(old), "version": "0.3"} and data["new"]["version"] == "1.0"
    assert {"kind": "moved", "path": "/supportedInterfaces/0/url", "from": "/url",
            "old": "https://invoices.example.com/a2a", "new": "https://invoices.example.com/a2a"} in data["differences"]
    assert invoke("diff", "--exit-code", str(old), str(new)).exit_code == 1
    same = invoke("diff", "--exit-code", str(old), str(old))
    assert same.exit_code == 0 and same.stdout == "" and "no differences" in same.stderr


def test_cli_errors(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{", "utf-8")
    result = invoke("diff", str(tmp_path / "bad.json"), str(GOLDEN / "scheme-apikey.0.3.json"))
    assert result.exit_code == 123 and "bad.json: error:" in result.stderr
    assert invoke("diff", str(tmp_path / "bad.json")).exit_code == 2


def test_yaml_against_json(tmp_path: Path) -> None:
    result = invoke("diff", str(GOLDEN / "yaml-comments.0.3.yaml"), str(GOLDEN / "yaml-comments.1.0.yaml"))
    assert result.exit_code == 0
    assert "moved    /url -> /supportedInterfaces/0/url" in result.stdout


REPEATED_PRIMARY = {
    "protocolVersion": "0.3.0", "name": "Rep", "description": "An agent", "version": "1.0.0",
    "url": "https://a.example/jsonrpc", "preferredTransport": "JSONRPC",
    "additionalInterfaces": [  # 0.3 recommends repeating the primary interface here
        {"url": "https://a.example/jsonrpc", "transport": "JSONRPC"},
        {"url": "https://a.example/grpc", "transport": "GRPC"},
        {"url": "https://a.example/rest", "transport": "HTTP+JSON"},
    ],
    "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
    "skills": [{"id": "s", "name": "S", "description": "A skill", "tags": ["t"]}],
}


def test_interfaces_pair_by_url_and_binding_when_the_primary_is_repeated(tmp_path: Path) -> None:
    outcome = migrate_text(json.dumps(REPEATED_PRIMARY), "rep.json", Job("up", Options()))
    new = io.parse(outcome.new_text, "rep.json").original
    assert [i["url"] for i in new["supportedInterfaces"]] == [i["url"] for i in REPEATED_PRIMARY["additionalInterfaces"]]
    differences = compare(REPEATED_PRIMARY, new)
    assert not [d for d in differences if d.kind == "removed"], differences
    moves = {d.source: d for d in differences if d.kind == "moved"}
    for index in range(3):  # each interface goes to the one with its URL and binding, unchanged
        for member, target in (("url", "url"), ("transport", "protocolBinding")):
            move = moves[f"/additionalInterfaces/{index}/{member}"]
            assert move.path == f"/supportedInterfaces/{index}/{target}" and move.old == move.new
    assert moves["/url"].path == "/supportedInterfaces/0/url"  # the primary and its repeat are merged
    (tmp_path / "old.json").write_text(json.dumps(REPEATED_PRIMARY), "utf-8")
    (tmp_path / "new.json").write_text(outcome.new_text, "utf-8")
    result = invoke("diff", str(tmp_path / "old.json"), str(tmp_path / "new.json"))
    assert "moved    /additionalInterfaces/2/url -> /supportedInterfaces/2/url: \"https://a.example/rest\"\n" in result.output
    assert "removed" not in result.output and " -> \"https://" not in result.output


def test_interfaces_pair_by_the_binding_they_mean_however_it_is_spelled() -> None:
    card = json.loads(json.dumps(REPEATED_PRIMARY))
    card["additionalInterfaces"][0]["transport"] = "jsonrpc"  # the primary repeated, in another spelling
    new = io.parse(migrate_text(json.dumps(card), "rep.json", Job("up", Options())).new_text, "rep.json").original
    differences = compare(card, new)
    assert not [d for d in differences if d.kind == "removed" and d.path.endswith("/url")], differences
    assert {d.source: d.path for d in differences if d.kind == "moved"}["/additionalInterfaces/0/url"] == (
        "/supportedInterfaces/0/url")


def test_skills_pair_by_id_not_by_position() -> None:
    old = {"skills": [{"id": "a", "name": "A"}, {"id": "b", "name": "B"}, {"id": "c", "name": "C"}]}
    new = {"skills": [{"id": "c", "name": "C2"}, {"id": "b", "name": "B"}]}
    assert kinds(compare(old, new)) == {("removed", "/skills/0", None), ("moved", "/skills/0", "/skills/2"),
                                       ("changed", "/skills/0/name", None)}
    changed = next(d for d in compare(old, new) if d.kind == "changed")
    assert (changed.old, changed.new) == ("C", "C2")
    dropped = compare(old, {"skills": old["skills"][1:]})  # a removal shifts the rest: only the removal shows
    assert kinds(dropped) == {("removed", "/skills/0", None)}


def test_security_requirements_pair_by_scheme_names() -> None:
    old = {"security": [{"oauth": ["read"]}, {"oauth": ["write"]}, {"apiKey": ["any"]}]}
    new = {"securityRequirements": [{"schemes": {"apiKey": {"list": ["any"]}}},
                                    {"schemes": {"oauth": {"list": ["read"]}}}]}
    found = kinds(compare(old, new))
    assert ("moved", "/securityRequirements/1/schemes/oauth/list", "/security/0/oauth") in found
    assert ("moved", "/securityRequirements/0/schemes/apiKey/list", "/security/2/apiKey") in found
    assert {(kind, path) for kind, path, _ in found if kind != "moved"} == {("removed", "/security/1/oauth/0")}


def test_members_without_distinct_identities_fall_back_to_positions() -> None:
    old = {"skills": [{"id": "a", "name": "A"}, {"id": "a", "name": "B"}]}
    new = {"skills": [{"id": "a", "name": "B"}, {"id": "a", "name": "A"}]}
    assert kinds(compare(old, new)) == {("changed", "/skills/0/name", None), ("changed", "/skills/1/name", None)}

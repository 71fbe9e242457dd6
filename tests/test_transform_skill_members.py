from transform_helpers import brief, run

from a2a_migrate.transforms import skill_members
from a2a_migrate.transforms.skill_members import derive_tags, slug


def test_string_skills_become_objects_with_tags() -> None:
    out, notes = run(skill_members, {"skills": ["Web scraping"]})
    assert out["skills"] == [{"id": "web-scraping", "name": "Web scraping", "description": "Web scraping",
                              "tags": ["web", "scraping"]}]
    assert brief(notes) == [("assumed", "/skills/0"), ("assumed", "/skills/0/tags")]


def test_missing_id_comes_from_name_and_tags_after_description() -> None:
    out, _ = run(skill_members, {"skills": [{"name": "Get Weather", "description": "d", "examples": []}]})
    assert list(out["skills"][0]) == ["id", "name", "description", "tags", "examples"]
    assert out["skills"][0]["id"] == "get-weather" and out["skills"][0]["tags"] == ["weather"]


def test_skill_with_neither_id_nor_name_is_refused() -> None:
    _, notes = run(skill_members, {"skills": [{"description": "d"}]})
    assert brief(notes) == [("error", "/skills/0")]


def test_skills_not_a_list_is_refused_and_absent_skills_warned() -> None:
    assert brief(run(skill_members, {"skills": "docs/skills.md"})[1]) == [("error", "/skills")]
    out, notes = run(skill_members, {"name": "A"})
    assert out["skills"] == [] and brief(notes) == [("warning", "/skills")]


def test_complete_skills_are_untouched_and_duplicate_ids_warned() -> None:
    skill = {"id": "a", "name": "A", "description": "d", "tags": ["t"]}
    out, notes = run(skill_members, {"skills": [skill, dict(skill)]})
    assert out == {"skills": [skill, skill]}
    assert brief(notes) == [("warning", "/skills/1/id")]


def test_slug_and_tags() -> None:
    assert slug("  Café Menü! ") == "café-menü"
    assert derive_tags("getWeatherNow", "Get weather") == ["weather", "now"]
    assert derive_tags("save-for-later", "Save the article to a list") == ["save", "later", "article", "list"]


def test_bad_tags_are_dropped_and_good_ones_kept() -> None:
    out, notes = run(skill_members, {"skills": [{"id": "a", "name": "A", "description": "d", "tags": ["keep", None, ""]}]})
    assert out["skills"][0]["tags"] == ["keep"]
    assert brief(notes) == [("lossy", "/skills/0/tags/2"), ("lossy", "/skills/0/tags/1")]


def test_numeric_id_becomes_a_string() -> None:
    out, notes = run(skill_members, {"skills": [{"id": 7, "name": "A", "description": "d", "tags": ["t"]}]})
    assert out["skills"][0]["id"] == "7" and brief(notes) == [("assumed", "/skills/0/id")]


def test_object_examples_become_their_json_text() -> None:
    skill = {"id": "a", "name": "A", "description": "d", "tags": ["t"], "examples": ["hi", {"input": "2+2", "output": "4"}]}
    out, notes = run(skill_members, {"skills": [skill]})
    assert out["skills"][0]["examples"] == ["hi", '{"input": "2+2", "output": "4"}']
    assert brief(notes) == [("assumed", "/skills/0/examples/1")]

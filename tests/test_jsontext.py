"""The JSON writer keeps the source's layout: tested as text."""

from __future__ import annotations

import json

import pytest

from a2a_migrate.jsontext import render


def change(src: str, edit) -> str:
    old = json.loads(src)
    new = json.loads(src)
    edit(new)
    return render(src, old, new)


def rename_url(card):
    url = card.pop("url")
    card["supportedInterfaces"] = [{"url": url}]


def test_unchanged_value_returns_the_source_itself() -> None:
    src = '{ "a" :1,"b":[ 1,2 ] }\n'
    assert render(src, json.loads(src), json.loads(src)) is src


@pytest.mark.parametrize("unit", ["  ", "    ", "\t"])
def test_indentation_unit_is_kept(unit) -> None:
    src = json.dumps({"name": "A", "url": "u"}, indent=unit)
    assert change(src, rename_url) == json.dumps({"name": "A", "supportedInterfaces": [{"url": "u"}]}, indent=unit)


def test_minified_stays_minified() -> None:
    assert change('{"name":"A","url":"u"}', rename_url) == '{"name":"A","supportedInterfaces":[{"url":"u"}]}'


def test_crlf_no_final_newline_and_untouched_neighbours_byte_for_byte() -> None:
    src = '{\r\n  "name":   "A",\r\n  "tags": ["x",  "y"],\r\n  "url": "u"\r\n}'
    out = change(src, rename_url)
    assert out == '{\r\n  "name":   "A",\r\n  "tags": ["x",  "y"],\r\n  "supportedInterfaces": [\r\n    {\r\n      "url": "u"\r\n    }\r\n  ]\r\n}'


def test_escapes_and_raw_non_ascii_are_kept_as_written() -> None:
    src = '{"name": "caf\\u00e9", "d": "日本", "url": "caf\\u00e9"}'
    out = change(src, rename_url)
    assert out == '{"name": "caf\\u00e9", "d": "日本", "supportedInterfaces": [{"url": "caf\\u00e9"}]}'


def test_ascii_only_file_escapes_new_non_ascii() -> None:
    src = '{\n  "name": "caf\\u00e9",\n  "x": 1\n}'
    out = change(src, lambda card: card.update(x="日"))
    assert out == '{\n  "name": "caf\\u00e9",\n  "x": "\\u65e5"\n}'


def test_blank_lines_between_members_survive() -> None:
    src = '{\n  "a": 1,\n\n  "url": "u",\n\n  "b": 2\n}\n'
    assert change(src, rename_url) == '{\n  "a": 1,\n\n  "b": 2,\n  "supportedInterfaces": [\n    {\n      "url": "u"\n    }\n  ]\n}\n'


def test_replacement_of_a_one_line_container_is_one_line() -> None:
    src = '{\n  "security": [{"k": []}],\n  "b": 1\n}'

    def edit(card):
        card.pop("security")
        new = {"securityRequirements": [{"schemes": {"k": {}}}]}
        new.update(card)
        card.clear()
        card.update(new)

    assert change(src, edit) == '{\n  "securityRequirements": [{"schemes": {"k": {}}}],\n  "b": 1\n}'


def test_removed_array_items_and_inline_objects() -> None:
    src = '{"caps": {"streaming": true, "stateTransitionHistory": false}, "modes": ["text", "text/plain"]}'

    def edit(card):
        del card["caps"]["stateTransitionHistory"]
        card["modes"] = ["text/plain"]

    assert change(src, edit) == '{"caps": {"streaming": true}, "modes": ["text/plain"]}'


def test_true_and_one_are_different() -> None:
    src = '{"a": 1}'
    assert change(src, lambda card: card.update(a=True)) == '{"a": true}'

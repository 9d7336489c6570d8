"""Prompt module: placeholders documented and checked, overrides, formatting."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from hyperviz_core.rag.prompts import PLACEHOLDERS, Prompts, template_fields


def test_every_template_formats_with_its_placeholders() -> None:
    p = Prompts()
    for field, allowed in PLACEHOLDERS.items():
        used = template_fields(getattr(p, field))
        assert used <= allowed, field
        values = {name: f"<<{name}>>" for name in allowed}
        text = p.format(field, image=True, **values)
        settings = {"language", "entity_types", "image_note", "image_hint"}
        for name in used - settings:
            assert f"<<{name}>>" in text, (field, name)


def test_required_fields_exist() -> None:
    for field in ("extract_entities", "extract_relations", "gleaning", "theme", "key_entities",
                  "keyword", "locate", "answer", "summarize_description"):
        assert field in PLACEHOLDERS
        assert isinstance(getattr(Prompts(), field), str)


def test_json_examples_survive_format() -> None:
    text = Prompts().format("extract", text="Marie Curie won.")
    assert '"entities"' in text and '"hyperedges"' in text and "Marie Curie won." in text
    assert "{{" not in text


def test_locate_and_answer_mention_ids_and_image_note() -> None:
    p = Prompts()
    with_img = p.format("locate", image=True, query="Q?", contexts="H1: E1, E2", max_ids=5)
    no_img = p.format("locate", image=False, query="Q?", contexts="H1: E1, E2", max_ids=5)
    assert "E#" in with_img and p.image_note.strip() in with_img
    assert p.image_note.strip() not in no_img and "Q?" in no_img
    ans = p.format("answer", image=True, query="Q?", entities="E1 x", hyperedges="H1 [E1]",
                   sources="[1] text")
    for part in ("Q?", "E1 x", "H1 [E1]", "[1] text"):
        assert part in ans


def test_language_override_reaches_prompts() -> None:
    p = Prompts(language="French")
    assert "French" in p.format("extract", text="x")
    assert "French" in p.system_prompt()


def test_override_with_unknown_placeholder_fails_early() -> None:
    with pytest.raises(ValidationError, match="unknown placeholders"):
        Prompts(keyword="Keywords for {question}")
    with pytest.raises(ValidationError):
        Prompts(keyword="broken {")
    ok = Prompts(keyword="Keywords for {query} as JSON")
    assert ok.format("keyword", query="Who?") == "Keywords for Who? as JSON"


def test_missing_values_become_empty_and_unknown_field_raises() -> None:
    assert "Question:" in Prompts().format("keyword")
    with pytest.raises(KeyError):
        Prompts().format("no_such_prompt")


def test_braces_in_values_are_not_interpreted() -> None:
    text = Prompts().format("keyword", query="what is {x} in {0}?")
    assert "what is {x} in {0}?" in text

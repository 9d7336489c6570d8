"""``vizrag query --json`` names an entity's drawn ID ``visual_id``, as a hyperedge's."""

from __future__ import annotations

from pathlib import Path

from hyperviz_core.rag import Document, VizRAG


def test_query_json_names_the_drawn_ids_visual_id_for_entities_too(tmp_path: Path) -> None:
    """Entities had only ``id`` (hyperedges ``visual_id``); a script using the Python name
    failed."""
    import json

    from cli_helpers import run_cli

    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id="a", text="Marie Curie married Pierre Curie in Paris.")])
    code, out, err = run_cli(["query", "Who did Marie Curie marry?", "--store",
                              str(tmp_path / "s"), "--json"])
    assert code == 0, err
    entities = json.loads(out)["entities"]
    assert entities and all(e["visual_id"] == e["id"] for e in entities)

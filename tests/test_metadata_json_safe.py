"""Framework metadata the store cannot hold as JSON is made JSON-safe the same way in every
process, so re-adding an unchanged document is not taken for a change."""

from __future__ import annotations

import datetime
import subprocess
import sys
from pathlib import Path

from hyperviz_core.rag import Document, VizRAG, json_safe_metadata
from hyperviz_core.rag.retrieve.filters import ChunkFilter

_HASH = """
import datetime
from hyperviz_core.rag import Document
class Owner: pass
meta = {"owner": Owner(), "tags": {"b", "a", "c"}, "when": [datetime.date(1903, 1, 2)]}
print(Document(id="d", text="t", metadata=meta).hash)
"""


def test_a_default_repr_and_a_set_hash_the_same_in_two_processes() -> None:
    hashes = {subprocess.run([sys.executable, "-c", _HASH], check=True, capture_output=True,
                             text=True, env={"PYTHONHASHSEED": seed}).stdout.strip()
              for seed in ("1", "2")}
    assert len(hashes) == 1 and "" not in hashes


def test_values_are_converted_one_by_one() -> None:
    meta = json_safe_metadata({"n": {2: datetime.date(1903, 1, 2), "ok": (1, "a")},
                               "s": frozenset({3, 1})})
    assert meta == {"n": {"2": "1903-01-02", "ok": [1, "a"]}, "s": [1, 3]}
    assert Document(id="d", text="t", metadata={"s": {1, 3}}).hash \
        == Document(id="d", text="t", metadata={"s": [1, 3]}).hash


def test_a_datetime_is_stored_in_iso_form_and_filtered_by_iso_string_or_datetime(
        tmp_path: Path) -> None:
    """Guard: a datetime was stored as its ``str()`` ("2024-01-02 03:04:05"), which an ISO
    filter string (``T`` sorts after the space) never reached, and a ``datetime`` filter
    value was refused."""
    created = datetime.datetime(2024, 1, 2, 3, 4, 5)
    assert json_safe_metadata({"at": created}) == {"at": "2024-01-02T03:04:05"}
    assert json_safe_metadata({"t": datetime.time(9, 30)}) == {"t": "09:30:00"}
    with VizRAG(tmp_path / "s") as rag:
        rag.insert([Document(id="oslo", text="Oslo is the capital of Norway.",
                             metadata={"created": created}),
                    Document(id="bergen", text="Bergen is a city in Norway.",
                             metadata={"created": datetime.datetime(2023, 5, 1)})])
        for since in ("2024-01-02T00:00:00", datetime.datetime(2024, 1, 2)):
            flt = ChunkFilter.from_mongo({"created": {"$gte": since}})
            got = rag.retrieve("Norway city capital", mode="naive", filters=flt)
            assert [c.doc_id for c in got.chunks] == ["oslo"]

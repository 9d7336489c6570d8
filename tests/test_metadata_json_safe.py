"""Framework metadata the store cannot hold as JSON is made JSON-safe the same way in every
process, so re-adding an unchanged document is not taken for a change."""

from __future__ import annotations

import datetime
import subprocess
import sys

from hyperviz_core.rag import Document, json_safe_metadata

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

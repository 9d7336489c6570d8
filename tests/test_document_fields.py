"""The core ``Document`` refuses a field it does not have (``source=``, a misspelt
``titel=``): it used to drop it silently, while ``rag.insert([{...}])`` refused the same dict."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from hyperviz_core.rag import Document


def test_an_unknown_field_is_an_error() -> None:
    with pytest.raises(ValidationError, match="source"):
        Document(text="x", source="a.txt")  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="titel"):
        Document.model_validate({"text": "x", "titel": "T"})
    doc = Document(text="x", metadata={"source": "a.txt"})
    assert doc.metadata == {"source": "a.txt"} and doc.id.startswith("doc-")

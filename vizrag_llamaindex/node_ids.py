"""Node ids that stay the same when a document is transformed again.

A LlamaIndex node parser names each node it makes with its ``id_func``, by default a random
UUID. Every run of ``transformations`` (``refresh_ref_docs``, ``update_ref_doc``, a new
``insert`` of the same document) then made new node ids, so the engine took every node for
a new document: it extracted and embedded each again, even for a document whose text had not
changed at all but for its metadata. :func:`stable_node_ids` gives each node whose id is a
random UUID the id ``<document id>#<the first 12 hex digits of its text's SHA-256>`` (a text
repeated in the document: ``-2``, ``-3`` ... after it) and renames the links between the
nodes (previous, next, parent, child) alike. An unchanged passage then keeps its node's id
wherever it moves in the document, so a refreshed document re-embeds only its changed
passages, and a metadata change is written in place
(:mod:`hyperviz_core.rag.index.reuse`). An ``id_func`` of your own (ids that are not UUIDs)
is kept as it is.

Example:
    >>> from llama_index.core import Document
    >>> from llama_index.core.node_parser import SentenceSplitter
    >>> doc = Document(text="Marie Curie worked in Paris. " * 40, id_="curie")
    >>> nodes = SentenceSplitter(chunk_size=64, chunk_overlap=0).get_nodes_from_documents([doc])
    >>> named = stable_node_ids(nodes, ["curie"] * len(nodes))
    >>> named[0].node_id, named[1].node_id
    ('curie#0e26a5c029b7', 'curie#0e26a5c029b7-2')
    >>> named[0].next_node.node_id == named[1].node_id
    True
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Sequence
from hashlib import sha256

from llama_index.core.schema import BaseNode, MetadataMode

__all__ = ["stable_node_ids"]


def stable_node_ids(nodes: Sequence[BaseNode], refs: Sequence[str]) -> Sequence[BaseNode]:
    """``nodes`` (of the documents ``refs``, one per node), each whose id is a random UUID
    renamed after its document and text, and the links between them renamed alike (see
    the module docstring); changed in place, and returned."""
    names: dict[str, str] = {}
    seen: Counter[str] = Counter()
    for ref, node in zip(refs, nodes, strict=True):
        if not _random(node.node_id):
            continue
        text = node.get_content(MetadataMode.NONE).encode("utf-8", "surrogatepass")
        base = f"{ref}#{sha256(text).hexdigest()[:12]}"
        seen[base] += 1
        names[node.node_id] = base if seen[base] == 1 else f"{base}-{seen[base]}"
    if not names:
        return nodes
    for node in nodes:
        node.id_ = names.get(node.node_id, node.node_id)
        for info in node.relationships.values():
            for one in info if isinstance(info, list) else [info]:
                one.node_id = names.get(one.node_id, one.node_id)
    return nodes


def _random(node_id: str) -> bool:
    """Whether ``node_id`` is a random (version 4) UUID, as LlamaIndex's default ids are."""
    try:
        return uuid.UUID(node_id).version == 4
    except ValueError:  # not a UUID
        return False

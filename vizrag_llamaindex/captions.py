"""``ImageCaptionPostprocessor``: keep a rendering's caption for engines that drop it.

LlamaIndex's multimodal chat engines (``MultiModalContextChatEngine``,
``MultiModalCondensePlusContextChatEngine``) send an image node's image and drop its text;
a HyperViz caption is the legend of the image (``E1 = marie curie`` ...), without which the
model cannot tie the labels it sees to entities. This postprocessor adds, after the nodes, one
text node per image node holding its caption (id ``<image id>-caption``, scored like the
image), so the caption reaches the model in the context text. ``VizRAGIndex.as_chat_engine``
adds it to the multimodal engines by itself; add it yourself to one you build.

Example:
    >>> from llama_index.core.schema import NodeWithScore, TextNode
    >>> from vizrag_llamaindex import VizRAGImageNode
    >>> nodes = [NodeWithScore(node=TextNode(text="Ada met Babbage.", id_="n1"), score=0.7),
    ...          NodeWithScore(node=VizRAGImageNode(image="aGk=", text="E1 = ada", id_="img"),
    ...                        score=0.7)]
    >>> out = ImageCaptionPostprocessor().postprocess_nodes(nodes)
    >>> [(n.node.node_id, n.node.get_content()) for n in out[2:]]
    [('img-caption', 'E1 = ada')]
"""

from __future__ import annotations

from typing import Any

from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from .nodes import is_image_node

__all__ = ["CAPTION_SUFFIX", "ImageCaptionPostprocessor", "is_caption_node"]

CAPTION_SUFFIX = "-caption"
"""Appended to an image node's id to name the text node of its caption."""


def is_caption_node(node: Any) -> bool:
    """True for a caption node :class:`ImageCaptionPostprocessor` added (its metadata
    ``type`` is ``"caption"`` and it names the image it belongs to)."""
    meta = getattr(node, "metadata", None) or {}
    return (meta.get("type") == "caption" and "image_id" in meta
            and str(getattr(node, "node_id", "")).endswith(CAPTION_SUFFIX))


class ImageCaptionPostprocessor(BaseNodePostprocessor):
    """Add one text node holding each image node's caption after the nodes (once)."""

    @classmethod
    def class_name(cls) -> str:
        return "ImageCaptionPostprocessor"

    def _postprocess_nodes(self, nodes: list[NodeWithScore],
                           query_bundle: QueryBundle | None = None) -> list[NodeWithScore]:
        present = {n.node.node_id for n in nodes}
        captions: list[NodeWithScore] = []
        for n in nodes:
            text = n.node.get_content() if is_image_node(n.node) else ""
            node_id = n.node.node_id + CAPTION_SUFFIX
            if not text or node_id in present:  # no caption, or added before
                continue
            present.add(node_id)
            meta = {"type": "caption", "image_id": n.node.node_id}
            captions.append(NodeWithScore(node=TextNode(
                id_=node_id, text=text, metadata=meta, excluded_llm_metadata_keys=sorted(meta),
                excluded_embed_metadata_keys=sorted(meta)), score=n.score))
        return [*nodes, *captions]

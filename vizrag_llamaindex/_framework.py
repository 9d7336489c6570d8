"""Fail on import, naming the extra to install, when LlamaIndex is missing (instead of a
bare ``No module named 'llama_index'`` from deep inside a wrapper module)."""

from hyperviz_core.extras import require_extra, require_version

require_extra("llama_index.core", extra="llamaindex", who="vizrag_llamaindex")
require_version("llama-index-core", "0.14.24", extra="llamaindex", who="vizrag_llamaindex",
                why="its query engines drop the hypergraph image and VizRAG's prompt "
                "without a word")

"""Fail on import, naming the extra to install, when LlamaIndex is missing (instead of a
bare ``No module named 'llama_index'`` from deep inside a wrapper module)."""

from hyperviz_core.extras import require_extra

require_extra("llama_index.core", extra="llamaindex", who="vizrag_llamaindex")

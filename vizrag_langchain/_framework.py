"""Fail on import, naming the extra to install, when LangChain is missing (instead of a
bare ``No module named 'langchain_core'`` from deep inside a wrapper module)."""

from hyperviz_core.extras import require_extra

require_extra("langchain_core", extra="langchain", who="vizrag_langchain")

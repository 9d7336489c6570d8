"""The PostgreSQL + pgvector backend of the VizRAG store (optional extra ``vizrag[postgres]``).

Select it with a ``postgresql://`` URL wherever a store is accepted; see
:class:`~.store.PostgresStore`. Importing this package does not import psycopg.
"""

from __future__ import annotations

from .schema import is_postgres_url, mask_url
from .store import PostgresStore

__all__ = ["PostgresStore", "is_postgres_url", "mask_url"]

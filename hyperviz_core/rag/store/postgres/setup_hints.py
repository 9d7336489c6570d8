"""What a first-use error of a PostgreSQL database's setup says to do.

Opening a store on a new database runs ``CREATE EXTENSION vector`` and creates the tables;
the errors a database's setup causes then get the step that mends it, named for this
database where it can be asked: the schema pgvector is installed in (a hint that said
``...%2Cpublic`` sent a user whose extension lived in ``ext`` the wrong way).

Example:
    >>> setup_hint('permission denied to create extension "vector"')  # doctest: +ELLIPSIS
    '; ask a superuser to run CREATE EXTENSION vector in this database once ...'
    >>> setup_hint("syntax error")
    ''
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

__all__ = ["setup_hint"]

#: what a first-use error of the database's setup says, and the step that mends it
_HINTS = (
    ('type "vector" does not exist', "the pgvector extension is installed in a schema that "
     "is not on this connection's search path: add that schema after the store's, e.g. "
     "?options=-csearch_path%3D{store}%2C{vector}"),
    ('permission denied to create extension "vector"', "ask a superuser to run CREATE "
     "EXTENSION vector in this database once (pgvector is not a trusted extension here)"),
    ("permission denied for schema", "grant this role CREATE and USAGE on the store's "
     "schema, or give a schema it owns first on the search path"),
)


def setup_hint(said: str, pool: Any = None) -> str:
    """``"; <the step that mends it>"`` for a known setup error's text ``said``, else
    ``""``; with the store's connection ``pool`` the pgvector hint names the schema the
    extension is in and the store's own (else ``public`` and ``tenant_a``)."""
    for words, hint in _HINTS:
        if words in said:
            names = _schemas(pool) if "{vector}" in hint else ("tenant_a", "public")
            return "; " + hint.format(store=quote(names[0], safe=""),
                                      vector=quote(names[1], safe=""))
    return ""


def _schemas(pool: Any) -> tuple[str, str]:
    """(the store's schema, pgvector's) as the database says, each defaulting as above."""
    store, vector = "tenant_a", "public"
    if pool is None:
        return store, vector
    try:
        rows = pool.query(
            "SELECT current_schema(), (SELECT n.nspname FROM pg_extension e JOIN "
            "pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'vector')")
    except Exception:  # a hint only: the error it goes with stands
        return store, vector
    if rows:
        store, vector = rows[0][0] or store, rows[0][1] or vector
    return store, vector

"""The schema a PostgreSQL store lives in must be the one its URL names.

A store lives in the first schema of the connection's ``search_path`` (``?options=
-csearch_path%3Dtenant_a%2Cpublic``: one store per tenant schema). PostgreSQL skips a schema
of the path that does not exist, so a misspelt tenant (``tenant_x``) made ``public`` the
store's schema: the command read and wrote another tenant's store, silently.
:func:`check_search_path` refuses that: the first schema the path names must exist (a
``"$user"`` entry counts only when the role has such a schema, as PostgreSQL's rule goes).

Example:
    >>> path_entries('"$user", public'), path_entries('"My Tenant",B'), path_entries('')
    (['$user', 'public'], ['My Tenant', 'b'], [])
"""

from __future__ import annotations

import re
from typing import Any

from ..base import StoreError

__all__ = ["check_search_path", "path_entries"]

#: one entry of a ``search_path`` setting: a quoted identifier or a bare word
_ENTRY = re.compile(r'\s*("(?:[^"]|"")*"|[^,\s]+)\s*(?:,|$)')


def path_entries(setting: str) -> list[str]:
    """The schema names of a ``search_path`` setting, in order: quoted ones as written
    (``""`` read as ``"``), bare ones lower-cased, as PostgreSQL reads identifiers."""
    out: list[str] = []
    for m in _ENTRY.finditer(setting):
        word = m.group(1)
        out.append(word[1:-1].replace('""', '"') if word.startswith('"') else word.lower())
    return out


def check_search_path(conn: Any, where: str) -> None:
    """:class:`StoreError` when the first schema the connection's ``search_path`` names does
    not exist (the store would live in a schema behind it)."""
    setting, current, user = conn.execute(
        "SELECT current_setting('search_path'), current_schema(), current_user").fetchone()
    for name in path_entries(str(setting)):
        if name == "$user":
            if current == user:  # the role's own schema exists and comes first
                return
            continue  # skipped by PostgreSQL when the role has no such schema
        if current != name:
            raise StoreError(
                f"{where}: schema {name!r}, the first of the connection's search_path "
                f"({setting}), does not exist, so the store would be the one in "
                f"{current or 'no schema'!s}: create it (CREATE SCHEMA {name}) or fix the "
                "URL's search_path")
        return

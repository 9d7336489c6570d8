"""The embedded SQLite backend: one file (WAL) holding both layers (see :mod:`.store`)."""

"""Renderer settings saved with a store (``vizrag tune``) and read by the engine.

The file sits beside the store's SQLite file: ``<stem>.hyperviz.json`` (for the default
store folder, ``vizrag.hyperviz.json`` inside it). It holds the selected dual-view pair and
the tuned congestion budget; the engine uses both by default for that store (an explicit
``RetrievalConfig``/renderer still wins). Kept free of the renderer's imports so the engine
can read it cheaply.

Example:
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "vizrag.sqlite"
    >>> _ = save_view_settings(f, ViewSettings(layouts=("set-hier", "ra-cen")))
    >>> load_view_settings(f).layouts, settings_path(f).name
    (('set-hier', 'ra-cen'), 'vizrag.hyperviz.json')
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from .atomic import atomic_write_bytes
from .prune import Budget

__all__ = ["ViewSettings", "load_view_settings", "save_view_settings", "saved_view_settings",
           "settings_path"]


class ViewSettings(BaseModel):
    """Renderer settings saved with a store."""

    layouts: tuple[str, str] = ("set-force", "bi-inc")
    budget: dict[str, float] = Field(default_factory=dict)
    """Tuned :class:`~hyperviz_core.prune.Budget` fields (γ, w_v, w_e, α, β)."""
    selection: dict[str, Any] = Field(default_factory=dict)
    tuning: dict[str, Any] = Field(default_factory=dict)

    def make_budget(self, **extra: Any) -> Budget:
        """A :class:`Budget` with the saved fields."""
        return Budget(**{**self.budget, **extra})


def settings_path(store_file: str | Path) -> Path:
    """Where the settings of the store whose SQLite file is ``store_file`` live."""
    p = Path(store_file)
    return p.with_name(p.stem + ".hyperviz.json")


def load_view_settings(store_file: str | Path) -> ViewSettings | None:
    """The saved settings, or None when there are none (a bad file raises ``ValueError``)."""
    p = settings_path(store_file)
    if not p.exists():
        return None
    try:
        return ViewSettings.model_validate(json.loads(p.read_text(encoding="utf-8")))
    except ValueError as exc:
        raise ValueError(f"bad view settings in {p}: {' '.join(str(exc).split())[:200]}"
                         ) from None


def save_view_settings(store_file: str | Path, settings: ViewSettings) -> Path:
    """Write ``settings`` beside the store (the store itself is not touched)."""
    p = settings_path(store_file)
    text = json.dumps(settings.model_dump(mode="json"), indent=1, sort_keys=True)
    return atomic_write_bytes(p, text.encode("utf-8"))


def saved_view_settings(store: Any) -> ViewSettings | None:
    """The settings saved with ``store`` (an object with a ``path`` to its file), if any."""
    path = getattr(store, "path", None)
    if not isinstance(path, str | Path):
        return None
    return load_view_settings(path)

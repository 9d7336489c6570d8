"""The six HyperViz layouts and the layout registry (pluggable: register your own).

Set-based: ``set-hier`` (dot), ``set-radial`` (twopi), ``set-force`` (fdp/sfdp).
Induced: ``bi-inc`` (two columns), ``ra-cen`` (radial shells), ``cli-exp`` (clique expansion).

Example:
    >>> from hyperviz_core.layouts import available_layouts
    >>> available_layouts()[:6]
    ['set-hier', 'set-radial', 'set-force', 'bi-inc', 'ra-cen', 'cli-exp']
"""

from __future__ import annotations

from .base import (
    LayoutFn,
    LayoutOrder,
    LayoutResult,
    _builtin,
    available_layouts,
    get_layout,
    layout_kind,
    register_layout,
)
from .gv import set_force, set_hier, set_radial
from .induced import bi_inc, cli_exp, ra_cen

__all__ = [
    "INDUCED_LAYOUTS",
    "SET_LAYOUTS",
    "LayoutFn",
    "LayoutOrder",
    "LayoutResult",
    "available_layouts",
    "get_layout",
    "layout_kind",
    "register_layout",
]

SET_LAYOUTS = ("set-hier", "set-radial", "set-force")
INDUCED_LAYOUTS = ("bi-inc", "ra-cen", "cli-exp")

_builtin("set-hier", "set", set_hier)
_builtin("set-radial", "set", set_radial)
_builtin("set-force", "set", set_force)
_builtin("bi-inc", "induced", bi_inc)
_builtin("ra-cen", "induced", ra_cen)
_builtin("cli-exp", "induced", cli_exp)

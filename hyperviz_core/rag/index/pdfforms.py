"""The filled-in form fields of a PDF page (AcroForm), which a page's text does not hold: a
field's value is kept in the field and drawn by its widget annotation, not by the page.

:func:`field_lines` gives, for each field with a value that has a widget on the page (in the
page's order, once however many widgets it has), a line ``Label: value``: the label is the
field's description for the user (``/TU``), else its name (``/T``); the value its text, a
choice's options (joined by ``, ``), or a ticked box's state (``Yes``; an unticked box,
``Off``, gives no line). Signatures, buttons that only act and empty fields give none. The
name and value are read up the field's parents (a field of several widgets keeps them there),
at most :data:`MAX_DEPTH` of them, so a loop of parents in a damaged file ends.

Example:
    >>> from pypdf.generic import DictionaryObject, NameObject, TextStringObject
    >>> widget = DictionaryObject({NameObject("/Subtype"): NameObject("/Widget"),
    ...     NameObject("/FT"): NameObject("/Tx"), NameObject("/T"): TextStringObject("name"),
    ...     NameObject("/V"): TextStringObject("Ada  Lovelace")})
    >>> field_lines({"/Annots": [widget]})
    ['name: Ada Lovelace']
"""

from __future__ import annotations

from typing import Any

__all__ = ["MAX_DEPTH", "field_lines"]

#: the most parents a field's name or value is looked for in
MAX_DEPTH = 32


def _resolved(value: Any) -> Any:
    return value.get_object() if hasattr(value, "get_object") else value


def _inherited(field: Any, key: str) -> Any:
    """``key`` of ``field`` or of its nearest parent that has it (None when none has)."""
    for _ in range(MAX_DEPTH):
        if not hasattr(field, "get"):
            return None
        if key in field:
            return _resolved(field[key])
        field = _resolved(field.get("/Parent"))
    return None


def _shown(value: Any, kind: Any) -> str:
    """A field's value as a form shows it (``""``: nothing to show)."""
    if kind == "/Sig" or value is None:
        return ""
    if isinstance(value, list):
        return ", ".join(s for s in (_shown(_resolved(v), kind) for v in value) if s)
    text = str(value)
    if kind == "/Btn" or text.startswith("/"):  # a box's or a radio button's state
        text = text.lstrip("/")
        return "" if text in ("Off", "") else text
    return " ".join(text.split())


def field_lines(page: Any) -> list[str]:
    """``Label: value`` of each filled-in field with a widget on ``page`` (pypdf's)."""
    annots = _resolved(page.get("/Annots")) if hasattr(page, "get") else None
    lines: list[str] = []
    seen: set[object] = set()
    for ref in annots if isinstance(annots, list) else []:
        annot = _resolved(ref)
        if not hasattr(annot, "get") or annot.get("/Subtype") != "/Widget":
            continue
        field = annot if "/T" in annot else _resolved(annot.get("/Parent"))
        where = getattr(field, "indirect_reference", None)  # a field of several widgets
        key = (where.idnum, where.generation) if where is not None else id(field)
        if not hasattr(field, "get") or key in seen:
            continue
        seen.add(key)
        value = _shown(_inherited(field, "/V"), _inherited(field, "/FT"))
        label = " ".join(str(_resolved(field.get("/TU")) or _resolved(field.get("/T")) or
                             "").split())
        if value:
            lines.append(f"{label}: {value}" if label else value)
    return lines

"""The filled-in form fields of a PDF page (AcroForm), which a page's text does not hold: a
field's value is kept in the field and drawn by its widget annotation, not by the page; and
(since stop 60) the text its free-text annotations draw on it, which the page does not hold
either.

:func:`field_lines` gives, for each field with a value that has a widget on the page (in the
page's order, once however many widgets it has), a line ``Label: value``: the label is the
field's description for the user (``/TU``), else its name (``/T``); the value its text, a
choice's options (joined by ``, ``), or a ticked box's state (``Yes``; an unticked box,
``Off``, gives no line). Signatures, buttons that only act and empty fields give none. The
name and value are read up the field's parents (a field of several widgets keeps them there),
at most :data:`MAX_DEPTH` of them, so a loop of parents in a damaged file ends.

:func:`free_text_lines` gives the text of each free-text annotation (``/FreeText``: what a
viewer's typewriter or text-box tool writes on the page, a callout) in the page's order:
its ``/Contents``, else its rich text (``/RC``) without the markup. One the viewer hides
(its flags ``Invisible``, ``Hidden`` or ``NoView``) gives none, and so does a comment (a
sticky note, ``/Text``, which opens in a pop-up and is not on the page).

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

from .htmlpages import page_text

__all__ = ["MAX_DEPTH", "field_lines", "free_text_lines"]

#: the annotation flags that keep an annotation off the screen: Invisible, Hidden, NoView
_UNSEEN = 1 | 2 | 32

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
    lines: list[str] = []
    seen: set[object] = set()
    for annot in _annotations(page):
        if annot.get("/Subtype") != "/Widget":
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


def _annotations(page: Any) -> list[Any]:
    """The annotations of ``page`` (pypdf's), resolved, in the page's order."""
    annots = _resolved(page.get("/Annots")) if hasattr(page, "get") else None
    return [a for a in map(_resolved, annots if isinstance(annots, list) else [])
            if hasattr(a, "get")]


def free_text_lines(page: Any) -> list[str]:
    """The text of each free-text annotation shown on ``page`` (see the module's docs)."""
    lines = []
    for annot in _annotations(page):
        flags = _resolved(annot.get("/F"))
        if annot.get("/Subtype") != "/FreeText" or (isinstance(flags, int) and flags & _UNSEEN):
            continue
        text = str(_resolved(annot.get("/Contents")) or "")
        if not text.strip() and (rich := _resolved(annot.get("/RC"))):
            text = page_text(str(rich))[1]
        if text := " ".join(text.split()):
            lines.append(text)
    return lines

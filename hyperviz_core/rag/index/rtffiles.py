"""Reading Rich Text Format files (``.rtf``: WordPad, TextEdit, many legal and office
exports) as documents, with the ``rtf`` extra (`striprtf
<https://pypi.org/project/striprtf/>`_, the reader LlamaIndex's RTF reader uses).

One document per file, its id and ``source`` as a Word file's (the id keeps the suffix:
``contract.rtf``). Its text is the text the file shows: formatting, fonts, pictures and
other hidden groups dropped, ``\\'e9`` and ``\\u8364?`` escapes decoded (8-bit ones by the
code page the file declares, ``\\ansicpg1252``), a paragraph a line. A section's headers
come before it and its footers after it, as a Word file's (:mod:`.rtfheaders`), and hidden
text (``\\v``) is left out (:func:`without_hidden`). The title
is the file's own (``{\\info{\\title ...}}``), else the file's stem.

A file that does not start as RTF (``{\\rtf``), a binary file, and any file striprtf cannot
read are each a :class:`~.errors.LoaderError` naming the file; so is one read without the
extra, and a folder walk without it leaves ``.rtf`` files out, listed with the command that
installs it. Nothing in the file is run (RTF holds no macros; embedded objects are not
read) and nothing is fetched.
"""

from __future__ import annotations

import codecs
import re
from pathlib import Path
from types import ModuleType

from ..types import Document
from .errors import LoaderError
from .guards import printable
from .rtfheaders import SECTION, split_furniture
from .suffixes import reader_module
from .textfiles import check_not_binary, foreign_file, path_id
from .titles import cut_title

__all__ = ["rtf_document", "rtf_text"]

#: the code page of the 8-bit escapes (``\'e9``), as the header declares it
_CODE_PAGE = re.compile(rb"\\ansicpg(\d{3,5})")
#: the title of the file's information group: ``{\title Text}`` (its escapes still in it)
_TITLE = re.compile(r"\{\\title\s+((?:[^{}\\]|\\.|\\[a-z]+-?\d* ?)*)\}")


def _encoding(head: bytes) -> str:
    """The code page the file declares (``cp1252`` when it declares none Python knows)."""
    found = _CODE_PAGE.search(head)
    name = f"cp{int(found.group(1))}" if found else "cp1252"
    try:
        codecs.lookup(name)
    except LookupError:
        return "cp1252"
    return name


#: the tokens of RTF markup: a control word, an escape, a brace, a run of text
_TOKEN = re.compile(r"\\([a-zA-Z]+)(-?\d+)? ?|\\'[0-9a-fA-F]{2}|\\.|[{}]|[^\\{}]+", re.S)
_HIDDEN = re.compile(r"\\v(?![a-zA-Z])")
#: the control words that stand for text (a character, a symbol, a tab or line break)
_TEXT_WORDS = frozenset({"u", "tab", "line", "emdash", "endash", "emspace", "enspace",
                         "qmspace", "bullet", "lquote", "rquote", "ldblquote", "rdblquote",
                         "zwj", "zwnj", "zwbo", "zwnbo"})


def without_hidden(markup: str) -> str:
    r"""``markup`` without its hidden text (``\v`` ... ``\v0``, to the group's end or to
    ``\plain``), which Word neither shows nor prints; control words and groups are kept.

    >>> without_hidden(r"{\rtf1 The fee is {\v [fill in] }120 kroner\v  (note)\v0 .}")
    '{\\rtf1 The fee is {\\v }120 kroner\\v \\v0 .}'
    """
    if not _HIDDEN.search(markup):
        return markup
    out: list[str] = []
    hidden = [False]
    for m in _TOKEN.finditer(markup):
        token, word = m.group(), m.group(1)
        if token == "{":
            hidden.append(hidden[-1])
        elif token == "}":
            if len(hidden) > 1:
                hidden.pop()
        elif word == "v":
            hidden[-1] = m.group(2) != "0"
        elif word == "plain":
            hidden[-1] = False
        elif hidden[-1] and (word in _TEXT_WORDS or (word is None and token != "\\*")):
            continue  # hidden text: a run, an escaped character, a symbol
        out.append(token)
    return "".join(out)


def rtf_text(data: bytes, module: ModuleType) -> tuple[str, str]:
    """The text RTF markup ``data`` shows, a paragraph a line, and its title (``""`` when it
    has none), read with striprtf (``module``)."""
    encoding = _encoding(data[:4096])
    markup = data.decode(encoding, "replace")  # RTF is 7-bit; raw 8-bit text: the page's

    def text_of(group: str) -> str:
        text: str = module.rtf_to_text("{\\rtf1 " + group + "}", encoding=encoding,
                                       errors="replace")
        return text

    body, pages = split_furniture(without_hidden(markup), text_of)
    lines = [*pages.headers(0)]
    section = 0
    for line in text_of(body).splitlines():
        if line.strip() == SECTION:  # a section's end: its footers, the next one's headers
            lines += pages.footers(section) + pages.headers(section + 1)
            section += 1
        else:
            lines.append(" ".join(line.split()))
    lines += pages.rest(section)
    found = _TITLE.search(markup)
    title = text_of(found.group(1)) if found else ""
    return "\n".join(lines).strip(), " ".join(title.split())


def rtf_document(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    """The document of the RTF file ``path`` (see the module's docs)."""
    module = reader_module(path, ".rtf")
    check_not_binary(path)
    with foreign_file(path, "an RTF file striprtf can read"):
        data = path.read_bytes().removeprefix(b"\xef\xbb\xbf")  # (a mark some tools write)
        if not data.lstrip().startswith(b"{\\rtf"):
            raise LoaderError(f"{printable(str(path))}: not an RTF file (it does not start "
                              "with {\\rtf)")
        text, title = rtf_text(data, module)
    return Document(id=path_id(path, id_from_path, root), title=cut_title(title or path.stem),
                    text=text, metadata={"source": str(path)})

"""Reading subtitle and caption files (``.srt``, WebVTT ``.vtt``: the transcripts of talks,
meetings and videos) as documents, with the standard library (no extra).

One document per file, its id and ``source`` as a PDF's (the id keeps the suffix:
``standup.vtt``). Its text is what the captions say, a caption line a line: cue numbers,
timings and settings dropped, markup removed (``<i>``, ``<b>``, timestamps inside a cue), a
WebVTT voice tag read as its speaker (``<v Ada>Hello`` is ``Ada: Hello``), entities decoded
(``&amp;``), and a line the next cue repeats (rolling captions) given once. WebVTT ``NOTE``,
``STYLE`` and ``REGION`` blocks are left out. The title is a WebVTT header's text (``WEBVTT
- Weekly standup``), else the file's stem; ``metadata["duration"]`` is the last cue's end,
in seconds.

A file that is not UTF-8 names the byte; a binary file, and a file with no cue (no
``-->`` timing line), are each a :class:`~.errors.LoaderError` naming it.

Example:
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "talk.srt"
    >>> _ = path.write_text("1\\n00:00:01,000 --> 00:00:03,500\\n<i>Hello</i> and\\nwelcome.\\n\\n"
    ...                     "2\\n00:00:04,000 --> 00:00:06,250\\nToday: hypergraphs.\\n")
    >>> doc = subtitle_document(path, True)
    >>> doc.id, doc.text, doc.metadata["duration"]
    ('talk.srt', 'Hello and\\nwelcome.\\nToday: hypergraphs.', 6.25)
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from ..types import Document
from .errors import LoaderError
from .guards import printable
from .textfiles import check_not_binary, path_id, read_text
from .titles import cut_title

__all__ = ["subtitle_document"]

#: a cue's timing line: its start and end (``00:01:02,500`` or ``01:02.500``) and settings
_TIMING = re.compile(r"^\s*((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})\s*-->\s*"
                     r"((?:\d+:)?\d{1,2}:\d{2}[.,]\d{1,3})")
#: a WebVTT voice tag: its speaker
_VOICE = re.compile(r"<v(?:\.[\w.-]+)?\s+([^>]+)>")
#: any other tag (``<i>``, ``</b>``, ``<c.yellow>``, a timestamp ``<00:00:01.500>``)
_TAG = re.compile(r"<[^>]*>")


def _seconds(stamp: str) -> float:
    """``00:01:02,500`` (or ``01:02.500``) in seconds."""
    parts = stamp.replace(",", ".").split(":")
    return round(sum(float(p) * 60 ** i for i, p in enumerate(reversed(parts))), 3)


def _line_text(line: str) -> str:
    """What a caption line says: its voice tag its speaker, other markup dropped."""
    said = _VOICE.sub(lambda m: m.group(1).strip() + ": ", line)
    return " ".join(html.unescape(_TAG.sub("", said)).split())


def subtitle_document(path: Path, id_from_path: bool, root: Path | None = None, *,
                      encoding: str | None = None) -> Document:
    """The document of the subtitle file ``path`` (see the module's docs; ``encoding``: what
    a file that is not UTF-8 is read in, :mod:`.legacy`)."""
    check_not_binary(path, encoding)
    whole = read_text(path, encoding).replace("\r\n", "\n").replace("\r", "\n")
    blocks = re.split(r"\n[ \t]*\n", whole)
    title = ""
    first = blocks[0].lstrip() if blocks else ""
    if first.startswith("WEBVTT"):
        header = first.split("\n", 1)[0][len("WEBVTT"):]
        title = " ".join(header.strip(" \t-").split())
    said: list[str] = []
    end = 0.0
    for block in blocks:
        lines = block.strip("\n").split("\n")
        timing = next((i for i, line in enumerate(lines) if _TIMING.match(line)), None)
        if timing is None or lines[0].startswith(("NOTE", "STYLE", "REGION")):
            continue
        found = _TIMING.match(lines[timing])
        assert found is not None
        end = max(end, _seconds(found.group(2)))
        for text in map(_line_text, lines[timing + 1:]):
            if text and (not said or said[-1] != text):
                said.append(text)
    if end == 0.0 and not said:
        raise LoaderError(f"{printable(str(path))}: no caption cue (a line "
                          "'00:00:01,000 --> 00:00:04,000' starts one)")
    return Document(id=path_id(path, id_from_path, root), title=cut_title(title or path.stem),
                    text="\n".join(said), metadata={"source": str(path), "duration": end})

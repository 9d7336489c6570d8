"""A message attached to an Outlook message as an Outlook item (Outlook's "Forward as
attachment", or an e-mail dragged onto a new one) is read after the body: its subject,
headers and body, as a forwarded ``.eml`` message reads (stop 68). Before, it was only
named. The files are laid out as MS-OXMSG says (an attachment storage holding the item's
own storage ``__substg1.0_3701000D``, whose properties stream has a 24-byte header)."""

from __future__ import annotations

import struct
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hyperviz_core.rag.index.loaders import load_documents

pytest.importorskip("olefile")
from compound_files import write_compound
from test_msg57 import _filetime, _offer, _props, _recipient, _wide

AT = "__attach_version1.0_#00000000/"
ITEM = AT + "__substg1.0_3701000D/"


def _item(**more: bytes) -> dict[str, bytes]:
    """The attachment of ``_offer``'s message replaced by a message attached as an item."""
    streams = {k: v for k, v in _offer().items() if not k.startswith(AT)}
    streams.update({
        AT + _wide(0x3001, "Harbour fees")[0]: _wide(0x3001, "Harbour fees")[1],
        AT + "__properties_version1.0": _props(8, {0x3705: (3, struct.pack("<iI", 5, 0))}),
        ITEM + _wide(0x0037, "Harbour fees")[0]: _wide(0x0037, "Harbour fees")[1],
        ITEM + _wide(0x0C1A, "Åsa Berg")[0]: _wide(0x0C1A, "Åsa Berg")[1],
        ITEM + _wide(0x5D01, "asa@example.org")[0]: _wide(0x5D01, "asa@example.org")[1],
        ITEM + _wide(0x1000, "The fee is 40 kronor a night.\r\nÅsa")[0]:
            _wide(0x1000, "The fee is 40 kronor a night.\r\nÅsa")[1],
        ITEM + "__properties_version1.0": _props(24, {
            0x0039: (0x40, _filetime(datetime(2026, 11, 30, 8, 0, tzinfo=UTC)))}),
        **{ITEM + k: v for k, v in _recipient(0, "Ada Lovelace", "ada@example.org", 1).items()},
    })
    streams.update(more)
    return streams


def test_a_message_attached_as_an_item_is_read(tmp_path: Path) -> None:
    [doc] = load_documents(write_compound(tmp_path / "offer.msg", _item()))
    assert doc.text.startswith("From: Ada Lovelace <ada@example.org>\nTo: Bo Li")
    body, block = doc.text.split("\n\nAttachment: ")
    assert body.endswith("The offer stands until Friday.\nRegards, Ada")
    assert block == ("Harbour fees.eml\n\nHarbour fees\n\nFrom: Åsa Berg <asa@example.org>\n"
                     "To: Ada Lovelace <ada@example.org>\n"
                     "Date: Mon, 30 Nov 2026 08:00:00 +0000\n\n"
                     "The fee is 40 kronor a night.\nÅsa")
    assert doc.metadata["attachments"] == ["Harbour fees"]
    assert "attachments_unread" not in doc.metadata


def test_an_item_with_a_malformed_sender_is_read(tmp_path: Path) -> None:
    """Python's ``email`` cannot write ``<<<>>> @@`` as an address (an ``IndexError``);
    the item is read all the same, the sender as ``email`` reads what was written."""
    odd = _wide(0x5D01, "<<<>>> @@ ,,,")
    [doc] = load_documents(write_compound(tmp_path / "offer.msg",
                                          _item(**{ITEM + odd[0]: odd[1]})))
    block = doc.text.split("\n\nAttachment: ")[1]
    assert block.startswith("Harbour fees.eml\n\nHarbour fees\n\nFrom: \"Åsa Berg\"")
    assert block.endswith("The fee is 40 kronor a night.\nÅsa")


def test_an_item_in_the_message_code_page_and_without_a_name(tmp_path: Path) -> None:
    """An item without a shown name is ``message.eml``; its 8-bit strings are read in the
    code page the outer message declares when it declares none itself."""
    streams = {k: v for k, v in _item().items()
               if not k.startswith(AT + "__substg1.0_3001") and "1000001F" not in k}
    streams[ITEM + "__substg1.0_1000001E"] = "Встреча в пятницу.".encode("cp1251")
    streams["__properties_version1.0"] = _props(32, {0x3FFD: (3, struct.pack("<iI", 1251, 0))})
    [doc] = load_documents(write_compound(tmp_path / "offer.msg", streams))
    block = doc.text.split("\n\nAttachment: ")[1]
    assert block.startswith("message.eml\n\nHarbour fees\n\nFrom: Åsa Berg")
    assert block.endswith("\n\nВстреча в пятницу.")

"""Check a pickle's opcodes before the C unpickler runs: flat tuples, bounded sharing.

A dict key or set member is hashed when it is inserted, and CPython hashes a tuple by
hashing its elements, recursively, in C, without a depth check and without caching the
result. So a few hundred kB of pickle holding a tuple nested 300 000 deep crashes the
interpreter (SIGSEGV), and one of a few hundred bytes that shares a tuple through the memo
(``t = (t, t)``, 80 times) costs 2**80 steps to hash. :class:`~.hyperrag_pickle.
RestrictedUnpickler` cannot stop either: no global is involved, and the C unpickler cannot
be guarded per opcode. :func:`scan_pickle` therefore walks the opcodes first
(:func:`pickletools.genops`, nothing is built) with a model of the unpickler's stack and
memo, and refuses:

* a tuple holding a tuple (Hyper-RAG's keys are flat tuples of names; a tuple holding a
  list, as protocols 0-3 write ``set([...])``, is fine: its hash stops at the list);
* memo references that would make hashing cost more than :data:`SHARE_PER_BYTE` units per
  byte of the file, where an object costs what it holds (a hyperedge key of n names costs
  n + 1, and Hyper-RAG fetches it once per member: 0.014 units per byte in the shared
  fixture);
* a stack the opcodes would underflow (past a MARK, too), or a missing memo entry.

Example:
    >>> import pickle
    >>> scan_pickle(pickle.dumps({("A", "B"): 1.0}, protocol=4))
    >>> scan_pickle(b"\\x80\\x04)\\x85\\x85.")  # ((),) nested
    Traceback (most recent call last):
    ...
    hyperviz_core.interop.hyperrag_scan.PickleShapeError: a tuple holds a tuple ...
"""

from __future__ import annotations

import pickletools
from typing import Any

__all__ = ["SHARE_BASE", "SHARE_PER_BYTE", "PickleShapeError", "scan_pickle"]

#: hashing work (tuple elements) memo references may add: this much plus per file byte
SHARE_BASE = 1 << 22
SHARE_PER_BYTE = 64

_FLAT = frozenset({pickletools.pyint, pickletools.pylong, pickletools.pyinteger_or_bool,
                   pickletools.pybool, pickletools.pyfloat, pickletools.pystring,
                   pickletools.pybytes, pickletools.pyunicode, pickletools.pynone,
                   pickletools.pybytes_or_str})
_GETS = frozenset({"GET", "BINGET", "LONG_BINGET"})
_PUTS = frozenset({"PUT", "BINPUT", "LONG_BINPUT", "MEMOIZE"})
_TUPLES = frozenset({"EMPTY_TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "TUPLE"})
_GLOBALS = frozenset({"GLOBAL", "STACK_GLOBAL"})

#: a stack slot: (kind, cost of hashing or iterating it); kind "flat", "tuple" or "other"
Slot = tuple[str, int]


class PickleShapeError(ValueError):
    """The pickle holds what a Hyper-RAG ``.hgdb`` never does (nothing was built)."""


def _made(op: pickletools.OpcodeInfo, arg: Any, popped: list[Slot]) -> Slot:
    """What an opcode that builds no tuple pushes: a container or call result costs what
    it consumed (hashing or iterating it again costs that much)."""
    if op.name in _GLOBALS:
        return ("flat", 1)  # a class: hashed by identity
    if op.stack_after and op.stack_after[0] in _FLAT:
        big = arg.bit_length() // 64 if isinstance(arg, int) else 0  # int hash: O(digits)
        return ("flat", 1 + big)
    return ("other", 1 + sum(cost for _kind, cost in popped))


def _pop(stack: list[Slot], marks: list[int], op: pickletools.OpcodeInfo) -> list[Slot]:
    """Pop what ``op`` consumes (as the unpickler does), or refuse an underflow."""
    before = op.stack_before
    below = len(before)
    popped: list[Slot] = []
    if pickletools.markobject in before:
        below = before.index(pickletools.markobject)  # slots under the mark it consumes
        if not marks:
            raise PickleShapeError(f"{op.name} without a MARK")
        k = marks.pop()
        popped = stack[k:]
        del stack[k:]
    if below > len(stack) - (marks[-1] if marks else 0):
        raise PickleShapeError(f"{op.name} on a stack too short for it")
    if below:
        popped = stack[-below:] + popped
        del stack[-below:]
    return popped


def scan_pickle(data: bytes) -> None:
    """Refuse (:class:`PickleShapeError`) a pickle whose tuples are not flat or whose memo
    sharing would make hashing cost more than linear in its size; build nothing.

    Raises:
        PickleShapeError: as above, or the opcodes underflow the stack or the memo.
        ValueError: a truncated pickle or an unknown opcode (from ``genops``).
    """
    stack: list[Slot] = []
    marks: list[int] = []
    memo: dict[int, Slot] = {}
    spent, allowance = 0, SHARE_BASE + SHARE_PER_BYTE * len(data)
    for op, arg, _ in pickletools.genops(data):
        name = op.name
        fence = marks[-1] if marks else 0
        if name in _GETS or name == "DUP":
            if name == "DUP":
                slot = stack[-1] if len(stack) > fence else None
            else:
                slot = memo.get(arg) if isinstance(arg, int) else None
            if slot is None:
                raise PickleShapeError(f"{name} of nothing (no such stack or memo entry)")
            spent += slot[1]
            if spent > allowance:
                raise PickleShapeError("the memo shares tuples so often that hashing them "
                                       "would take too long")
            stack.append(slot)
        elif name in _PUTS:
            if len(stack) <= fence:
                raise PickleShapeError(f"{name} with nothing to memoize")
            memo[arg if isinstance(arg, int) else len(memo)] = stack[-1]  # MEMOIZE: none
        elif name == "MARK":
            marks.append(len(stack))
        else:
            popped = _pop(stack, marks, op)
            if name in _TUPLES:
                if any(kind == "tuple" for kind, _cost in popped):
                    raise PickleShapeError("a tuple holds a tuple (Hyper-RAG keys are flat "
                                           "tuples of names)")
                stack.append(("tuple", 1 + sum(cost for _kind, cost in popped)))
            else:
                stack.extend(_made(op, arg, popped) for _ in op.stack_after)

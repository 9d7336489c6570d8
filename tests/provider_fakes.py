"""A local fake OpenAI-compatible server for CLI tests of the provider layer (no network).

:class:`FakeOpenAI` serves ``/v1/chat/completions`` and ``/v1/embeddings`` on 127.0.0.1 (a
free port) from a thread. By default it answers like a well-behaved server: hashed unit
embeddings of ``dim`` numbers, extraction JSON for extraction prompts, theme JSON for theme
prompts and a short answer otherwise. ``faults`` scripts misbehaviour per call: a function
``(kind, n) -> (status, body, headers) | None`` where ``kind`` is ``"chat"`` or ``"emb"``
and ``n`` counts that kind's requests from 1 (None: answer normally).
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Fault = Callable[[str, int], "tuple[int, Any, dict[str, str]] | None"]


def _vector(text: str, dim: int) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [digest[i % 32] / 255.0 - 0.5 for i in range(dim)]


def _extraction(text: str) -> str:
    names = sorted(set(re.findall(r"\b[A-Z][a-z]+\b", text)))[:5]
    entities = [{"name": n, "type": "concept", "description": f"{n} thing"} for n in names]
    edges = ([{"members": names[:3], "description": "fact", "keywords": ["k"], "strength": 5}]
             if len(names) >= 2 else [])
    return json.dumps({"entities": entities, "hyperedges": edges})


def completion(content: str | None, *, choices: bool = True,
               finish: str = "stop") -> dict[str, Any]:
    """A Chat Completions body (``choices=False``: an empty ``choices`` list)."""
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", "content": content}}] if choices else [],
            "usage": {"prompt_tokens": 10, "completion_tokens": 7, "total_tokens": 17}}


def dead_url() -> str:
    """A base URL nothing listens on (connections are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


class _QuietServer(ThreadingHTTPServer):
    """Says nothing when a client went away before its answer was written (a timeout test's
    client): socketserver prints that on stderr from the handler thread, which may be
    *another* test's captured stderr by then. Any other handler error is printed."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


#: (path, request headers, raw request body) -> (status, body, response headers)
Respond = Callable[[str, dict[str, str], bytes], "tuple[int, bytes, dict[str, str]]"]


def _handler(respond: Respond) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            status, body, headers = respond(self.path, dict(self.headers.items()), raw)
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


class LocalServer:
    """A server on 127.0.0.1 (a free port, ``port``/``url``) answering each POST with
    ``respond(path, headers, body)``, served from a thread while used as a context manager."""

    def __init__(self, respond: Respond) -> None:
        self._server = _QuietServer(("127.0.0.1", 0), _handler(respond))
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> LocalServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


class FakeOpenAI(LocalServer):
    """The fake server (a context manager); ``url`` is its base URL, ``calls`` the count of
    requests per kind."""

    def __init__(self, dim: int = 8, faults: Fault | None = None) -> None:
        self.dim = dim
        self.faults = faults
        self.calls = {"chat": 0, "emb": 0}
        self._lock = threading.Lock()
        super().__init__(self._respond)

    def __enter__(self) -> FakeOpenAI:
        super().__enter__()
        return self

    def answer(self, kind: str, req: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        with self._lock:
            self.calls[kind] += 1
            n = self.calls[kind]
        fault = self.faults(kind, n) if self.faults else None
        if fault is not None:
            return fault
        if kind == "emb":
            texts = req["input"] if isinstance(req["input"], list) else [req["input"]]
            data = [{"object": "embedding", "index": i, "embedding": _vector(t, self.dim)}
                    for i, t in enumerate(texts)]
            return 200, {"object": "list", "data": data, "model": req.get("model"),
                         "usage": {"prompt_tokens": 1, "total_tokens": 1}}, {}
        prompt = str(req["messages"][-1]["content"])
        if "extract" in prompt.lower():
            content = _extraction(prompt.split("<<<TEXT")[-1])
        elif "answer" in prompt.lower() or "question" in prompt.lower():
            content = "The answer is 42."
        else:
            content = json.dumps({"theme": "a theme", "keywords": ["k"], "key_entities": []})
        return 200, completion(content), {}

    def _respond(self, path: str, headers: dict[str, str], raw: bytes
                 ) -> tuple[int, bytes, dict[str, str]]:
        kind = "emb" if path.endswith("/embeddings") else "chat"
        status, body, extra = self.answer(kind, json.loads(raw or b"{}"))
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        return status, data, {"Content-Type": "application/json", **extra}

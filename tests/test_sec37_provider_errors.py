"""What a server says in an error body reaches a ProviderError made safe once: on one line,
escape sequences (ESC, BEL, U+202E) shown as escapes (the retry warning too, not only the final
``failed:`` line), cut to a few hundred characters (a 5 MB HTML page is not printed twice), and
the client's API key, its proxy credentials and any ``Bearer``/``Basic`` credential masked.
Local fake servers only (:mod:`provider_fakes`)."""

from __future__ import annotations

import base64
import json
import logging
import re
from collections.abc import Iterator

import httpx
import pytest
from provider_fakes import LocalServer

from hyperviz_core.rag import ProviderError, as_provider_error
from hyperviz_core.rag.providers.middleware import RetryingChatModel
from hyperviz_core.rag.providers.openai_compat import OpenAIChatModel
from hyperviz_core.rag.providers.openai_wire import (
    ERROR_TEXT_LIMIT,
    map_openai_error,
    request_secrets,
    server_text,
)
from hyperviz_core.rag.providers.protocols import MAX_MESSAGE

openai = pytest.importorskip("openai")

#: what a hostile page holds: a title-setting OSC, BEL, a colour, a right-to-left override
EVIL = ('</script><img src=x onerror=alert(1)>\u2028\u202e\x1b]0;HACKED\x07\x1b[31m'
        '\u0085\x9b2J')
RAW = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
KEY = "sk-SECRETKEY123"
PROXY_USER, PROXY_PASSWORD = "gateway-user", "pr0xy-Pa55word"


def _server(status: int, body: bytes | None = None, echo: bool = False) -> LocalServer:
    def respond(path: str, headers: dict[str, str], raw: bytes
                ) -> tuple[int, bytes, dict[str, str]]:
        if echo:  # a server that echoes the request's credentials in its error
            said = (f"bad key {headers.get('Authorization')} proxy "
                    f"{headers.get('Proxy-Authorization')} user {PROXY_USER} pw {PROXY_PASSWORD}"
                    f" key again {KEY}")
            data = json.dumps({"error": {"message": said, "type": "invalid_request_error"}})
            return status, data.encode(), {"Content-Type": "application/json"}
        return status, body or b"", {"Content-Type": "text/html"}

    return LocalServer(respond)


def _failing_call(server: LocalServer, caplog: pytest.LogCaptureFixture) -> ProviderError:
    """The ProviderError of one chat call retried once (the retry warning in ``caplog``)."""
    url = server.url.replace("http://", f"http://{PROXY_USER}:{PROXY_PASSWORD}@")
    chat = RetryingChatModel(OpenAIChatModel("m", base_url=url, api_key=KEY), max_retries=1,
                             sleep=lambda s: None)
    with caplog.at_level(logging.WARNING), pytest.raises(ProviderError) as info:
        chat.complete("hello")
    return info.value


@pytest.fixture
def html_error() -> Iterator[LocalServer]:
    with _server(500, f"<html>{EVIL}</html>".encode()) as server:
        yield server


def test_the_retry_warning_shows_escape_sequences_as_escapes(
        html_error: LocalServer, caplog: pytest.LogCaptureFixture) -> None:
    err = _failing_call(html_error, caplog)
    warnings = [r.getMessage() for r in caplog.records if "retry 1/1" in r.getMessage()]
    assert len(warnings) == 1
    for text in (warnings[0], str(err)):
        assert not RAW.search(text), ascii(text)
        assert "\\x1b]0;HACKED\\x07\\x1b[31m" in text and "\\u202e" in text
        assert "onerror=alert(1)" in text  # the rest as the server wrote it


def test_a_provider_error_is_one_line_whoever_makes_it() -> None:
    err = ProviderError("down:\n\x1b[2J\u202eevil\tend")
    assert str(err) == "down:\\n\\x1b[2J\\u202eevil\\tend"
    assert str(ProviderError(str(err))) == str(err)  # once: escaping again changes nothing


def test_a_5_mb_error_page_is_cut(caplog: pytest.LogCaptureFixture) -> None:
    with _server(500, b"E" * (5 * 1024 * 1024)) as server:
        err = _failing_call(server, caplog)
    warning = next(r.getMessage() for r in caplog.records if "retry 1/1" in r.getMessage())
    for text in (warning, str(err)):
        assert len(text) < ERROR_TEXT_LIMIT + 300, len(text)
        assert "(cut; 5,242,880 characters in all)" in text


def test_credentials_a_server_echoes_are_masked(caplog: pytest.LogCaptureFixture) -> None:
    with _server(401, echo=True) as server:
        err = _failing_call(server, caplog)
    text = str(err)
    basic = base64.b64encode(f"{PROXY_USER}:{PROXY_PASSWORD}".encode()).decode()
    assert err.status == 401 and not err.retryable
    for secret in (KEY, "SECRETKEY", basic, PROXY_PASSWORD):
        assert secret not in text, text
    assert "bad key Bearer *** proxy Basic *** user *** pw *** key again ***" in text


def _status_error(body: str, headers: dict[str, str], status: int = 500) -> Exception:
    request = httpx.Request("POST", "http://127.0.0.1:1/v1/chat/completions", headers=headers)
    response = httpx.Response(status, text=body, request=request)
    return openai.APIStatusError(f"Error code: {status} - {body}", response=response,
                                 body=None)


def test_sdk_errors_are_mapped_safely() -> None:
    exc = _status_error(f"{EVIL} Bearer {KEY} " + "x" * 10_000,
                        {"Authorization": f"Bearer {KEY}", "api-key": "azure-key-0123"})
    assert {KEY, "azure-key-0123"} <= request_secrets(exc)
    err = map_openai_error(exc)  # the built-in client's
    text = str(err)
    assert err.status == 500 and err.retryable
    assert KEY not in text and not RAW.search(text) and len(text) < ERROR_TEXT_LIMIT + 300
    assert "Bearer ***" in text and "(cut; 10,101 characters in all)" in text
    framework = as_provider_error(exc)  # a LlamaIndex / LangChain model's: escaped and cut
    assert framework is not None and framework.status == 500
    text = str(framework)
    assert not RAW.search(text) and len(text) < MAX_MESSAGE + 100 and "characters in all" in text


def test_a_huge_provider_error_is_cut_once() -> None:
    err = ProviderError("E" * 10**6)
    assert str(err).endswith("... (cut; 1,000,000 characters in all)")
    assert str(ProviderError(str(err))) == str(err)


def test_server_text() -> None:
    assert server_text("a \n\t b\u2028c") == "a b c"
    assert server_text("Basic plan exceeded; Bearer authentication required") == (
        "Basic plan exceeded; Bearer authentication required")  # words, not credentials
    pair = base64.b64encode(b"u:pw").decode()
    assert server_text(f"Basic {pair} and bearer eyJhbGciOi.J9.x1") == "Basic *** and bearer ***"
    assert server_text("token abcdef here", {"abcdef", "abc"}) == "token *** here"
    cut = server_text("y" * 1000, limit=10)
    assert cut == "yyyyyyyyyy... (cut; 1,000 characters in all)"
    # a credential cut in half where reading stops is not shown in part
    spaced = " " * (8 * ERROR_TEXT_LIMIT + 1024 - 8) + KEY
    assert "sk-SECRE" not in server_text(spaced, {KEY})
    assert request_secrets(ValueError("no request")) == set()


def test_a_framework_models_error_is_masked_too() -> None:
    """``as_provider_error`` (the LlamaIndex/LangChain adapters' mapping) masks a credential
    a server echoed, as the built-in client does."""
    from hyperviz_core.rag.providers.protocols import as_provider_error

    class APIStatusError(Exception):
        status_code = 401

    err = as_provider_error(APIStatusError("bad key Bearer sk-SECRETKEY123 for bob"))
    assert err is not None and "sk-SECRETKEY123" not in str(err)
    assert "Bearer ***" in str(err)


def test_line_separators_are_escapes_on_a_terminal() -> None:
    from hyperviz_core.textsafe import terminal_safe

    assert terminal_safe("a\u2028b\u2029c") == "a\\u2028b\\u2029c"


def test_one_rule_names_secrets_for_fingerprints_and_masking() -> None:
    """The fingerprint (parameters left out) and the error masking (headers whose tokens are
    masked) read names by one rule, camelCase parts included: ``accessToken`` is no model
    setting, an ``Authentication`` or ``X-Access-Token`` header's value is masked."""
    from hyperviz_core.rag.providers.fingerprint import canonical

    kept = canonical({"model": "m", "accessToken": "tok-123", "stop_keywords": ["x"],
                      "query": "http://h/v1?apiKey=k1&q=2"})
    assert kept == {"model": "m", "stop_keywords": ["x"], "query": "http://h/v1?q=2"}
    exc = _status_error("denied", {"Authentication": "Token auth-9876543210",
                                   "X-Access-Token": "xat-0123456789", "Keep-Alive": "5"})
    assert {"auth-9876543210", "xat-0123456789"} <= request_secrets(exc)
    assert "5" not in request_secrets(exc)


def test_headers_holding_a_secret_word_anywhere_stay_masked() -> None:
    """Masking reads header names more eagerly than the fingerprint reads parameters: a
    compound such as ``X-Accesskey`` (one part, not a known one) is still a credential."""
    exc = _status_error("denied", {"X-Accesskey": "ak-0123456789", "X-Secrettoken": "st-42"})
    assert {"ak-0123456789", "st-42"} <= request_secrets(exc)


def test_token_counts_stay_in_the_fingerprint() -> None:
    """``max_tokens`` (and its camelCase and ``num_`` kin) is a model setting that changes
    the answers, not a credential: two models that differ only there fingerprint apart."""
    from hyperviz_core.rag.providers.fingerprint import canonical, params_hash

    for name in ("max_tokens", "maxNewTokens", "max_completion_tokens", "num_tokens"):
        assert canonical({"model": "m", name: 64}) == {"model": "m", name: 64}, name
        assert params_hash({"model": "m", name: 64}) != params_hash({"model": "m", name: 65})
    assert canonical({"model": "m", "access_token": "t", "tokens": ["t"]}) == {"model": "m"}

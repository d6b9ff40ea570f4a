"""The pure parts, without the world: Keccak-256, Retry-After, the SSE reader, the lazy LangChain import,
and the tool parameters built from an input schema."""

from __future__ import annotations

import email.utils
import json
import importlib
import io
import sys
import time

import pytest

from agent_rental import keccak256
from agent_rental.errors import AccessError, ApiError, RateLimitError, SpendLimitError, error_from_response, parse_retry_after
from agent_rental.sse import SseMessage, read_sse
from agent_rental.tools import agent_tool_parameters, tool_name_of


def test_keccak256_matches_known_vectors() -> None:
    assert keccak256(b"").hex() == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
    assert keccak256(b"transfer(address,uint256)")[:4].hex() == "a9059cbb"
    # Exactly one 136-byte block (the padding takes a block of its own), and more than one.
    assert keccak256(b"a" * 136).hex() == "a6c4d403279fe3e0af03729caada8374b5ca54d8065329a3ebcaeb4b60aa386e"
    assert keccak256(b"a" * 200).hex() == "96ea54061def936c4be90b518992fdc6f12f535068a256229aca54267b4d084d"


def test_retry_after_reads_seconds_and_http_dates() -> None:
    assert parse_retry_after("1") == 1.0
    assert parse_retry_after(" 2.5 ") == 2.5
    assert parse_retry_after(None) is None and parse_retry_after("") is None and parse_retry_after("soon") is None
    now = time.time()
    assert parse_retry_after(email.utils.formatdate(now + 10, usegmt=True), now=now) in (9.0, 10.0, 11.0)


def test_errors_are_chosen_by_status_with_the_envelopes_fields() -> None:
    body = '{"error": {"code": "credential_not_found", "message": "no", "status": 403, "request_id": "req_1", "on_chain_error": {"contract": "Marketplace", "error": "CredentialNotFound"}}}'
    error = error_from_response(403, {"retry-after": "3"}, body)
    assert isinstance(error, AccessError) and (error.code, error.request_id, error.retry_after) == ("credential_not_found", "req_1", 3.0)
    assert error.on_chain_error == {"contract": "Marketplace", "error": "CredentialNotFound"}
    assert isinstance(error_from_response(429, {}, "{}"), RateLimitError)
    plain = error_from_response(502, {"x-request-id": "req_2"}, "Bad gateway")
    assert type(plain) is ApiError and (plain.code, plain.message, plain.request_id) == ("http_502", "Bad gateway", "req_2")


def test_a_spend_limit_refusal_names_the_limit_and_its_reset() -> None:
    limit = {"scope": "key", "id": "key_1", "currency": "ETH", "period": "day", "amount": "3", "spent": "3", "reserved": "0", "remaining": "0", "resets_at": "2026-12-03T00:00:00.000Z"}
    body = '{"error": {"code": "spend_limit_reached", "message": "reached", "status": 402, "request_id": "req_3", "spend_limit": %s}}' % json.dumps(limit)
    error = error_from_response(402, {"retry-after": "600"}, body)
    assert isinstance(error, SpendLimitError) and (error.code, error.retry_after, error.resets_at) == ("spend_limit_reached", 600.0, "2026-12-03T00:00:00.000Z")
    assert error.limit == limit


def test_the_sse_reader_joins_data_lines_keeps_ids_and_drops_an_unfinished_event() -> None:
    text = b": comment\nevent: output\nid: 6\ndata: {\"delta\":\ndata: \"a\"}\n\nevent: done\ndata: {}\n\nevent: output\ndata: cut"
    assert list(read_sse(io.BytesIO(text).readline)) == [SseMessage("output", '{"delta":\n"a"}', "6"), SseMessage("done", "{}", "6")]


def test_the_langchain_adapter_imports_langchain_only_when_called() -> None:
    module = importlib.import_module("agent_rental.langchain")
    assert "langchain_core" not in sys.modules
    if importlib.util.find_spec("langchain_core") is None:
        with pytest.raises(ImportError, match="pip install langchain-core"):
            module.langchain_tools([])


def test_tool_parameters_from_an_input_schema() -> None:
    flat, is_flat = agent_tool_parameters({"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "properties": {"contract": {"type": "string"}}, "required": ["contract"]})
    assert is_flat and flat == {"type": "object", "properties": {"task": flat["properties"]["task"], "contract": {"type": "string"}}, "required": ["task", "contract"]}
    nested, is_flat = agent_tool_parameters({"type": "string", "minLength": 1})
    assert not is_flat and nested["required"] == ["task", "input"] and nested["properties"]["input"]["type"] == "string"
    assert tool_name_of("Contract Reviewer") == "contract_reviewer" and tool_name_of("!!!") == "agent"


def test_the_error_classes_are_the_typescript_sdks_with_the_same_hierarchy() -> None:
    import pathlib
    import re

    import agent_rental

    source = (pathlib.Path(__file__).resolve().parents[2] / "sdk/src/errors.ts").read_text()
    declared = dict(re.findall(r"export class (\w+) extends (\w+)", source))
    assert declared == {"AgentRentalError": "Error", "ApiError": "AgentRentalError", "AuthError": "ApiError", "AccessError": "ApiError", "NotFoundError": "ApiError", "RateLimitError": "ApiError", "SpendLimitError": "ApiError", "PaymentRequiredError": "ApiError"}
    for name, base in declared.items():
        cls = getattr(agent_rental, name)
        assert cls.__bases__[0].__name__ == ("Exception" if base == "Error" else base)


def test_each_status_raises_the_class_the_typescript_sdk_throws_for_it() -> None:
    import pathlib
    import re

    from agent_rental.errors import _BY_STATUS

    source = (pathlib.Path(__file__).resolve().parents[2] / "sdk/src/errors.ts").read_text()
    typescript = {int(status): cls for status, cls in re.findall(r"case (\d+):\s*return new (\w+)\(", source)}
    # 402 is two classes (a block in the TypeScript switch): a spending limit's by default, x402's below.
    assert "return new SpendLimitError(" in source and "return new PaymentRequiredError(" in source
    typescript[402] = "SpendLimitError"
    assert typescript == {status: cls.__name__ for status, cls in _BY_STATUS.items()}
    for status, name in typescript.items():
        error = error_from_response(status, {}, '{"error": {"code": "some_code", "message": "m", "status": %d, "request_id": "req_9"}}' % status)
        assert (type(error).__name__, error.code, error.status, error.request_id, error.retry_after) == (name, "some_code", status, "req_9", None)
    assert type(error_from_response(409, {}, "{}")) is ApiError


def test_an_x402_402_is_payment_required_and_a_spending_limits_402_is_not() -> None:
    import base64
    import json

    from agent_rental import PaymentRequiredError, SpendLimitError

    offer = {"x402Version": 2, "error": "payment_required", "resource": {"url": "http://x/v1/execute"}, "accepts": [{"scheme": "exact", "network": "eip155:31337", "amount": "250000", "asset": "0xA", "payTo": "0xB", "maxTimeoutSeconds": 600}]}
    header = base64.b64encode(json.dumps(offer).encode()).decode()
    paid = error_from_response(402, {"payment-required": header}, '{"error": {"code": "payment_required", "message": "pay", "status": 402}}')
    assert isinstance(paid, PaymentRequiredError) and not isinstance(paid, SpendLimitError)
    assert (paid.reason, paid.amount, paid.asset, paid.pay_to, paid.network) == ("payment_required", "250000", "0xA", "0xB", "eip155:31337")
    # The code alone is enough; an unreadable header decodes to nothing.
    bare = error_from_response(402, {"payment-required": "%%%"}, '{"error": {"code": "payment_required", "message": "pay", "status": 402}}')
    assert isinstance(bare, PaymentRequiredError) and bare.payment_required is None and bare.accepts == []
    limit = error_from_response(402, {}, '{"error": {"code": "spend_limit_reached", "message": "m", "status": 402, "spend_limit": {"resets_at": "2026-12-03T00:00:00Z"}}}')
    assert isinstance(limit, SpendLimitError) and not isinstance(limit, PaymentRequiredError) and limit.resets_at == "2026-12-03T00:00:00Z"


def test_the_reference_names_every_operation_of_the_client() -> None:
    import inspect
    import pathlib

    from agent_rental import AgentRental

    reference = (pathlib.Path(__file__).resolve().parents[2] / "docs/reference/python-sdk.md").read_text()
    client = AgentRental("http://127.0.0.1:1")
    operations = [name for name, fn in vars(AgentRental).items() if inspect.isfunction(fn) and not name.startswith("_")]
    for namespace, value in vars(client).items():
        if type(value).__module__ == "agent_rental.client":
            operations += [f"{namespace}.{name}" for name, fn in vars(type(value)).items() if inspect.isfunction(fn) and not name.startswith("_")]
    missing = [name for name in operations if f"{name}(" not in reference]
    assert not missing, f"docs/reference/python-sdk.md does not name: {', '.join(missing)}"


def test_a_runs_wallet_signs_its_own_message_per_purpose_and_the_client_sends_it_instead_of_the_key() -> None:
    import http.server
    import threading

    from agent_rental import WALLET_SIGNATURE_HEADER, AgentRental, run_proof_message, run_wallet_signature

    signed: list[str] = []

    def sign(message: str) -> str:
        signed.append(message)
        return "0x" + "ab" * 65

    assert run_proof_message("read", "run_0123", 1_800_000_000) == "run-read:run_0123:1800000000"
    assert run_proof_message("feedback", "run_0123", 1_800_000_000) == "run-feedback:run_0123:1800000000"
    assert run_wallet_signature("run_0123", sign, timestamp=1_800_000_000) == "1800000000:0x" + "ab" * 65
    assert signed == ["run-read:run_0123:1800000000"]
    before = int(time.time())
    moment = int(run_wallet_signature("run_0123", sign, "feedback").split(":")[0])
    assert before <= moment <= int(time.time()) and signed[-1] == f"run-feedback:run_0123:{moment}"

    # What runs.get(sign=...) puts on the wire, seen by a local server: the signature, never the key.
    seen: list[dict[str, str]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append({name.lower(): value for name, value in self.headers.items()})
            body = json.dumps({"run_id": "run_0123", "status": "completed", "output": None}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        client = AgentRental(f"http://127.0.0.1:{server.server_address[1]}", api_key="svc_test_someone_else")
        assert client.runs.get("run_0123", sign=sign)["run_id"] == "run_0123"
        client.runs.get("run_0123")
    finally:
        server.shutdown()
        server.server_close()
    assert "authorization" not in seen[0] and seen[0][WALLET_SIGNATURE_HEADER.lower()].endswith(":0x" + "ab" * 65)
    assert signed[-1].startswith("run-read:run_0123:")
    assert seen[1]["authorization"] == "Bearer svc_test_someone_else" and WALLET_SIGNATURE_HEADER.lower() not in seen[1]

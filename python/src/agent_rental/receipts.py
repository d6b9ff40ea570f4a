"""A run's on-chain receipt, verified against the chain with nothing but a JSON-RPC ``eth_call``.

The service logs finished runs in batches: the Merkle root of their receipts goes on-chain, and each
run carries the proof that puts its receipt under that root. :func:`verify_run_receipt` recomputes the
receipt from the run's own fields and asks the marketplace contract's ``verifyRunReceipt`` (a free,
read-only call) whether the proof leads to the root the contract stored. Keccak-256 and the ABI
encoding are done here, so no Ethereum library is needed.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any, Mapping, Optional, Sequence

from .errors import AgentRentalError

# ---------------------------------------------------------------------------------------------------
# Keccak-256 (the pre-standard SHA-3 Ethereum uses: padding 0x01, not hashlib's sha3_256 0x06).

_ROUND_CONSTANTS = [
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
    0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
    0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
    0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
    0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
]
_ROTATIONS = [
    [0, 36, 3, 41, 18], [1, 44, 10, 45, 2], [62, 6, 43, 15, 61], [28, 55, 25, 21, 56], [27, 20, 39, 8, 14],
]
_MASK = (1 << 64) - 1


def _rotl(value: int, shift: int) -> int:
    return ((value << shift) | (value >> (64 - shift))) & _MASK if shift else value


def _keccak_f(state: list[list[int]]) -> None:
    for rc in _ROUND_CONSTANTS:
        c = [state[x][0] ^ state[x][1] ^ state[x][2] ^ state[x][3] ^ state[x][4] for x in range(5)]
        d = [c[(x - 1) % 5] ^ _rotl(c[(x + 1) % 5], 1) for x in range(5)]
        for x in range(5):
            for y in range(5):
                state[x][y] ^= d[x]
        b = [[0] * 5 for _ in range(5)]
        for x in range(5):
            for y in range(5):
                b[y][(2 * x + 3 * y) % 5] = _rotl(state[x][y], _ROTATIONS[x][y])
        for x in range(5):
            for y in range(5):
                state[x][y] = b[x][y] ^ ((~b[(x + 1) % 5][y]) & b[(x + 2) % 5][y])
        state[0][0] ^= rc


def keccak256(data: bytes) -> bytes:
    """Keccak-256 of ``data``, as Solidity's ``keccak256``."""
    rate = 136
    padded = bytearray(data)
    padded.append(0x01)
    while len(padded) % rate:
        padded.append(0)
    padded[-1] |= 0x80
    state = [[0] * 5 for _ in range(5)]
    for offset in range(0, len(padded), rate):
        block = padded[offset : offset + rate]
        for i in range(rate // 8):
            x, y = i % 5, i // 5
            state[x][y] ^= int.from_bytes(block[8 * i : 8 * i + 8], "little")
        _keccak_f(state)
    out = b"".join(state[i % 5][i // 5].to_bytes(8, "little") for i in range(4))
    return out[:32]


# ---------------------------------------------------------------------------------------------------
# The receipt and its ABI encoding.

_VERIFY_SIGNATURE = "verifyRunReceipt(uint256,(bytes32,bytes32,address,uint8,uint256,uint64),bytes32[])"


def _word(value: int) -> bytes:
    if value < 0 or value >= 1 << 256:
        raise ValueError("value out of range for a 256-bit word")
    return value.to_bytes(32, "big")


def _bytes32(hex_text: str) -> bytes:
    raw = bytes.fromhex(hex_text[2:] if hex_text.startswith("0x") else hex_text)
    if len(raw) != 32:
        raise ValueError(f"not a 32-byte hex value: {hex_text!r}")
    return raw


def _address(hex_text: str) -> bytes:
    raw = bytes.fromhex(hex_text[2:] if hex_text.startswith("0x") else hex_text)
    if len(raw) != 20:
        raise ValueError(f"not an address: {hex_text!r}")
    return raw.rjust(32, b"\0")


def receipt_fields(run: Mapping[str, Any], renter: str) -> tuple[bytes, bytes, bytes, int, int, int]:
    """The six receipt fields of a run (runId, listingId, renter, status, costWei, durationMs), ABI words.

    ``run`` is the run as ``GET /v1/runs/{run_id}`` answers it; ``renter`` the wallet it ran for.
    """
    listing_id = str(run["listing_id"])
    if not listing_id.startswith("lst_"):
        raise ValueError(f"not a listing id: {listing_id!r}")
    status = run["status"]
    if status not in ("completed", "failed"):
        raise ValueError(f"run {run.get('run_id')} is {status}: only a finished run has a receipt")
    return (
        keccak256(str(run["run_id"]).encode("utf-8")),
        _bytes32(listing_id[4:]),
        _address(renter),
        0 if status == "completed" else 1,
        int(run["cost_wei"]),
        int(run["duration_ms"]),
    )


def _encode_receipt(fields: tuple[bytes, bytes, bytes, int, int, int]) -> bytes:
    run_id, listing_id, renter, status, cost, duration = fields
    return run_id + listing_id + renter + _word(status) + _word(cost) + _word(duration)


def run_receipt_leaf(run: Mapping[str, Any], renter: str) -> str:
    """The run's receipt leaf, ``keccak256(keccak256(abi.encode(fields)))``, as 0x hex (the run's ``receipt.leaf``)."""
    return "0x" + keccak256(keccak256(_encode_receipt(receipt_fields(run, renter)))).hex()


def verify_call_data(run: Mapping[str, Any], renter: str) -> str:
    """The calldata of ``verifyRunReceipt(batch_index, receipt, proof)`` for the run's receipt."""
    receipt = run.get("receipt")
    if not isinstance(receipt, Mapping):
        raise ValueError(f"run {run.get('run_id')} has no receipt yet (its batch is not logged)")
    proof: Sequence[str] = receipt["proof"]
    selector = keccak256(_VERIFY_SIGNATURE.encode())[:4]
    # Head: batchIndex, the static tuple inline (6 words), then the offset of the dynamic proof array.
    head = _word(int(receipt["batch_index"])) + _encode_receipt(receipt_fields(run, renter)) + _word(32 * 8)
    tail = _word(len(proof)) + b"".join(_bytes32(p) for p in proof)
    return "0x" + (selector + head + tail).hex()


def eth_call(rpc_url: str, to: str, data: str, *, timeout: float = 30.0) -> str:
    """A plain JSON-RPC ``eth_call`` at the latest block; the answer's hex data."""
    payload = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "eth_call", "params": [{"to": to, "data": data}, "latest"]}).encode()
    request = urllib.request.Request(rpc_url, data=payload, headers={"content-type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            answer = json.loads(response.read())
    except (OSError, ValueError) as error:
        raise AgentRentalError(code="connection_failed", status=0, message=f"eth_call failed: {error}") from error
    if not isinstance(answer, dict) or "result" not in answer:
        detail = answer.get("error") if isinstance(answer, dict) else answer
        raise AgentRentalError(code="rpc_error", status=0, message=f"eth_call was refused: {detail}")
    return str(answer["result"])


def verify_run_receipt(run: Mapping[str, Any], *, rpc_url: str, marketplace: str, renter: str, timeout: float = 30.0) -> bool:
    """Whether the run's receipt is in the batch the marketplace logged on-chain.

    The receipt is rebuilt from the run's own fields (a receipt that misstates the status, the cost or
    the duration does not verify) and checked by the contract's ``verifyRunReceipt`` against the root
    it stored for the batch. Raises ValueError when the run has no receipt yet.

    Args:
        run: the run, as ``client.runs.get(run_id)`` answers it.
        rpc_url: any JSON-RPC endpoint of the chain.
        marketplace: the marketplace contract's address (``GET /v1/health`` names it).
        renter: the wallet the run ran for.
    """
    result = eth_call(rpc_url, marketplace, verify_call_data(run, renter), timeout=timeout)
    raw = bytes.fromhex(result[2:] if result.startswith("0x") else result)
    return len(raw) == 32 and int.from_bytes(raw, "big") == 1

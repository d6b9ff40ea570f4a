// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice x402 payments as the settler holds them, and the packed batch settlePayments takes (the layout
/// of TokenMarketplace.settlePayments, as src/chain/settle-payments.ts writes it).
library PaymentBatch {
    /// @notice One payment: a TransferWithAuthorization `from` signed to the marketplace, for one run.
    struct Payment {
        bytes32 listingId;
        address from;
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
        bytes32 runRef;
        bytes signature;
    }

    uint256 internal constant GROUP_HEADER_BYTES = 66;
    uint256 internal constant PAYMENT_BYTES = 135;

    /// @notice The batch of `ps` in their order: each run of consecutive payments of one listing and value
    /// is a group (the settler groups by listing and value; a test chooses its groups by the order).
    function pack(Payment[] memory ps) internal pure returns (bytes memory batch) {
        uint256 groups = 0;
        for (uint256 i = 0; i < ps.length; ++i) {
            if (i == 0 || !_sameGroup(ps[i], ps[i - 1])) ++groups;
        }
        batch = new bytes(groups * GROUP_HEADER_BYTES + ps.length * PAYMENT_BYTES);
        uint256 pos = 0;
        uint256 start = 0;
        while (start < ps.length) {
            uint256 end = start + 1;
            while (end < ps.length && _sameGroup(ps[end], ps[start])) ++end;
            pos = _put(batch, pos, header(ps[start].listingId, ps[start].value, end - start));
            for (uint256 i = start; i < end; ++i) pos = _put(batch, pos, packed(ps[i]));
            start = end;
        }
    }

    /// @notice A group's header: listing id, value, count.
    function header(bytes32 listingId, uint256 value, uint256 count) internal pure returns (bytes memory) {
        return abi.encodePacked(listingId, value, uint16(count));
    }

    /// @notice One payment's 135 bytes (the times cut to 5 bytes and the run reference to 8, as the
    /// settler writes them).
    function packed(Payment memory p) internal pure returns (bytes memory) {
        bytes memory sig = p.signature;
        bytes32 r;
        bytes32 s;
        uint8 v;
        if (sig.length == 65) {
            assembly {
                r := mload(add(sig, 32))
                s := mload(add(sig, 64))
                v := byte(0, mload(add(sig, 96)))
            }
        }
        return abi.encodePacked(p.from, uint40(p.validAfter), uint40(p.validBefore), p.nonce, uint64(uint256(p.runRef)), r, s, v);
    }

    /// @notice A batch of one payment.
    function one(Payment memory p) internal pure returns (bytes memory) {
        Payment[] memory ps = new Payment[](1);
        ps[0] = p;
        return pack(ps);
    }

    function _sameGroup(Payment memory a, Payment memory b) private pure returns (bool) {
        return a.listingId == b.listingId && a.value == b.value;
    }

    function _put(bytes memory batch, uint256 pos, bytes memory part) private pure returns (uint256) {
        for (uint256 i = 0; i < part.length; ++i) batch[pos + i] = part[i];
        return pos + part.length;
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {MarketplaceTestBase} from "./utils/MarketplaceTestBase.sol";

/// @notice The run log: batches of run receipts as Merkle roots, and receipt proofs. Every function on its happy path, and every custom error triggered with its selector
/// (and arguments where it has them) checked.
contract MarketplaceRunLogTest is MarketplaceTestBase {
    /*//////////////////////////////////////////////////////////////
                                RUN LOG
    //////////////////////////////////////////////////////////////*/

    function test_logRuns_andVerifyReceipts() public {
        bytes32 listingId = _list(PER_QUERY);
        Marketplace.RunReceipt[4] memory receipts;
        bytes32[4] memory leaves;
        for (uint256 i = 0; i < 4; ++i) {
            receipts[i] = Marketplace.RunReceipt(bytes32(i + 1), listingId, renter, uint8(i % 2), PRICE, uint64(100 * i));
            leaves[i] = market.runReceiptLeaf(bytes32(i + 1), listingId, renter, uint8(i % 2), PRICE, uint64(100 * i));
        }
        bytes32 left = _pair(leaves[0], leaves[1]);
        bytes32 root = _pair(left, _pair(leaves[2], leaves[3]));
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.RunsLogged(0, root, 4);
        vm.prank(authority);
        uint256 batch = market.logRuns(root, 4);
        vm.assertEq(batch, 0, "first batch");
        vm.assertEq(market.runBatchCount(), 1, "count");
        bytes32[] memory proof = new bytes32[](2);
        proof[0] = leaves[3];
        proof[1] = left;
        vm.assertTrue(market.verifyRunReceipt(0, receipts[2], proof), "receipt 2 proven");
        vm.assertFalse(market.verifyRunReceipt(0, receipts[1], proof), "wrong receipt refused");
        vm.assertFalse(market.verifyRunReceipt(1, receipts[2], proof), "unknown batch refused");
        receipts[2].costWei = 0;
        vm.assertFalse(market.verifyRunReceipt(0, receipts[2], proof), "tampered cost refused");
        vm.prank(authority);
        vm.assertEq(market.logRuns(keccak256("next"), 100), 1, "second batch");
    }

    function test_runReceiptLeaf_isTheDoubleHashOfTheEncodedFields() public view {
        bytes32 leaf = market.runReceiptLeaf(bytes32(uint256(7)), bytes32(uint256(8)), renter, 1, PRICE, 250);
        bytes32 expected = keccak256(
            bytes.concat(keccak256(abi.encode(bytes32(uint256(7)), bytes32(uint256(8)), renter, uint8(1), uint256(PRICE), uint64(250))))
        );
        vm.assertEq(leaf, expected, "OpenZeppelin StandardMerkleTree leaf encoding");
    }

    /// @notice An inner node of a logged tree cannot be passed off as a receipt: verification takes the
    /// receipt's fields and hashes the leaf itself, so the shorter proof from the node proves nothing.
    function test_verifyRunReceipt_refusesAnInnerNodeAsAReceipt() public {
        bytes32 listingId = _list(PER_QUERY);
        bytes32[4] memory leaves;
        for (uint256 i = 0; i < 4; ++i) {
            leaves[i] = market.runReceiptLeaf(bytes32(i + 1), listingId, renter, 0, PRICE, 10);
        }
        bytes32 left = _pair(leaves[0], leaves[1]);
        bytes32 right = _pair(leaves[2], leaves[3]);
        vm.prank(authority);
        market.logRuns(_pair(left, right), 4);
        bytes32[] memory proof = new bytes32[](1);
        proof[0] = right;
        // The only receipt whose fields could stand for `left` would need a leaf equal to it; try the
        // node's own halves as the receipt's fields: no encoding of them hashes to `left`.
        Marketplace.RunReceipt memory forged = Marketplace.RunReceipt(leaves[0], leaves[1], address(0), 0, 0, 0);
        vm.assertFalse(market.verifyRunReceipt(0, forged, proof), "inner node refused");
        vm.assertTrue(_pair(left, proof[0]) == market.runBatchRoots(0), "the node's path is the real one");
    }

    function test_RevertWhen_logRunsWithZeroRoot() public {
        vm.expectRevert(Marketplace.EmptyRunBatch.selector);
        vm.prank(authority);
        market.logRuns(bytes32(0), 1);
    }

    function test_RevertWhen_logRunsWithZeroCount() public {
        vm.expectRevert(Marketplace.EmptyRunBatch.selector);
        vm.prank(authority);
        market.logRuns(keccak256("root"), 0);
        vm.assertEq(market.runBatchCount(), 0, "no batch logged");
    }

    function _pair(bytes32 a, bytes32 b) private pure returns (bytes32) {
        return a < b ? keccak256(abi.encode(a, b)) : keccak256(abi.encode(b, a));
    }
}

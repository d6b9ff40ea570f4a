// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {TokenTestBase} from "./utils/TokenTestBase.sol";
import {PaymentBatch} from "./utils/PaymentBatch.sol";

/// @notice Fuzzed: each purchase and charge splits exactly into escrow and fee in its own token, and a
/// batch of x402 payments moves exactly what it settles.
contract TokenMarketplaceFuzzTest is TokenTestBase {
    function testFuzz_oneTimeSplitIsExactPerToken(uint96 price, uint256 bps, bool inUtility) public {
        address token = inUtility ? address(rent) : address(usdc);
        price = uint96(_bound(price, inUtility ? 1e12 : 1, inUtility ? 1e26 : 1e14));
        bps = _bound(bps, 0, 1000);
        vm.prank(authority);
        tm.setFeeBasisPoints(bps);
        bytes32 id = _list(token, ONE_TIME, price);
        _approve(inUtility ? ERC20(address(rent)) : ERC20(address(usdc)), renter, price);
        vm.prank(renter);
        tm.purchaseOneTime(id);
        uint256 fee = (uint256(price) * bps) / 10_000;
        vm.assertEq(_escrow(id) + tm.accruedFees(token), price, "escrow + fee = price");
        vm.assertEq(tm.accruedFees(token), fee, "fee");
        address other = inUtility ? address(usdc) : address(rent);
        vm.assertEq(tm.accruedFees(other), 0, "the other token untouched");
    }

    function testFuzz_paymentsMoveExactlyWhatSettles(uint256 count, uint256 badMask, uint96 price) public {
        count = _bound(count, 1, 12);
        price = uint96(_bound(price, 1, 1e12));
        bytes32 id = _list(address(usdc), PER_QUERY, price);
        PaymentBatch.Payment[] memory ps = new PaymentBatch.Payment[](count);
        uint256 good;
        for (uint256 i = 0; i < count; ++i) {
            uint256 key = 0x5000 + i;
            usdc.mint(svm.addr(key), 1e13);
            bool bad = (badMask >> i) & 1 == 1;
            ps[i] = _payment(key, id, bad ? uint256(price) + 1 : price, bytes32(i), bytes32(i + 1));
            if (!bad) ++good;
        }
        vm.prank(authority);
        vm.assertEq(tm.settlePayments(PaymentBatch.pack(ps)), good, "settled count");
        vm.assertEq(usdc.balanceOf(address(tm)), good * price, "held");
        vm.assertEq(_escrow(id) + tm.accruedFees(address(usdc)), good * price, "escrow + fees = held");
    }
}

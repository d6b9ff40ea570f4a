// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {TokenMarketplace} from "../src/TokenMarketplace.sol";
import {TokenTestBase} from "./utils/TokenTestBase.sol";
import {Vm} from "./utils/Vm.sol";

/// @notice The charge cap in the token marketplace: the same rules as the ETH contract's, in the
/// listing's token; x402 payments are no charge of the balance and count toward no cap.
contract TokenMarketplaceChargeCapTest is TokenTestBase {
    uint256 internal constant DAY = 1 days;

    function _cap(bytes32 id, address who, uint256 amount, uint256 period) internal {
        vm.prank(who);
        tm.setChargeCap(id, amount, period);
    }

    function _batch(bytes32 id, address who, uint256 from, uint256 count) internal returns (uint256) {
        TokenMarketplace.Charge[] memory charges = new TokenMarketplace.Charge[](count);
        for (uint256 i = 0; i < count; ++i) charges[i] = TokenMarketplace.Charge(id, who, bytes32(from + i + 1), PRICE);
        vm.prank(authority);
        return tm.consumeQueries(charges);
    }

    function test_setChargeCap_refusalsAndEvent() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        bytes32 oneTime = _list(address(usdc), ONE_TIME, PRICE);
        _buyPerQuery(id, renter, PRICE * 10);
        vm.expectRevert(Marketplace.ListingNotFound.selector);
        _cap(bytes32(uint256(42)), renter, PRICE, DAY);
        vm.expectRevert(Marketplace.InvalidAccessType.selector);
        _cap(oneTime, renter, PRICE, DAY);
        vm.expectRevert(Marketplace.CredentialNotFound.selector);
        _cap(id, stranger, PRICE, DAY);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InvalidChargeCap.selector, PRICE, 60));
        _cap(id, renter, PRICE, 60);
        vm.expectEmit(true, true, true, true, address(tm));
        emit Marketplace.ChargeCapSet(id, renter, PRICE * 3, DAY);
        _cap(id, renter, PRICE * 3, DAY);
        (uint256 amount, uint256 period, uint256 periodStart, uint256 baseline) = tm.chargeCaps(id, renter);
        vm.assertEq(amount, PRICE * 3, "amount");
        vm.assertEq(period, DAY, "period");
        vm.assertEq(periodStart, START, "start");
        vm.assertEq(baseline, PRICE * 10, "baseline");
    }

    function test_capRefusesPastItsAmountAndRollsOver() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        _buyPerQuery(id, renter, PRICE * 10);
        _cap(id, renter, PRICE * 3, DAY);
        vm.recordLogs();
        vm.assertEq(_batch(id, renter, 0, 5), 3, "three charged");
        Vm.Log[] memory logs = vm.getRecordedLogs();
        uint256 refused;
        for (uint256 i = 0; i < logs.length; ++i) {
            if (logs[i].topics[0] != Marketplace.QueryRefused.selector) continue;
            vm.assertEq(abi.decode(logs[i].data, (bytes4)), Marketplace.ChargeCapExceeded.selector, "the reason");
            ++refused;
        }
        vm.assertEq(refused, 2, "two refused");
        vm.prank(authority);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, PRICE * 3, PRICE * 3));
        tm.consumeQuery(id, renter, bytes32(uint256(99)), PRICE);
        vm.warp(START + DAY);
        vm.assertEq(_batch(id, renter, 5, 4), 3, "the next period");
        vm.assertEq(_balance(id, renter), PRICE * 4, "six debited");
    }

    function test_topUpAndWithdrawalKeepThePeriodsCharges() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        _buyPerQuery(id, renter, PRICE * 4);
        _cap(id, renter, PRICE * 3, DAY);
        vm.assertEq(_batch(id, renter, 0, 2), 2, "two");
        _approve(usdc, renter, PRICE * 5);
        vm.prank(renter);
        tm.topUpBalance(id, PRICE * 5);
        vm.assertEq(_batch(id, renter, 2, 3), 1, "a top-up adds no room");
        vm.prank(creator);
        tm.revokePerQueryAccess(id, renter);
        vm.prank(renter);
        tm.withdrawUnspentBalance(id);
        (,,, uint256 baseline) = tm.chargeCaps(id, renter);
        vm.assertEq(baseline, PRICE * 3, "the period's charges kept after the withdrawal");
    }

    /// @notice As the ETH contract's: a capped renter's deposit price (in the cap's slot) bounds each
    /// charge, moves with a top-up, lets the renter leave when the price rises past it, and goes back to
    /// the record with the cap's removal; the periods past the 256th hold the cap too.
    function test_depositPriceAndLongRunningPeriods() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        _buyPerQuery(id, renter, PRICE * 10);
        _cap(id, renter, PRICE * 2, 1 hours);
        vm.prank(renter);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        tm.requestBalanceWithdrawal(id);
        vm.prank(creator);
        tm.updateListing(id, uint96(PRICE * 2), URI);
        vm.prank(authority);
        vm.assertTrue(tm.consumeQuery(id, renter, bytes32(uint256(50)), PRICE * 2), "charged");
        vm.assertEq(_balance(id, renter), PRICE * 9, "at the deposit price");
        _approve(usdc, renter, PRICE * 2);
        vm.prank(renter);
        tm.topUpBalance(id, PRICE * 2);
        (,,, uint256 depositPrice,,) = tm.perQueryBalances(id, renter);
        vm.assertEq(depositPrice, PRICE * 2, "a top-up moves it");
        vm.warp(START + 256 hours);
        vm.prank(authority);
        vm.assertTrue(tm.consumeQuery(id, renter, bytes32(uint256(51)), PRICE * 2), "the cap's whole amount");
        vm.prank(authority);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, PRICE * 2, PRICE * 2));
        tm.consumeQuery(id, renter, bytes32(uint256(52)), PRICE);
        (,, uint256 periodStart, uint256 baseline) = tm.chargeCaps(id, renter);
        vm.assertEq(periodStart, START + 256 hours, "the period that holds now");
        vm.assertEq(baseline - _balance(id, renter), PRICE * 2, "its charges");
        vm.prank(creator);
        tm.updateListing(id, uint96(PRICE * 3), URI);
        vm.prank(renter);
        tm.requestBalanceWithdrawal(id);
        _cap(id, renter, 0, 0);
        (,,, depositPrice,,) = tm.perQueryBalances(id, renter);
        vm.assertEq(depositPrice, PRICE * 2, "back in the record");
    }

    function test_noCap_unchanged() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        _buyPerQuery(id, renter, PRICE * 5);
        vm.assertEq(_batch(id, renter, 0, 6), 5, "every run the balance covers");
        (,,,,, bool capped) = tm.perQueryBalances(id, renter);
        vm.assertFalse(capped, "no cap");
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {MarketplaceTestBase} from "./utils/MarketplaceTestBase.sol";
import {Vm} from "./utils/Vm.sol";

/// @notice A renter's charge cap per period: set, refused past, reported in a batch, rolled over, kept
/// through deposits and withdrawals, removed; a renter with no cap is charged as before.
contract MarketplaceChargeCapTest is MarketplaceTestBase {
    uint256 internal constant DAY = 1 days;

    function _cap(bytes32 id, address who, uint256 amount, uint256 period) internal {
        vm.prank(who);
        market.setChargeCap(id, amount, period);
    }

    function _capOf(bytes32 id, address who)
        internal
        view
        returns (uint256 amount, uint256 period, uint256 periodStart, uint256 baseline)
    {
        (amount, period, periodStart, baseline) = market.chargeCaps(id, who);
    }

    function _capped(bytes32 id, address who) internal view returns (bool capped) {
        (,,,,, capped) = market.perQueryBalances(id, who);
    }

    function _ref(uint256 i) internal pure returns (bytes32) {
        return bytes32(i + 1);
    }

    function _batch(bytes32 id, address who, uint256 from, uint256 count) internal returns (uint256) {
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](count);
        for (uint256 i = 0; i < count; ++i) charges[i] = Marketplace.Charge(id, who, _ref(from + i), PRICE);
        vm.prank(authority);
        return market.consumeQueries(charges);
    }

    function test_setChargeCap_storesItAndEmits() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 10);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.ChargeCapSet(id, renter, PRICE * 3, DAY);
        _cap(id, renter, PRICE * 3, DAY);
        (uint256 amount, uint256 period, uint256 periodStart, uint256 baseline) = _capOf(id, renter);
        vm.assertEq(amount, PRICE * 3, "amount");
        vm.assertEq(period, DAY, "period");
        vm.assertEq(periodStart, START, "a period begins now");
        vm.assertEq(baseline, PRICE * 10, "at the current balance");
        vm.assertTrue(_capped(id, renter), "the record says capped");
    }

    function test_setChargeCap_refusals() public {
        bytes32 perQuery = _list(PER_QUERY);
        bytes32 oneTime = _list(ONE_TIME);
        _buyPerQuery(perQuery, renter, PRICE * 2);
        vm.expectRevert(Marketplace.ListingNotFound.selector);
        _cap(bytes32(uint256(42)), renter, PRICE, DAY);
        vm.expectRevert(Marketplace.InvalidAccessType.selector);
        _cap(oneTime, renter, PRICE, DAY);
        // A cap on a listing the renter holds nothing on.
        vm.expectRevert(Marketplace.CredentialNotFound.selector);
        _cap(perQuery, stranger, PRICE, DAY);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InvalidChargeCap.selector, PRICE, 0));
        _cap(perQuery, renter, PRICE, 0);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InvalidChargeCap.selector, PRICE, 1 hours - 1));
        _cap(perQuery, renter, PRICE, 1 hours - 1);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InvalidChargeCap.selector, PRICE, 180 days + 1));
        _cap(perQuery, renter, PRICE, 180 days + 1);
        uint256 tooMuch = uint256(type(uint88).max) + 1;
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InvalidChargeCap.selector, tooMuch, DAY));
        _cap(perQuery, renter, tooMuch, DAY);
        // The bounds themselves are accepted.
        _cap(perQuery, renter, type(uint88).max, 1 hours);
        _cap(perQuery, renter, 0, 180 days);
        vm.assertTrue(_capped(perQuery, renter), "capped at zero: nothing may be charged");
        vm.expectRevert(abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, 0, 0));
        _consume(perQuery, renter, _ref(0));
    }

    function test_noCap_chargesAsBefore() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 5);
        vm.assertEq(_batch(id, renter, 0, 6), 5, "every run the balance covers");
        vm.assertEq(_balance(id, renter), 0, "balance spent");
        vm.assertFalse(_capped(id, renter), "no cap");
        (uint256 amount, uint256 period,,) = _capOf(id, renter);
        vm.assertEq(amount + period, 0, "nothing stored");
    }

    function test_consumeQuery_refusesAChargePastTheCap() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 10);
        _cap(id, renter, PRICE * 3, DAY);
        for (uint256 i = 0; i < 3; ++i) vm.assertTrue(_consume(id, renter, _ref(i)), "under the cap");
        vm.expectRevert(abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, PRICE * 3, PRICE * 3));
        _consume(id, renter, _ref(3));
        vm.assertEq(_balance(id, renter), PRICE * 7, "the refused charge took nothing");
        vm.assertFalse(market.isRunCharged(_ref(3)), "the refused run is not marked");
        // Set again: a new period with nothing charged. Past three runs, a full run is refused (the error
        // names the period's charges, then the cap) and a cheaper admitted price that still fits is
        // charged: the cap is an amount, not a count.
        _cap(id, renter, PRICE * 3 + PRICE / 2, DAY);
        for (uint256 i = 3; i < 6; ++i) vm.assertTrue(_consume(id, renter, _ref(i)), "the new cap's period");
        vm.expectRevert(abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, PRICE * 3, PRICE * 3 + PRICE / 2));
        _consume(id, renter, _ref(6));
        vm.assertTrue(_consume(id, renter, _ref(6), PRICE / 2), "half a run fits");
        vm.assertEq(_balance(id, renter), PRICE * 3 + PRICE / 2, "six and a half runs debited");
        vm.expectRevert(
            abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, PRICE * 3 + PRICE / 2, PRICE * 3 + PRICE / 2)
        );
        _consume(id, renter, _ref(7), 1e12);
    }

    function test_consumeQueries_reportsEachRefusal() public {
        bytes32 id = _list(PER_QUERY);
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
        vm.assertEq(_balance(id, renter), PRICE * 7, "three debited");
        // Another renter of the listing, uncapped, is charged in the same batch as before.
        _buyPerQuery(id, stranger, PRICE * 2);
        vm.assertEq(_batch(id, stranger, 10, 2), 2, "the uncapped renter");
    }

    function test_periodRollsOver() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 20);
        _cap(id, renter, PRICE * 3, DAY);
        vm.assertEq(_batch(id, renter, 0, 4), 3, "first period");
        vm.warp(START + DAY - 1);
        vm.assertEq(_batch(id, renter, 4, 1), 0, "still the first period at its last second");
        vm.warp(START + DAY);
        vm.assertEq(_batch(id, renter, 4, 4), 3, "the second period, from its first second");
        (,, uint256 periodStart, uint256 baseline) = _capOf(id, renter);
        vm.assertEq(periodStart, START + DAY, "the period moved on");
        vm.assertEq(baseline, PRICE * 17, "its baseline: the balance when it began here");
        // Two and a half periods later: the period that holds now, aligned to the first.
        vm.warp(START + 3 * DAY + DAY / 2);
        vm.assertTrue(_consume(id, renter, _ref(20)), "a new period");
        (,, periodStart,) = _capOf(id, renter);
        vm.assertEq(periodStart, START + 3 * DAY, "aligned to whole periods");
    }

    function test_depositsAndWithdrawalsKeepThePeriodsCharges() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 4);
        _cap(id, renter, PRICE * 3, DAY);
        vm.assertEq(_batch(id, renter, 0, 2), 2, "two charged");
        vm.prank(renter);
        market.topUpBalance{value: PRICE * 5}(id);
        vm.assertEq(_batch(id, renter, 2, 3), 1, "a top-up adds no room under the cap");
        // The price rises: the renter leaves with the balance, then comes back within the period.
        _setPrice(id, PRICE + 1);
        _leave(id, renter);
        vm.assertEq(_balance(id, renter), 0, "withdrawn");
        (,,, uint256 baseline) = _capOf(id, renter);
        vm.assertEq(baseline, PRICE * 3, "the baseline fell with the withdrawal: three charged this period");
        _setPrice(id, PRICE);
        vm.prank(renter);
        market.topUpBalance{value: PRICE * 5}(id);
        vm.assertEq(_batch(id, renter, 5, 2), 0, "the period's charges survive the withdrawal");
        vm.warp(START + DAY);
        vm.assertEq(_batch(id, renter, 5, 4), 3, "next period");
    }

    function test_removingOrReplacingTheCap() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 10);
        _cap(id, renter, PRICE * 2, DAY);
        vm.assertEq(_batch(id, renter, 0, 3), 2, "capped");
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.ChargeCapSet(id, renter, 0, 0);
        _cap(id, renter, 0, 0);
        vm.assertFalse(_capped(id, renter), "no cap");
        (uint256 amount, uint256 period, uint256 periodStart, uint256 baseline) = _capOf(id, renter);
        vm.assertEq(amount + period + periodStart + baseline, 0, "cleared");
        vm.assertEq(_batch(id, renter, 2, 3), 3, "uncapped again");
        // A cap set again starts a new period at the current balance.
        _cap(id, renter, PRICE, 1 hours);
        vm.assertEq(_batch(id, renter, 5, 2), 1, "the new cap");
    }

    function _depositPrice(bytes32 id, address who) internal view returns (uint256 depositPrice) {
        (,,, depositPrice,,) = market.perQueryBalances(id, who);
    }

    /// @notice A capped renter's deposit price (kept in the cap's slot while the cap is set) still bounds
    /// each charge, moves with a top-up, decides whether the renter may leave, and goes back to the record
    /// with the cap's removal.
    function test_depositPriceWhileCapped() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 10);
        _cap(id, renter, PRICE * 5, DAY);
        vm.assertEq(_depositPrice(id, renter), PRICE, "the deposit price, read with the cap set");
        // Not above the deposit price, the balance covering a run: prepaid credit, no exit.
        vm.prank(renter);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        market.requestBalanceWithdrawal(id);
        _setPrice(id, uint96(PRICE * 2));
        vm.assertTrue(_consume(id, renter, _ref(0)), "charged");
        vm.assertEq(_balance(id, renter), PRICE * 9, "at the deposit price, not the new price");
        vm.prank(renter);
        market.topUpBalance{value: PRICE * 2}(id);
        vm.assertEq(_depositPrice(id, renter), PRICE * 2, "a top-up moves it");
        vm.assertTrue(_consume(id, renter, _ref(1)), "charged");
        vm.assertEq(_balance(id, renter), PRICE * 9, "at the new deposit price");
        (,,, uint256 baseline) = _capOf(id, renter);
        vm.assertEq(baseline, PRICE * 12, "three charged this period");
        _setPrice(id, uint96(PRICE * 3));
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
        (,,,, bool requested,) = market.perQueryBalances(id, renter);
        vm.assertTrue(requested, "a price above the deposit price lets the renter leave");
        _cap(id, renter, 0, 0);
        vm.assertEq(_depositPrice(id, renter), PRICE * 2, "back in the record");
        vm.assertTrue(_consume(id, renter, _ref(2)), "uncapped");
        vm.assertEq(_balance(id, renter), PRICE * 7, "still at the deposit price");
    }

    /// @notice The periods are counted from the cap's start in 8 bits of the record: from the 256th on,
    /// the start moves on to the current period, and the cap holds the same in every period.
    function test_periodsPastThe256th() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 30);
        _cap(id, renter, PRICE * 2, 1 hours);
        uint256[6] memory numbers = [uint256(0), 255, 256, 257, 600, 601];
        for (uint256 i = 0; i < numbers.length; ++i) {
            vm.warp(START + numbers[i] * 1 hours + 30 minutes);
            vm.assertEq(_batch(id, renter, i * 3, 3), 2, "two of three in each period");
            vm.expectRevert(abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, PRICE * 2, PRICE * 2));
            _consume(id, renter, _ref(100 + i));
            (,, uint256 periodStart, uint256 baseline) = _capOf(id, renter);
            vm.assertEq(periodStart, START + numbers[i] * 1 hours, "the period that holds now");
            vm.assertEq(baseline - _balance(id, renter), PRICE * 2, "its charges");
        }
    }

    /// @notice A period in which every charge is refused still moves the cap's report to it: past the 256th
    /// period (where the periods are counted from a new start), chargeCaps reports the period that holds
    /// now with nothing charged in it, not the period of the last charge, and the cap holds in it.
    function test_aPeriodOfRefusalsPastThe256th() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 10);
        _cap(id, renter, PRICE / 2, 1 hours);
        vm.warp(START + 5 hours);
        vm.assertTrue(_batch1(id, 0, PRICE / 2), "half a run in the sixth period");
        vm.warp(START + 300 hours + 30 minutes);
        vm.assertFalse(_batch1(id, 1, PRICE), "a whole run is past the cap");
        (,, uint256 periodStart, uint256 baseline) = _capOf(id, renter);
        vm.assertEq(periodStart, START + 300 hours, "the period that holds now");
        vm.assertEq(baseline, _balance(id, renter), "nothing charged in it");
        vm.assertEq(_balance(id, renter), PRICE * 10 - PRICE / 2, "the refusal took nothing");
        vm.assertTrue(_batch1(id, 2, PRICE / 2), "half a run fits");
        vm.assertFalse(_batch1(id, 3, 1e12), "and then nothing more");
        (,, periodStart, baseline) = _capOf(id, renter);
        vm.assertEq(periodStart, START + 300 hours, "the same period");
        vm.assertEq(baseline - _balance(id, renter), PRICE / 2, "its charges");
    }

    /// @notice Fuzzed: whatever the charges, prices, deposits and waits, the charges of every period stay
    /// within the cap, and a charge is refused exactly when it would pass it.
    function testFuzz_chargesStayWithinTheCapEveryPeriod(uint256 amount, uint256 period, uint256 seed) public {
        period = _bound(period, 1 hours, 180 days);
        amount = _bound(amount, 0, PRICE * 6);
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 50);
        _cap(id, renter, amount, period);
        uint256 periodStart = START;
        uint256 charged;
        for (uint256 i = 0; i < 40; ++i) {
            uint256 r = uint256(keccak256(abi.encode(seed, i)));
            if (r % 5 == 0) {
                vm.warp(block.timestamp + (r >> 8) % (period * 2));
                if (block.timestamp >= periodStart + period) {
                    periodStart += ((block.timestamp - periodStart) / period) * period;
                    charged = 0;
                }
                continue;
            }
            if (r % 7 == 1) {
                vm.prank(renter);
                market.topUpBalance{value: PRICE}(id);
                continue;
            }
            uint256 price = PRICE / 4 + (r >> 16) % PRICE;
            if (price > PRICE) price = PRICE;
            bool fits = charged + price <= amount && _balance(id, renter) >= price;
            bool ok = _batch1(id, i, price);
            vm.assertEq(ok, fits, "refused exactly when past the cap");
            if (ok) charged += price;
            vm.assertLe(charged, amount, "within the cap");
        }
    }

    function _batch1(bytes32 id, uint256 i, uint256 price) internal returns (bool) {
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](1);
        charges[0] = Marketplace.Charge(id, renter, _ref(100 + i), price);
        vm.prank(authority);
        return market.consumeQueries(charges) == 1;
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {TokenMarketplace} from "../src/TokenMarketplace.sol";
import {TokenTestBase} from "./utils/TokenTestBase.sol";
import {PaymentBatch} from "./utils/PaymentBatch.sol";
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

    function _batch1(bytes32 id, uint256 i, uint256 price) internal returns (bool) {
        TokenMarketplace.Charge[] memory charges = new TokenMarketplace.Charge[](1);
        charges[0] = TokenMarketplace.Charge(id, renter, bytes32(100 + i), price);
        vm.prank(authority);
        return tm.consumeQueries(charges) == 1;
    }

    /// @dev consumeQuery as the authority; no external call precedes it, so a caller's expectRevert applies to it.
    function _consume(bytes32 id, uint256 ref, uint256 maxPrice) internal returns (bool) {
        vm.prank(authority);
        return tm.consumeQuery(id, renter, bytes32(ref), maxPrice);
    }

    function _capOf(bytes32 id) internal view returns (uint256 amount, uint256 period, uint256 periodStart, uint256 baseline) {
        (amount, period, periodStart, baseline) = tm.chargeCaps(id, renter);
    }

    function _capped(bytes32 id, address who) internal view returns (bool capped) {
        (,,,,, capped) = tm.perQueryBalances(id, who);
    }

    function _setPrice(bytes32 id, uint256 price) internal {
        vm.prank(creator);
        tm.updateListing(id, uint96(price), URI);
    }

    function _topUp(bytes32 id, uint256 amount) internal {
        _approve(usdc, renter, amount);
        vm.prank(renter);
        tm.topUpBalance(id, amount);
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
        vm.assertTrue(_capped(id, renter), "the record says capped");
    }

    function test_setChargeCap_boundsOfPeriodAndAmount() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        _buyPerQuery(id, renter, PRICE * 2);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InvalidChargeCap.selector, PRICE, 0));
        _cap(id, renter, PRICE, 0);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InvalidChargeCap.selector, PRICE, 1 hours - 1));
        _cap(id, renter, PRICE, 1 hours - 1);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InvalidChargeCap.selector, PRICE, 180 days + 1));
        _cap(id, renter, PRICE, 180 days + 1);
        uint256 tooMuch = uint256(type(uint88).max) + 1;
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InvalidChargeCap.selector, tooMuch, DAY));
        _cap(id, renter, tooMuch, DAY);
        vm.assertFalse(_capped(id, renter), "every refusal left it uncapped");
        // The bounds themselves are accepted.
        _cap(id, renter, type(uint88).max, 1 hours);
        (uint256 amount, uint256 period,,) = _capOf(id);
        vm.assertEq(amount, type(uint88).max, "the largest amount");
        vm.assertEq(period, 1 hours, "the shortest period");
        _cap(id, renter, 0, 180 days);
        (amount, period,,) = _capOf(id);
        vm.assertEq(amount, 0, "an amount of zero");
        vm.assertEq(period, 180 days, "the longest period");
        vm.assertTrue(_capped(id, renter), "capped at zero: nothing may be charged");
        vm.expectRevert(abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, 0, 0));
        _consume(id, 1, PRICE);
        vm.assertEq(_balance(id, renter), PRICE * 2, "nothing charged");
    }

    function test_consumeQuery_refusesAChargePastTheCap() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        _buyPerQuery(id, renter, PRICE * 10);
        _cap(id, renter, PRICE * 3, DAY);
        for (uint256 i = 0; i < 3; ++i) vm.assertTrue(_consume(id, i + 1, PRICE), "under the cap, one call each");
        vm.expectRevert(abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, PRICE * 3, PRICE * 3));
        _consume(id, 4, PRICE);
        vm.assertEq(_balance(id, renter), PRICE * 7, "the refused charge took nothing");
        vm.assertFalse(tm.isRunCharged(bytes32(uint256(4))), "the refused run is not marked");
        // Set again: a new period with nothing charged. Past three runs, a full run is refused (the error
        // names the period's charges, then the cap) and a cheaper admitted price that still fits is charged.
        _cap(id, renter, PRICE * 3 + PRICE / 2, DAY);
        for (uint256 i = 4; i < 7; ++i) vm.assertTrue(_consume(id, i, PRICE), "the new cap's period");
        vm.expectRevert(abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, PRICE * 3, PRICE * 3 + PRICE / 2));
        _consume(id, 7, PRICE);
        vm.assertTrue(_consume(id, 7, PRICE / 2), "half a run fits");
        vm.assertEq(_balance(id, renter), PRICE * 3 + PRICE / 2, "six and a half runs debited");
        vm.expectRevert(
            abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, PRICE * 3 + PRICE / 2, PRICE * 3 + PRICE / 2)
        );
        _consume(id, 8, 1);
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

    /// @notice A period's charges carry from call to call, the periods roll over at their exact second, and
    /// the cap counts from the new period: charges in a later call of that period add to the first.
    function test_periodRollsOverAndCountsFromTheNewPeriod() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        _buyPerQuery(id, renter, PRICE * 20);
        _cap(id, renter, PRICE * 3, DAY);
        vm.assertEq(_batch(id, renter, 0, 2), 2, "two in the first call");
        vm.assertEq(_batch(id, renter, 2, 2), 1, "one more in a later call");
        vm.warp(START + DAY - 1);
        vm.assertEq(_batch(id, renter, 4, 1), 0, "still the first period at its last second");
        (,, uint256 periodStart, uint256 baseline) = _capOf(id);
        vm.assertEq(periodStart, START, "the first period");
        vm.assertEq(baseline, PRICE * 20, "three charged in it");
        vm.warp(START + DAY);
        vm.assertTrue(_consume(id, 10, PRICE), "the second period, from its first second");
        (,, periodStart, baseline) = _capOf(id);
        vm.assertEq(periodStart, START + DAY, "the period moved on");
        vm.assertEq(baseline, PRICE * 17, "its baseline: the balance when it began");
        vm.assertEq(_balance(id, renter), PRICE * 16, "one charged in it");
        vm.warp(START + DAY + DAY / 2);
        vm.assertEq(_batch(id, renter, 10, 3), 2, "a later call: two more fit");
        vm.expectRevert(abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, PRICE * 3, PRICE * 3));
        _consume(id, 20, PRICE);
        (,, periodStart, baseline) = _capOf(id);
        vm.assertEq(periodStart, START + DAY, "the same period");
        vm.assertEq(baseline - _balance(id, renter), PRICE * 3, "its charges");
        // Two and a half periods later: the period that holds now, aligned to the first, in two calls.
        vm.warp(START + 3 * DAY + DAY / 2);
        vm.assertTrue(_consume(id, 21, PRICE), "a new period");
        (,, periodStart,) = _capOf(id);
        vm.assertEq(periodStart, START + 3 * DAY, "aligned to whole periods");
        vm.assertEq(_batch(id, renter, 21, 3), 2, "two more in a later call");
        (,, periodStart, baseline) = _capOf(id);
        vm.assertEq(baseline - _balance(id, renter), PRICE * 3, "three in the period");
        vm.assertEq(_balance(id, renter), PRICE * 11, "nine charged in all");
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

    /// @notice The price rises, the renter leaves with the balance and comes back within the period: the
    /// period's charges survive the withdrawal and the top-up; the next period starts afresh.
    function test_leavingAndComingBackWithinThePeriod() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        _buyPerQuery(id, renter, PRICE * 4);
        _cap(id, renter, PRICE * 3, DAY);
        vm.assertEq(_batch(id, renter, 0, 2), 2, "two charged");
        _setPrice(id, PRICE + 1);
        vm.prank(renter);
        tm.requestBalanceWithdrawal(id);
        vm.warp(block.timestamp + tm.BALANCE_WITHDRAWAL_DELAY());
        vm.prank(renter);
        tm.withdrawUnspentBalance(id);
        vm.assertEq(_balance(id, renter), 0, "withdrawn");
        (,,, uint256 baseline) = _capOf(id);
        vm.assertEq(baseline, PRICE * 2, "two charged this period");
        _setPrice(id, PRICE);
        _topUp(id, PRICE * 5);
        (,,, baseline) = _capOf(id);
        vm.assertEq(baseline, PRICE * 7, "the top-up moved the balance, not the period's charges");
        vm.assertEq(_batch(id, renter, 2, 3), 1, "one more fits in the period");
        vm.warp(START + DAY);
        vm.assertEq(_batch(id, renter, 5, 4), 3, "next period");
        vm.assertEq(_balance(id, renter), PRICE, "four charged since the top-up");
    }

    function test_removingOrReplacingTheCap() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        _buyPerQuery(id, renter, PRICE * 10);
        _cap(id, renter, PRICE * 2, DAY);
        vm.assertEq(_batch(id, renter, 0, 3), 2, "capped");
        vm.expectEmit(true, true, true, true, address(tm));
        emit Marketplace.ChargeCapSet(id, renter, 0, 0);
        _cap(id, renter, 0, 0);
        vm.assertFalse(_capped(id, renter), "no cap");
        (uint256 amount, uint256 period, uint256 periodStart, uint256 baseline) = _capOf(id);
        vm.assertEq(amount + period + periodStart + baseline, 0, "cleared");
        (,,, uint256 depositPrice,,) = tm.perQueryBalances(id, renter);
        vm.assertEq(depositPrice, PRICE, "the deposit price back in the record");
        vm.assertEq(_batch(id, renter, 2, 3), 3, "uncapped again");
        // A cap set again starts a new period at the current balance, with nothing charged in it.
        vm.warp(START + 1 hours + 5);
        _cap(id, renter, PRICE, 1 hours);
        (amount, period, periodStart, baseline) = _capOf(id);
        vm.assertEq(amount, PRICE, "the new amount");
        vm.assertEq(period, 1 hours, "the new period");
        vm.assertEq(periodStart, START + 1 hours + 5, "a period begins now");
        vm.assertEq(baseline, PRICE * 5, "at the current balance");
        vm.assertEq(_batch(id, renter, 5, 2), 1, "the new cap");
        // Replaced while capped: the period's charges start again from nothing.
        _cap(id, renter, PRICE * 2, 1 hours);
        vm.assertEq(_batch(id, renter, 7, 3), 2, "the replacement's own period");
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
        vm.assertEq(_balance(id, renter), 0, "balance spent");
        vm.assertFalse(_capped(id, renter), "no cap");
        (uint256 amount, uint256 period,,) = _capOf(id);
        vm.assertEq(amount + period, 0, "nothing stored");
    }

    /// @notice The periods are counted from the cap's start in 8 bits of the record: from the 256th on,
    /// the start moves on to the current period, aligned to whole periods, and the cap holds the same in
    /// every period, call after call.
    function test_periodsPastThe256th() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        _buyPerQuery(id, renter, PRICE * 30);
        _cap(id, renter, PRICE * 2, 1 hours);
        uint256[6] memory numbers = [uint256(0), 255, 256, 257, 600, 601];
        for (uint256 i = 0; i < numbers.length; ++i) {
            vm.warp(START + numbers[i] * 1 hours + 30 minutes);
            vm.assertEq(_batch(id, renter, i * 3, 3), 2, "two of three in each period");
            vm.expectRevert(abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, PRICE * 2, PRICE * 2));
            _consume(id, 100 + i, PRICE);
            (,, uint256 periodStart, uint256 baseline) = _capOf(id);
            vm.assertEq(periodStart, START + numbers[i] * 1 hours, "the period that holds now");
            vm.assertEq(baseline - _balance(id, renter), PRICE * 2, "its charges");
        }
        vm.assertEq(_balance(id, renter), PRICE * 18, "two in each of six periods");
    }

    /// @notice A period in which every charge is refused still moves the cap's report to it: past the 256th
    /// period, chargeCaps reports the period that holds now with nothing charged in it, and the cap holds.
    function test_aPeriodOfRefusalsPastThe256th() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        _buyPerQuery(id, renter, PRICE * 10);
        _cap(id, renter, PRICE / 2, 1 hours);
        vm.warp(START + 5 hours);
        vm.assertTrue(_batch1(id, 0, PRICE / 2), "half a run in the sixth period");
        vm.warp(START + 300 hours + 30 minutes);
        vm.assertFalse(_batch1(id, 1, PRICE), "a whole run is past the cap");
        (,, uint256 periodStart, uint256 baseline) = _capOf(id);
        vm.assertEq(periodStart, START + 300 hours, "the period that holds now");
        vm.assertEq(baseline, _balance(id, renter), "nothing charged in it");
        vm.assertEq(_balance(id, renter), PRICE * 10 - PRICE / 2, "the refusal took nothing");
        vm.assertTrue(_batch1(id, 2, PRICE / 2), "half a run fits");
        vm.assertFalse(_batch1(id, 3, 1), "and then nothing more");
        (,, periodStart, baseline) = _capOf(id);
        vm.assertEq(periodStart, START + 300 hours, "the same period");
        vm.assertEq(baseline - _balance(id, renter), PRICE / 2, "its charges");
    }

    /// @notice An x402 payment is no charge of the balance: it settles for a renter capped at zero and
    /// leaves the cap's period and the balance as they were.
    function test_anX402PaymentCountsTowardNoCap() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        _buyPerQuery(id, renter, PRICE * 3);
        _cap(id, renter, 0, DAY);
        bytes memory batch = PaymentBatch.one(_payment(RENTER_KEY, id, PRICE, keccak256("n"), bytes32(uint256(7))));
        vm.prank(authority);
        vm.assertEq(tm.settlePayments(batch), 1, "settled");
        vm.assertEq(_balance(id, renter), PRICE * 3, "the balance untouched");
        (,, uint256 periodStart, uint256 baseline) = _capOf(id);
        vm.assertEq(periodStart, START, "the cap's period");
        vm.assertEq(baseline, PRICE * 3, "nothing counted in it");
        vm.expectRevert(abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, 0, 0));
        _consume(id, 8, PRICE);
    }

    /// @notice Fuzzed: whatever the charges, prices, top-ups and waits, the charges of every period stay
    /// within the cap, and a charge is refused exactly when it would pass it.
    function testFuzz_chargesStayWithinTheCapEveryPeriod(uint256 amount, uint256 period, uint256 seed) public {
        period = _bound(period, 1 hours, 180 days);
        amount = _bound(amount, 0, PRICE * 6);
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
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
                _topUp(id, PRICE);
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
}

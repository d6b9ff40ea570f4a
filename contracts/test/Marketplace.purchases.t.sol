// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {MarketplaceTestBase} from "./utils/MarketplaceTestBase.sol";

/// @notice one_time and subscription rentals: purchase, renewal, revocation, expiry and vesting. Every function on its happy path, and every custom error triggered with its selector
/// (and arguments where it has them) checked.
contract MarketplacePurchasesTest is MarketplaceTestBase {
    /*//////////////////////////////////////////////////////////////
                               ONE-TIME
    //////////////////////////////////////////////////////////////*/

    function test_purchaseOneTime_createsPermanentCredential() public {
        bytes32 id = _list(ONE_TIME);
        uint256 fee = _fee(PRICE);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.OneTimePurchased(id, renter, PRICE, fee);
        _buyOneTime(id, renter);
        (address buyer, uint40 purchasedAt, uint40 expiresAt, Marketplace.AccessType t, bool revoked) =
            market.credentials(id, renter);
        vm.assertEq(buyer, renter, "buyer field");
        vm.assertEq(purchasedAt, START, "purchasedAt");
        vm.assertEq(expiresAt, 0, "never expires");
        vm.assertTrue(t == ONE_TIME && !revoked, "one_time, not revoked");
        vm.assertEq(_escrow(id), PRICE - fee, "escrow = price - fee");
        vm.assertEq(market.accruedFees(), fee, "fee accrued");
        vm.assertEq(address(market).balance, PRICE, "ETH held");
        vm.warp(START + 10 * DAYS_365);
        vm.assertTrue(market.isCredentialValid(id, renter), "valid forever");
    }

    function test_RevertWhen_purchaseOneTimeUnknownListing() public {
        vm.expectRevert(Marketplace.ListingNotFound.selector);
        _buyOneTime(bytes32(uint256(404)), renter);
    }

    function test_RevertWhen_purchaseOneTimeWrongAmount() public {
        bytes32 id = _list(ONE_TIME);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.IncorrectPayment.selector, PRICE, PRICE - 1));
        vm.prank(renter);
        market.purchaseOneTime{value: PRICE - 1}(id);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.IncorrectPayment.selector, PRICE, PRICE + 1));
        vm.prank(renter);
        market.purchaseOneTime{value: PRICE + 1}(id);
    }

    function test_RevertWhen_purchaseOneTimeTwice() public {
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        vm.expectRevert(Marketplace.CredentialAlreadyExists.selector);
        _buyOneTime(id, renter);
    }

    function test_RevertWhen_purchaseOneTimeOnSubscriptionListing() public {
        bytes32 id = _list(SUBSCRIPTION);
        vm.expectRevert(Marketplace.InvalidAccessType.selector);
        _buyOneTime(id, renter);
    }

    function test_RevertWhen_purchaseWhileProtocolPaused() public {
        bytes32 one = _list(ONE_TIME);
        bytes32 sub = _list(SUBSCRIPTION);
        bytes32 perQuery = _list(PER_QUERY);
        vm.prank(authority);
        market.setPaused(true);
        vm.expectRevert(Marketplace.ProtocolPaused.selector);
        _buyOneTime(one, renter);
        vm.expectRevert(Marketplace.ProtocolPaused.selector);
        vm.prank(renter);
        market.purchaseSubscription{value: PRICE}(sub, DAYS_30);
        vm.expectRevert(Marketplace.ProtocolPaused.selector);
        _buyPerQuery(perQuery, renter, PRICE);
        vm.expectRevert(Marketplace.ProtocolPaused.selector);
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(sub, DAYS_30);
    }

    function test_revokeAccess_invalidatesOneTime() public {
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.AccessRevoked(id, renter, ONE_TIME);
        vm.prank(creator);
        market.revokeAccess(id, renter);
        vm.assertFalse(market.isCredentialValid(id, renter), "revoked is invalid");
        vm.assertTrue(market.credentialStatus(id, renter) == Marketplace.CredentialStatus.Revoked, "status Revoked");
        vm.expectRevert(Marketplace.CredentialRevoked.selector);
        _buyOneTime(id, renter);
    }

    function test_RevertWhen_revokeAccessTwice() public {
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        vm.startPrank(creator);
        market.revokeAccess(id, renter);
        vm.expectRevert(Marketplace.CredentialRevoked.selector);
        market.revokeAccess(id, renter);
        vm.stopPrank();
    }

    function test_RevertWhen_revokeAccessWithoutCredential() public {
        bytes32 id = _list(ONE_TIME);
        vm.expectRevert(Marketplace.CredentialNotFound.selector);
        vm.prank(creator);
        market.revokeAccess(id, renter);
    }

    function test_RevertWhen_revokeAccessOnPerQueryListing() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        vm.expectRevert(Marketplace.InvalidAccessType.selector);
        vm.prank(creator);
        market.revokeAccess(id, renter);
    }

    function test_RevertWhen_revokeAccessByStranger() public {
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(stranger);
        market.revokeAccess(id, renter);
    }

    /*//////////////////////////////////////////////////////////////
                             SUBSCRIPTION
    //////////////////////////////////////////////////////////////*/

    function test_purchaseSubscription_pricesPer30DaysAndExpires() public {
        bytes32 id = _list(SUBSCRIPTION);
        vm.assertEq(market.subscriptionPrice(id, DAYS_30), PRICE, "30 days = price");
        vm.assertEq(market.subscriptionPrice(id, DAYS_90), PRICE * 3, "90 days = 3 x price");
        vm.assertEq(market.subscriptionPrice(id, DAYS_365), (uint256(PRICE) * 365) / 30, "365 days = price x 365/30");
        uint256 cost = PRICE * 3;
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.SubscriptionPurchased(id, renter, DAYS_90, cost, _fee(cost), START + DAYS_90);
        vm.prank(renter);
        market.purchaseSubscription{value: cost}(id, DAYS_90);
        vm.assertEq(_expiresAt(id, renter), START + DAYS_90, "expiry");
        vm.warp(START + DAYS_90 - 1);
        vm.assertTrue(market.isCredentialValid(id, renter), "valid before expiry");
        vm.warp(START + DAYS_90);
        vm.assertFalse(market.isCredentialValid(id, renter), "invalid at expiry");
        vm.assertTrue(market.credentialStatus(id, renter) == Marketplace.CredentialStatus.Expired, "status Expired");
    }

    function test_credentialOf_reportsStatusModelAndRecord() public {
        bytes32 sub = _list(SUBSCRIPTION);
        _buySubscription(sub, renter, DAYS_30);
        (Marketplace.CredentialStatus status, Marketplace.AccessType accessType, uint40 purchasedAt, uint40 expiresAt, uint128 balance, bool revoked) =
            market.credentialOf(sub, renter);
        vm.assertTrue(status == Marketplace.CredentialStatus.Active, "subscription active");
        vm.assertTrue(accessType == SUBSCRIPTION, "subscription model");
        vm.assertEq(purchasedAt, START, "purchasedAt");
        vm.assertEq(expiresAt, START + DAYS_30, "expiresAt");
        vm.assertEq(balance, 0, "no balance");
        vm.assertFalse(revoked, "not revoked");

        bytes32 pq = _list(PER_QUERY);
        _buyPerQuery(pq, renter, PRICE * 2);
        (status, accessType, purchasedAt, expiresAt, balance, revoked) = market.credentialOf(pq, renter);
        vm.assertTrue(status == Marketplace.CredentialStatus.Active, "per_query active");
        vm.assertTrue(accessType == PER_QUERY, "per_query model");
        vm.assertEq(balance, PRICE * 2, "balance");
        vm.assertEq(expiresAt, 0, "no expiry");

        (status,,,,,) = market.credentialOf(pq, stranger);
        vm.assertTrue(status == Marketplace.CredentialStatus.NotFound, "stranger has none");
        (status,,,,,) = market.credentialOf(keccak256("no listing"), renter);
        vm.assertTrue(status == Marketplace.CredentialStatus.NotFound, "no listing");
    }

    function test_RevertWhen_purchaseSubscriptionInvalidDuration() public {
        bytes32 id = _list(SUBSCRIPTION);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InvalidDuration.selector, 0));
        vm.prank(renter);
        market.purchaseSubscription{value: PRICE}(id, 0);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InvalidDuration.selector, DAYS_30 + 1));
        vm.prank(renter);
        market.purchaseSubscription{value: PRICE}(id, DAYS_30 + 1);
    }

    function test_RevertWhen_purchaseSubscriptionTwice() public {
        bytes32 id = _list(SUBSCRIPTION);
        _buySubscription(id, renter, DAYS_30);
        vm.expectRevert(Marketplace.CredentialAlreadyExists.selector);
        vm.prank(renter);
        market.purchaseSubscription{value: PRICE}(id, DAYS_30);
    }

    function test_RevertWhen_purchaseSubscriptionWrongAmount() public {
        bytes32 id = _list(SUBSCRIPTION);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.IncorrectPayment.selector, PRICE * 3, PRICE));
        vm.prank(renter);
        market.purchaseSubscription{value: PRICE}(id, DAYS_90);
    }

    function test_renewSubscription_extendsActiveFromExpiry() public {
        bytes32 id = _list(SUBSCRIPTION);
        _buySubscription(id, renter, DAYS_30);
        vm.warp(START + 10 days);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.SubscriptionRenewed(id, renter, DAYS_30, PRICE, _fee(PRICE), START + 2 * DAYS_30);
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(id, DAYS_30);
        vm.assertEq(_expiresAt(id, renter), START + 2 * DAYS_30, "no paid time lost");
    }

    function test_renewSubscription_restartsExpiredFromNow() public {
        bytes32 id = _list(SUBSCRIPTION);
        _buySubscription(id, renter, DAYS_30);
        uint256 later = START + DAYS_30 + 5 days;
        vm.warp(later);
        vm.assertFalse(market.isCredentialValid(id, renter), "expired");
        vm.prank(renter);
        market.renewSubscription{value: PRICE * 3}(id, DAYS_90);
        vm.assertEq(_expiresAt(id, renter), later + DAYS_90, "from now");
        vm.assertTrue(market.isCredentialValid(id, renter), "active again");
    }

    function test_RevertWhen_renewSubscriptionWithoutCredential() public {
        bytes32 id = _list(SUBSCRIPTION);
        vm.expectRevert(Marketplace.CredentialNotFound.selector);
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(id, DAYS_30);
    }

    function test_RevertWhen_renewSubscriptionRevoked() public {
        bytes32 id = _list(SUBSCRIPTION);
        _buySubscription(id, renter, DAYS_30);
        vm.prank(creator);
        market.revokeAccess(id, renter);
        vm.expectRevert(Marketplace.CredentialRevoked.selector);
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(id, DAYS_30);
    }

    function test_RevertWhen_renewSubscriptionOnPausedListing() public {
        bytes32 id = _list(SUBSCRIPTION);
        _buySubscription(id, renter, DAYS_30);
        vm.prank(creator);
        market.setListingActive(id, false);
        vm.expectRevert(Marketplace.ListingNotActive.selector);
        vm.prank(renter);
        market.renewSubscription{value: PRICE}(id, DAYS_30);
    }

    function test_RevertWhen_subscriptionPriceOfOneTimeListing() public {
        bytes32 id = _list(ONE_TIME);
        vm.expectRevert(Marketplace.InvalidAccessType.selector);
        market.subscriptionPrice(id, DAYS_30);
    }

    /*//////////////////////////////////////////////////////////////
                     EXPIRY BOUND AND EARNINGS VESTING
    //////////////////////////////////////////////////////////////*/

    /// @notice A renewal may pay at most 395 days ahead: renewing a yearly subscription at once for 30
    /// days reaches the bound exactly; one more second of prepaid time is refused until time passes.
    function test_RevertWhen_renewSubscriptionPaysMoreThan395DaysAhead() public {
        bytes32 id = _list(SUBSCRIPTION);
        _buySubscription(id, renter, DAYS_365);
        vm.assertEq(market.MAX_PREPAID(), 395 days, "the bound");
        uint256 cost = market.subscriptionPrice(id, DAYS_30);
        vm.prank(renter);
        market.renewSubscription{value: cost}(id, DAYS_30);
        vm.assertEq(_expiresAt(id, renter), START + 395 days, "exactly at the bound");
        vm.expectRevert(abi.encodeWithSelector(Marketplace.ExpiryTooLate.selector, START + 425 days, START + 395 days));
        vm.prank(renter);
        market.renewSubscription{value: cost}(id, DAYS_30);
        vm.assertEq(_expiresAt(id, renter), START + 395 days, "expiry unchanged");
        vm.warp(START + 30 days);
        vm.prank(renter);
        market.renewSubscription{value: cost}(id, DAYS_30);
        vm.assertEq(_expiresAt(id, renter), START + 425 days, "allowed once 30 days passed");
    }

    /// @notice The audit's case: nine stacked yearly renewals would have kept the escrow, and the close,
    /// locked for ten years. Only one yearly period can be paid ahead of the running one's last 30 days.
    function test_renewSubscription_stackingCannotLockTheCloseForYears() public {
        bytes32 id = _list(SUBSCRIPTION);
        _buySubscription(id, renter, DAYS_365);
        uint256 cost = market.subscriptionPrice(id, DAYS_365);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.ExpiryTooLate.selector, START + 2 * DAYS_365, START + 395 days));
        vm.prank(renter);
        market.renewSubscription{value: cost}(id, DAYS_365);
        vm.warp(START + DAYS_365 - 30 days);
        vm.prank(renter);
        market.renewSubscription{value: cost}(id, DAYS_365);
        vm.expectRevert(
            abi.encodeWithSelector(Marketplace.ExpiryTooLate.selector, START + 3 * DAYS_365, START + DAYS_365 - 30 days + 395 days)
        );
        vm.prank(renter);
        market.renewSubscription{value: cost}(id, DAYS_365);
        // Every paid period has vested by the end of the day of the last expiry: the escrow empties, the
        // listing closes.
        vm.warp(_dayEnd(START + 2 * DAYS_365));
        vm.prank(creator);
        market.closeListingAndWithdraw(id);
        vm.assertTrue(_status(id) == Marketplace.ListingStatus.Closed, "closed after the paid time");
    }

    /// @notice A 365-day subscription's earnings vest as the year elapses: the creator cannot take the
    /// payment and close in the same block.
    function test_withdrawEarnings_ofASubscriptionTakesOnlyWhatHasVested() public {
        bytes32 id = _list(SUBSCRIPTION);
        _buySubscription(id, renter, DAYS_365);
        uint256 escrow = _escrow(id);
        vm.assertEq(market.withdrawableEarnings(id), 0, "nothing vested at purchase");
        vm.assertEq(market.unvestedEarnings(id), escrow, "all of it unvested");
        vm.expectRevert(Marketplace.NothingToWithdraw.selector);
        vm.prank(creator);
        market.withdrawEarnings(id, 1);
        vm.expectRevert(Marketplace.EscrowNotEmpty.selector);
        vm.prank(creator);
        market.closeListing(id);

        // It vests from the purchase to the end of the day its period ends, at floor(escrow / span) a second.
        uint256 span = _dayEnd(START + DAYS_365) - START;
        vm.warp(START + DAYS_365 / 4);
        uint256 vested = market.withdrawableEarnings(id);
        vm.assertEq(vested, (escrow / span) * (DAYS_365 / 4), "a quarter of the year's share vested");
        vm.assertLe(vested * DAYS_365, escrow * (DAYS_365 / 4), "never more than the elapsed paid time");
        vm.expectRevert(abi.encodeWithSelector(Marketplace.WithdrawalExceedsBalance.selector, vested + 1, vested));
        vm.prank(creator);
        market.withdrawEarnings(id, vested + 1);
        vm.prank(creator);
        market.withdrawEarnings(id, vested);
        vm.expectRevert(Marketplace.EscrowNotEmpty.selector);
        vm.prank(creator);
        market.closeListing(id);

        vm.warp(_dayEnd(START + DAYS_365) - 1);
        vm.assertTrue(market.withdrawableEarnings(id) < escrow - vested, "the remainder vests at the end");
        vm.warp(_dayEnd(START + DAYS_365));
        vm.assertEq(market.withdrawableEarnings(id), escrow - vested, "all vested at the end of its last day");
        vm.prank(creator);
        market.withdrawEarnings(id, escrow - vested);
        vm.prank(creator);
        market.closeListing(id);
        vm.assertEq(address(market).balance, market.accruedFees(), "only fees left");
    }

    /// @notice A renewal of a running subscription pays for the period after the current expiry: what
    /// vested stays vested, the new payment vests only from the end of the current period's last day.
    function test_renewSubscription_vestsOverThePeriodAfterTheCurrentExpiry() public {
        bytes32 id = _list(SUBSCRIPTION);
        _buySubscription(id, renter, DAYS_30);
        uint256 first = _escrow(id);
        vm.warp(START + DAYS_30 / 2);
        uint256 before = market.withdrawableEarnings(id);
        vm.assertTrue(before > 0, "half a period vested");
        uint256 cost = market.subscriptionPrice(id, DAYS_90);
        vm.prank(renter);
        market.renewSubscription{value: cost}(id, DAYS_90);
        uint256 second = _escrow(id) - first;
        vm.assertEq(market.withdrawableEarnings(id), before, "renewal keeps what vested");
        uint256 renewalStart = _dayEnd(START + DAYS_30);
        vm.warp(renewalStart);
        vm.assertEq(market.withdrawableEarnings(id), first, "the first period vested, none of the renewal");
        uint256 renewalEnd = _dayEnd(START + DAYS_30 + DAYS_90);
        vm.warp(renewalStart + DAYS_90 / 3);
        vm.assertEq(
            market.withdrawableEarnings(id), first + (second / (renewalEnd - renewalStart)) * (DAYS_90 / 3), "a third of the renewal"
        );
        vm.warp(renewalEnd);
        vm.assertEq(market.withdrawableEarnings(id), first + second, "all vested at the end");
    }

    /// @notice The audit's figures: 50 monthly subscribers and one yearly, bought at the start of a day.
    /// One vesting line per listing left 10.2% withdrawable at day 30; now every monthly payment is.
    function test_vesting_fiftyMonthlyAndOneYearly_everyMonthlyPaymentWithdrawableAtDay30() public {
        vm.warp(_dayEnd(START));
        uint256 t0 = block.timestamp;
        bytes32 id = _list(SUBSCRIPTION);
        for (uint256 i = 0; i < 50; ++i) {
            address who = address(uint160(0xB0B000 + i));
            vm.deal(who, 1 ether);
            _buySubscription(id, who, DAYS_30);
        }
        uint256 monthly = _escrow(id);
        _buySubscription(id, renter, DAYS_365);
        uint256 yearly = _escrow(id) - monthly;
        vm.warp(t0 + DAYS_30);
        uint256 withdrawable = market.withdrawableEarnings(id);
        uint256 yearlyVested = (yearly / DAYS_365) * DAYS_30;
        vm.assertEq(withdrawable, monthly + yearlyVested, "every monthly payment and 30 days of the yearly one");
        // What the merged line gave: the whole escrow vesting over the year, 30/365 of it at day 30, that is
        // 10.2% of the monthly payments' month, all of which was served.
        uint256 mergedLine = ((monthly + yearly) * DAYS_30) / DAYS_365;
        vm.assertEq((mergedLine * 1000) / monthly, 102, "the merged line: 10.2% of the served month");
        vm.assertTrue(withdrawable >= monthly, "now: 100% of the served month");
        vm.prank(creator);
        market.withdrawEarnings(id, withdrawable);
    }

    /// @notice Payments made mid-day finish vesting at the end of their last day, never before.
    function test_vesting_aPaymentMadeMidDayVestsByTheEndOfItsLastDay() public {
        bytes32 id = _list(SUBSCRIPTION);
        vm.assertTrue(START % 1 days != 0, "START is mid-day");
        _buySubscription(id, renter, DAYS_30);
        uint256 escrow = _escrow(id);
        vm.warp(START + DAYS_30);
        vm.assertTrue(market.withdrawableEarnings(id) < escrow, "not all at the expiry second");
        vm.assertTrue(market.withdrawableEarnings(id) * DAYS_30 <= escrow * DAYS_30, "never ahead");
        vm.warp(_dayEnd(START + DAYS_30));
        vm.assertEq(market.withdrawableEarnings(id), escrow, "all by the end of the last day");
    }

    /// @notice Two subscribers of different lengths, bought days apart: each payment vests on its own.
    function test_vesting_eachPaymentVestsOverItsOwnPeriod() public {
        bytes32 id = _list(SUBSCRIPTION);
        _buySubscription(id, renter, DAYS_365);
        uint256 a = _escrow(id);
        vm.warp(START + 10 days + 123);
        uint256 tb = block.timestamp;
        _buySubscription(id, stranger, DAYS_90);
        uint256 b = _escrow(id) - a;
        uint256 spanA = _dayEnd(START + DAYS_365) - START;
        uint256 spanB = _dayEnd(tb + DAYS_90) - tb;
        uint256[4] memory times = [tb + 1 days, tb + DAYS_90 - 1, _dayEnd(tb + DAYS_90), START + 200 days];
        for (uint256 i = 0; i < times.length; ++i) {
            vm.warp(times[i]);
            uint256 vestedA = (a / spanA) * (times[i] - START);
            uint256 vestedB = times[i] >= tb + spanB ? b : (b / spanB) * (times[i] - tb);
            vm.assertEq(market.withdrawableEarnings(id), vestedA + vestedB, "the sum of each payment's own share");
        }
    }

    /// @notice The audit's N-5: near the end of what a uint40 holds, a purchase whose expiry would pass
    /// it was stored wrapped (expired at once, the renter's payment lost). It is refused now, and so is a
    /// renewal, even within MAX_PREPAID.
    function test_RevertWhen_subscriptionExpiryPassesTheUint40Bound() public {
        bytes32 id = _list(SUBSCRIPTION);
        uint256 maxExpiry = type(uint40).max;
        vm.assertEq(market.MAX_EXPIRY(), maxExpiry, "the bound");
        uint256 cost = market.subscriptionPrice(id, DAYS_30);
        uint256 lateNow = maxExpiry - 10 days;
        vm.warp(lateNow);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.ExpiryTooLate.selector, lateNow + DAYS_30, maxExpiry));
        vm.prank(renter);
        market.purchaseSubscription{value: cost}(id, DAYS_30);
        // The last purchase that fits: its expiry is the bound itself.
        vm.warp(maxExpiry - DAYS_30);
        vm.prank(renter);
        market.purchaseSubscription{value: cost}(id, DAYS_30);
        vm.assertEq(_expiresAt(id, renter), maxExpiry, "stored unwrapped, at the bound");
        vm.assertTrue(market.isCredentialValid(id, renter), "valid, not expired at once");
        // A renewal within 395 days of now, but past the bound, is refused too.
        vm.expectRevert(abi.encodeWithSelector(Marketplace.ExpiryTooLate.selector, maxExpiry + DAYS_30, maxExpiry));
        vm.prank(renter);
        market.renewSubscription{value: cost}(id, DAYS_30);
        vm.assertEq(_expiresAt(id, renter), maxExpiry, "expiry unchanged");
    }
}

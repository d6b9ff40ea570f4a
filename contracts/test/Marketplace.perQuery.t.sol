// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {MarketplaceTestBase} from "./utils/MarketplaceTestBase.sol";

/// @notice per_query rentals: deposits, top-ups, charges at the admitted price, revocation and withdrawals. Every function on its happy path, and every custom error triggered with its selector
/// (and arguments where it has them) checked.
contract MarketplacePerQueryTest is MarketplaceTestBase {
    /*//////////////////////////////////////////////////////////////
                               PER-QUERY
    //////////////////////////////////////////////////////////////*/

    function test_purchasePerQuery_opensBalanceWithoutFee() public {
        bytes32 id = _list(PER_QUERY);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.PerQueryPurchased(id, renter, PRICE * 2);
        _buyPerQuery(id, renter, PRICE * 2);
        (uint96 balance, uint40 purchasedAt, bool isRevoked, uint96 depositPrice, bool withdrawalRequested, bool capped) =
            market.perQueryBalances(id, renter);
        vm.assertFalse(withdrawalRequested, "no withdrawal requested");
        vm.assertFalse(capped, "no charge cap");
        vm.assertEq(depositPrice, PRICE, "deposit price = listing price");
        vm.assertEq(balance, PRICE * 2, "balance = deposit");
        vm.assertEq(purchasedAt, START, "purchasedAt");
        vm.assertFalse(isRevoked, "not revoked");
        vm.assertEq(market.accruedFees(), 0, "a deposit is not revenue");
        vm.assertEq(_escrow(id), 0, "no escrow yet");
        vm.assertTrue(market.isCredentialValid(id, renter), "valid with balance");
    }

    function test_RevertWhen_purchasePerQueryDepositTooLow() public {
        bytes32 id = _list(PER_QUERY);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.DepositTooLow.selector, PRICE - 1, PRICE));
        _buyPerQuery(id, renter, PRICE - 1);
    }

    function test_RevertWhen_purchasePerQueryTwice() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        vm.expectRevert(Marketplace.CredentialAlreadyExists.selector);
        _buyPerQuery(id, renter, PRICE);
    }

    function test_consumeQuery_debitsPriceAndSplitsFee() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 2);
        uint256 fee = _fee(PRICE);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.QueryConsumed(id, renter, "run-1", PRICE, fee, PRICE);
        vm.assertTrue(_consume(id, renter, "run-1"), "charged");
        vm.assertEq(_balance(id, renter), PRICE, "balance reduced by price");
        vm.assertEq(_escrow(id), PRICE - fee, "escrow");
        vm.assertEq(market.accruedFees(), fee, "fee at consumption");
        vm.assertTrue(market.consumedRuns("run-1"), "run marked");
    }

    function test_consumeQuery_sameRunTwiceIsANoOp() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 2);
        _consume(id, renter, "run-1");
        vm.assertFalse(_consume(id, renter, "run-1"), "not charged again");
        vm.assertEq(_balance(id, renter), PRICE, "charged once");
    }

    function test_consumeQuery_zeroBalanceIsLowBalance() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        _consume(id, renter, "run-1");
        vm.assertFalse(market.isCredentialValid(id, renter), "zero balance is invalid");
        vm.assertTrue(
            market.credentialStatus(id, renter) == Marketplace.CredentialStatus.LowBalance, "status LowBalance"
        );
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InsufficientBalance.selector, 0, PRICE));
        _consume(id, renter, "run-2");
    }

    function test_consumeQuery_worksOnPausedListing() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        vm.prank(creator);
        market.setListingActive(id, false);
        vm.assertTrue(_consume(id, renter, "run-1"), "settles while paused");
    }

    function test_RevertWhen_consumeQueryByStranger() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(stranger);
        market.consumeQuery(id, renter, "run-1", PRICE);
    }

    function test_RevertWhen_consumeQueryWithoutRental() public {
        bytes32 id = _list(PER_QUERY);
        vm.expectRevert(Marketplace.CredentialNotFound.selector);
        _consume(id, renter, "run-1");
    }

    function test_RevertWhen_consumeQueryOnClosedListing() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        _close(id);
        vm.expectRevert(Marketplace.ListingNotActive.selector);
        _consume(id, renter, "run-1");
    }

    function test_RevertWhen_consumeQueryOnOneTimeListing() public {
        bytes32 id = _list(ONE_TIME);
        vm.expectRevert(Marketplace.InvalidAccessType.selector);
        _consume(id, renter, "run-1");
    }

    function test_RevertWhen_consumeQueryUnknownListing() public {
        vm.expectRevert(Marketplace.ListingNotFound.selector);
        _consume(bytes32(uint256(404)), renter, "run-1");
    }

    function test_topUpBalance_restoresLowBalance() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        _consume(id, renter, "run-1");
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.BalanceToppedUp(id, renter, PRICE * 5, PRICE * 5);
        vm.prank(renter);
        market.topUpBalance{value: PRICE * 5}(id);
        vm.assertEq(_balance(id, renter), PRICE * 5, "topped up");
        vm.assertTrue(market.isCredentialValid(id, renter), "active again");
    }

    function test_topUpBalance_continuesWhilePaused() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        vm.prank(creator);
        market.setListingActive(id, false);
        vm.prank(authority);
        market.setPaused(true);
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(id);
        vm.assertEq(_balance(id, renter), PRICE * 2, "existing rental kept running");
    }

    function test_RevertWhen_topUpBalanceWithoutRental() public {
        bytes32 id = _list(PER_QUERY);
        vm.expectRevert(Marketplace.CredentialNotFound.selector);
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(id);
    }

    function test_RevertWhen_topUpBalanceTooLow() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.DepositTooLow.selector, 1, PRICE));
        vm.prank(renter);
        market.topUpBalance{value: 1}(id);
    }

    function test_RevertWhen_topUpBalanceOnClosedListing() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        _close(id);
        vm.expectRevert(Marketplace.ListingNotActive.selector);
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(id);
    }

    function test_revokePerQueryAccess_blocksRunsAndFreesBalance() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 4);
        _consume(id, renter, "run-1");
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.AccessRevoked(id, renter, PER_QUERY);
        vm.prank(creator);
        market.revokePerQueryAccess(id, renter);
        vm.assertFalse(market.isCredentialValid(id, renter), "revoked is invalid");
        vm.expectRevert(Marketplace.CredentialRevoked.selector);
        _consume(id, renter, "run-2");
        vm.expectRevert(Marketplace.CredentialRevoked.selector);
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(id);
        vm.expectRevert(Marketplace.CredentialRevoked.selector);
        _buyPerQuery(id, renter, PRICE);
        uint256 before = renter.balance;
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.UnspentBalanceWithdrawn(id, renter, PRICE * 3);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.assertEq(renter.balance - before, PRICE * 3, "unspent balance returned");
        vm.assertEq(_balance(id, renter), 0, "balance zero");
    }

    function test_RevertWhen_revokePerQueryAccessOnOneTimeListing() public {
        bytes32 id = _list(ONE_TIME);
        vm.expectRevert(Marketplace.InvalidAccessType.selector);
        vm.prank(creator);
        market.revokePerQueryAccess(id, renter);
    }

    function test_RevertWhen_revokePerQueryAccessTwiceOrUnknown() public {
        bytes32 id = _list(PER_QUERY);
        vm.expectRevert(Marketplace.CredentialNotFound.selector);
        vm.prank(creator);
        market.revokePerQueryAccess(id, renter);
        _buyPerQuery(id, renter, PRICE);
        vm.startPrank(creator);
        market.revokePerQueryAccess(id, renter);
        vm.expectRevert(Marketplace.CredentialRevoked.selector);
        market.revokePerQueryAccess(id, renter);
        vm.stopPrank();
    }

    function test_withdrawUnspentBalance_afterClose() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 2);
        _close(id);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.assertEq(address(market).balance, 0, "nothing trapped");
    }

    function test_withdrawUnspentBalance_afterPriceRiseAboveBalance() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 3 / 2);
        vm.prank(creator);
        market.updateListing(id, PRICE * 2, URI);
        // The run is charged the deposit price the renter agreed to, not the raised one.
        vm.assertTrue(_consume(id, renter, "run-1"), "charged at the deposit price");
        vm.assertEq(_balance(id, renter), PRICE / 2, "half a run left");
        _leave(id, renter);
        vm.assertEq(_balance(id, renter), 0, "stranded balance returned");
    }

    function test_RevertWhen_withdrawUnspentBalanceOfLiveRental() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
    }

    function test_RevertWhen_withdrawUnspentBalanceNothingLeft() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        _consume(id, renter, "run-1");
        vm.prank(creator);
        market.revokePerQueryAccess(id, renter);
        vm.expectRevert(Marketplace.NothingToWithdraw.selector);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
    }

    function test_RevertWhen_withdrawUnspentBalanceWrongListing() public {
        bytes32 one = _list(ONE_TIME);
        bytes32 perQuery = _list(PER_QUERY);
        vm.expectRevert(Marketplace.InvalidAccessType.selector);
        vm.prank(renter);
        market.withdrawUnspentBalance(one);
        vm.expectRevert(Marketplace.CredentialNotFound.selector);
        vm.prank(renter);
        market.withdrawUnspentBalance(perQuery);
        vm.expectRevert(Marketplace.ListingNotFound.selector);
        vm.prank(renter);
        market.withdrawUnspentBalance(bytes32(uint256(404)));
    }

    /*//////////////////////////////////////////////////////////////
                     ADMITTED PRICE AND RENTER EXITS
    //////////////////////////////////////////////////////////////*/

    /// @notice The drain: the creator raises the price to the renter's whole balance while a run admitted
    /// at the old price is in flight. The run is charged the admitted price, not the new one.
    function test_consumeQuery_chargesTheAdmittedPriceAfterARise() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 8);
        _setPrice(id, PRICE * 8);
        uint256 fee = _fee(PRICE);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.QueryConsumed(id, renter, "admitted-at-old-price", PRICE, fee, PRICE * 7);
        vm.assertTrue(_consume(id, renter, "admitted-at-old-price", PRICE), "charged");
        vm.assertEq(_balance(id, renter), PRICE * 7, "charged the admitted price only");
        vm.assertEq(_escrow(id), PRICE - fee, "escrow grew by the admitted price less the fee");
    }

    function test_consumeQuery_chargesALoweredPriceBelowTheAdmittedOne() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 2);
        _setPrice(id, PRICE / 2);
        vm.assertTrue(_consume(id, renter, "run-1", PRICE), "charged");
        vm.assertEq(_balance(id, renter), PRICE * 2 - PRICE / 2, "the cut reaches the run at once");
    }

    function test_RevertWhen_consumeQueryAdmittedPriceExceedsBalance() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        _setPrice(id, PRICE / 2);
        vm.assertTrue(_consume(id, renter, "run-1", PRICE / 2), "first run at the lowered price");
        _setPrice(id, PRICE);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InsufficientBalance.selector, PRICE / 2, PRICE));
        _consume(id, renter, "run-2", PRICE);
    }

    function test_RevertWhen_consumeQueryAdmittedPriceBelowMinimum() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.PriceTooLow.selector, 0, 1e12));
        _consume(id, renter, "run-1", 0);
        vm.assertFalse(market.consumedRuns("run-1"), "a refused charge marks nothing");
    }

    /// @notice The renter facing a price rise can leave with the unspent balance even when the balance
    /// still covers a run at the new price: after asking, once the delay has passed.
    function test_withdrawUnspentBalance_afterAnyPriceRiseSinceTheLastDeposit() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 8);
        _setPrice(id, PRICE * 8);
        uint256 before = renter.balance;
        _leave(id, renter);
        vm.assertEq(renter.balance - before, PRICE * 8, "whole balance back");
    }

    function test_RevertWhen_withdrawUnspentBalanceAfterToppingUpAtTheRaisedPrice() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 2);
        _setPrice(id, PRICE * 2);
        vm.prank(renter);
        market.topUpBalance{value: PRICE * 2}(id); // accepts the new price
        (,,, uint96 depositPrice,,) = market.perQueryBalances(id, renter);
        vm.assertEq(depositPrice, PRICE * 2, "deposit price follows the top-up");
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
    }

    function test_RevertWhen_withdrawUnspentBalanceAfterAPriceCut() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 2);
        _setPrice(id, PRICE / 2);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
    }

    function test_withdrawUnspentBalance_whileTheListingIsPaused() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 3);
        _pause(id);
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
        vm.warp(START + 1 hours);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.UnspentBalanceWithdrawn(id, renter, PRICE * 3);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.assertEq(_balance(id, renter), 0, "a pause freezes no balance");
        vm.assertEq(address(market).balance, 0, "nothing trapped");
    }

    /// @notice A balance below one run at the current price cannot run, so it is neither valid nor Active.
    function test_credentialStatus_isLowBalanceWhenTheBalanceIsBelowThePrice() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        _setPrice(id, PRICE + 1);
        vm.assertFalse(market.isCredentialValid(id, renter), "0 < balance < price is invalid");
        vm.assertTrue(
            market.credentialStatus(id, renter) == Marketplace.CredentialStatus.LowBalance, "status LowBalance"
        );
        (Marketplace.CredentialStatus status,,,,,) = market.credentialOf(id, renter);
        vm.assertTrue(status == Marketplace.CredentialStatus.LowBalance, "credentialOf agrees");
        _setPrice(id, PRICE);
        vm.assertTrue(market.isCredentialValid(id, renter), "balance == price is valid");
    }

    /*//////////////////////////////////////////////////////////////
             THE EXIT WAITS FOR ADMITTED RUNS; CONSENT CAPS THE PRICE
    //////////////////////////////////////////////////////////////*/

    /// @notice The audit's repro (exit): a run is admitted, the creator pauses, the renter leaves at once,
    /// and the run's charge found nothing. Now the exit waits: the charge lands first.
    function test_exit_aRunAdmittedBeforeTheExitIsStillCharged() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        // A run is admitted at PRICE (its output may already be streaming). The creator pauses.
        _pause(id);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.BalanceWithdrawalRequested(id, renter, PRICE, START + 1 hours);
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.WithdrawalNotReady.selector, START + 1 hours));
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.assertTrue(_consume(id, renter, "admitted-before-the-exit", PRICE), "the admitted run is paid");
        vm.warp(START + 1 hours);
        vm.expectRevert(Marketplace.NothingToWithdraw.selector);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
    }

    /// @notice The same through a price rise of 1 wei (the other exit the audit used).
    function test_exit_afterAOneWeiPriceRiseWaitsForTheAdmittedRun() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 2);
        _setPrice(id, PRICE + 1);
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.WithdrawalNotReady.selector, START + 1 hours));
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.assertTrue(_consume(id, renter, "admitted-at-the-old-price", PRICE), "charged during the delay");
        vm.warp(START + 1 hours);
        uint256 before = renter.balance;
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.assertEq(renter.balance - before, PRICE, "the rest comes back");
    }

    /// @notice A pending request stops new runs (the credential reads LowBalance) while charges still land.
    function test_requestBalanceWithdrawal_stopsNewRunsButNotCharges() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 5);
        _pause(id);
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
        (,,,, bool requested,) = market.perQueryBalances(id, renter);
        vm.assertTrue(requested, "marked");
        vm.assertEq(market.withdrawalRequestedAt(id, renter), START, "when");
        vm.assertFalse(market.isCredentialValid(id, renter), "no new run on a leaving balance");
        vm.assertTrue(market.credentialStatus(id, renter) == Marketplace.CredentialStatus.LowBalance, "LowBalance");
        vm.prank(creator);
        market.setListingActive(id, true);
        vm.assertFalse(market.isCredentialValid(id, renter), "resuming the listing does not undo the request");
        vm.assertTrue(_consume(id, renter, "run-1"), "charges land");
    }

    /// @notice The audit's N-7: a request made during a momentary pause survived the resume, and an hour
    /// later took back prepaid credit on an active listing at its agreed price. The right to leave is
    /// judged when it is used: the withdrawal is refused while the listing is active again at that price,
    /// the request keeps refusing new runs until a top-up cancels it, and a later pause pays it at once.
    function test_RevertWhen_withdrawUnspentBalanceAfterTheListingResumed() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 3);
        _pause(id);
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
        vm.prank(creator);
        market.setListingActive(id, true);
        vm.warp(START + 1 hours);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.assertEq(_balance(id, renter), PRICE * 3, "the prepaid credit stays");
        vm.assertFalse(market.isCredentialValid(id, renter), "the request still admits no new run");
        // Paused again: the renter may leave, and no run was admitted since the request: paid at once.
        _pause(id);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.assertEq(_balance(id, renter), 0, "taken back while paused");
    }

    /// @notice The same through a price rise undone: back at the deposit price, the credit is not refundable.
    function test_RevertWhen_withdrawUnspentBalanceAfterThePriceRiseWasUndone() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 3);
        _setPrice(id, PRICE + 1);
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
        _setPrice(id, PRICE);
        vm.warp(START + 1 hours);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        // A top-up cancels the request: the renter runs again.
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(id);
        vm.assertTrue(market.isCredentialValid(id, renter), "running again after the top-up");
    }

    function test_RevertWhen_withdrawUnspentBalanceOneSecondEarly() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 2);
        _pause(id);
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
        vm.assertEq(market.BALANCE_WITHDRAWAL_DELAY(), 1 hours, "the delay");
        vm.warp(START + 1 hours - 1);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.WithdrawalNotReady.selector, START + 1 hours));
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.warp(START + 1 hours);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.assertEq(_balance(id, renter), 0, "withdrawn at the second it is ready");
        (,,,, bool requested,) = market.perQueryBalances(id, renter);
        vm.assertFalse(requested, "the request is spent");
    }

    function test_RevertWhen_withdrawUnspentBalanceWithoutARequest() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 2);
        _pause(id);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.WithdrawalNotReady.selector, 0));
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
    }

    function test_RevertWhen_requestBalanceWithdrawalTwice() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 2);
        _pause(id);
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
        vm.warp(START + 10 minutes);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.WithdrawalNotReady.selector, START + 1 hours));
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
    }

    function test_RevertWhen_requestBalanceWithdrawalWithoutABalanceToTake() public {
        bytes32 one = _list(ONE_TIME);
        bytes32 id = _list(PER_QUERY);
        vm.expectRevert(Marketplace.ListingNotFound.selector);
        vm.prank(renter);
        market.requestBalanceWithdrawal(bytes32(uint256(404)));
        vm.expectRevert(Marketplace.InvalidAccessType.selector);
        vm.prank(renter);
        market.requestBalanceWithdrawal(one);
        vm.expectRevert(Marketplace.CredentialNotFound.selector);
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
        _buyPerQuery(id, renter, PRICE);
        _consume(id, renter, "spends it");
        vm.expectRevert(Marketplace.NothingToWithdraw.selector);
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
    }

    /// @notice A top-up cancels a pending request: the balance is live again.
    function test_topUpBalance_cancelsAPendingRequest() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 2);
        _setPrice(id, PRICE * 2);
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
        vm.prank(renter);
        market.topUpBalance{value: PRICE * 2}(id);
        (,,,, bool requested,) = market.perQueryBalances(id, renter);
        vm.assertFalse(requested, "cancelled");
        vm.assertTrue(market.isCredentialValid(id, renter), "valid again");
        vm.warp(START + 1 hours);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
    }

    /// @notice The creator's own acts (close, revoke) free the balance at once, request or not.
    function test_withdrawUnspentBalance_atOnceAfterACloseOrARevocation() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 2);
        _buyPerQuery(id, stranger, PRICE * 2);
        _pause(id);
        vm.prank(renter);
        market.requestBalanceWithdrawal(id);
        vm.prank(creator);
        market.revokePerQueryAccess(id, stranger);
        vm.prank(stranger);
        market.withdrawUnspentBalance(id);
        vm.assertEq(_balance(id, stranger), 0, "revoked: at once");
        _close(id);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.assertEq(_balance(id, renter), 0, "closed: at once, the pending request no matter");
    }

    /// @notice The audit's repro (consent): after updateListing to 1 ETH, a run admitted at the new price
    /// took a whole 1 ETH balance deposited at 0.001 ETH a run. The deposit price caps every charge.
    function test_consent_aRunAdmittedAtARaisedPriceIsChargedTheDepositPrice() public {
        bytes32 id = _list(PER_QUERY); // PRICE = 0.001 ETH
        _buyPerQuery(id, renter, 1 ether);
        _setPrice(id, 1 ether);
        uint256 fee = _fee(PRICE);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.QueryConsumed(id, renter, "admitted-at-1-eth", PRICE, fee, 1 ether - PRICE);
        vm.assertTrue(_consume(id, renter, "admitted-at-1-eth", 1 ether), "charged");
        vm.assertEq(_balance(id, renter), 1 ether - PRICE, "one run at the agreed price, not the whole balance");
        // A top-up at the new price is the renter's consent: later runs pay it.
        vm.prank(renter);
        market.topUpBalance{value: 1 ether}(id);
        vm.assertTrue(_consume(id, renter, "after-consent", 1 ether), "charged");
        vm.assertEq(_balance(id, renter), 2 ether - PRICE - 1 ether, "the agreed new price");
    }

    function test_consent_theBatchChargesAtMostTheDepositPriceToo() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 10);
        _setPrice(id, PRICE * 10);
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](1);
        charges[0] = Marketplace.Charge(id, renter, bytes32(uint256(1)), PRICE * 10);
        vm.prank(authority);
        market.consumeQueries(charges);
        vm.assertEq(_balance(id, renter), PRICE * 9, "the deposit price");
    }

    /*//////////////////////////////////////////////////////////////
                              BALANCE BOUND
    //////////////////////////////////////////////////////////////*/

    /// @notice A balance past 2^96 - 1 wei would wrap the record's uint96 to a small number while the ETH
    /// stays: a deposit or top-up that would pass it is refused.
    function test_RevertWhen_aDepositPassesTheLargestBalance() public {
        bytes32 id = _list(PER_QUERY);
        uint256 max = type(uint96).max;
        vm.assertEq(market.MAX_BALANCE(), max, "the bound");
        vm.deal(renter, max * 4);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.BalanceTooLarge.selector, max + 1, max));
        _buyPerQuery(id, renter, max + 1);
        _buyPerQuery(id, renter, max - PRICE);
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(id);
        vm.assertEq(_balance(id, renter), max, "exactly the largest balance");
        vm.expectRevert(abi.encodeWithSelector(Marketplace.BalanceTooLarge.selector, max + PRICE, max));
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(id);
        vm.assertEq(_balance(id, renter), max, "unchanged");
        vm.assertEq(address(market).balance, max, "ETH held = the balance");
    }
}

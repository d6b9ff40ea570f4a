// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {MarketplaceTestBase} from "./utils/MarketplaceTestBase.sol";
import {ReentrantReceiver} from "./utils/ReentrantReceiver.sol";

/// @notice Re-entering receivers are stopped on every withdrawal path. Every function on its happy path, and every custom error triggered with its selector
/// (and arguments where it has them) checked.
contract MarketplaceReentrancyTest is MarketplaceTestBase {
    /*//////////////////////////////////////////////////////////////
                              REENTRANCY
    //////////////////////////////////////////////////////////////*/

    function test_reentrantReceiver_isStoppedOnWithdrawEarnings() public {
        ReentrantReceiver receiver = new ReentrantReceiver(market);
        bytes32 id = receiver.createListing("r", ONE_TIME, PRICE);
        _buyOneTime(id, renter);
        _buyOneTime(id, stranger);
        uint256 escrow = _escrow(id);
        receiver.setMode(ReentrantReceiver.Mode.ReenterAndCatch, id);
        receiver.withdrawEarnings(id, escrow / 2);
        vm.assertEq(receiver.reentryAttempts(), 1, "re-entered once");
        vm.assertEq(
            receiver.lastReentryRevert(), abi.encodeWithSelector(Marketplace.Reentrancy.selector), "blocked by Reentrancy"
        );
        vm.assertEq(address(receiver).balance, escrow / 2, "paid once");
        vm.assertEq(_escrow(id), escrow - escrow / 2, "escrow debited once");
    }

    function test_RevertWhen_reentrantReceiverBubblesReentrancy() public {
        ReentrantReceiver receiver = new ReentrantReceiver(market);
        bytes32 id = receiver.createListing("r", ONE_TIME, PRICE);
        _buyOneTime(id, renter);
        receiver.setMode(ReentrantReceiver.Mode.ReenterAndBubble, id);
        // The inner call fails with Reentrancy; the refused payment surfaces as TransferFailed.
        vm.expectRevert(Marketplace.TransferFailed.selector);
        receiver.withdrawEarnings(id, 1);
        vm.assertEq(_escrow(id), PRICE - _fee(PRICE), "nothing left the escrow");
    }

    function test_reentrantReceiver_isStoppedOnCloseListingAndWithdraw() public {
        ReentrantReceiver receiver = new ReentrantReceiver(market);
        bytes32 id = receiver.createListing("r", ONE_TIME, PRICE);
        _buyOneTime(id, renter);
        uint256 escrow = _escrow(id);
        receiver.setMode(ReentrantReceiver.Mode.ReenterAndCatch, id);
        receiver.closeListingAndWithdraw(id);
        vm.assertEq(
            receiver.lastReentryRevert(), abi.encodeWithSelector(Marketplace.Reentrancy.selector), "blocked by Reentrancy"
        );
        vm.assertEq(address(receiver).balance, escrow, "paid once");
        vm.assertEq(_escrow(id), 0, "escrow emptied once");
        vm.assertTrue(_status(id) == Marketplace.ListingStatus.Closed, "closed");
    }

    function test_RevertWhen_closeListingAndWithdrawPaysAReceiverThatRefuses() public {
        ReentrantReceiver receiver = new ReentrantReceiver(market);
        bytes32 id = receiver.createListing("r", ONE_TIME, PRICE);
        _buyOneTime(id, renter);
        receiver.setMode(ReentrantReceiver.Mode.Reject, id);
        vm.expectRevert(Marketplace.TransferFailed.selector);
        receiver.closeListingAndWithdraw(id);
        vm.assertTrue(_status(id) == Marketplace.ListingStatus.Active, "nothing changed: still open");
        vm.assertEq(_escrow(id), PRICE - _fee(PRICE), "escrow kept");
    }

    function test_reentrantReceiver_isStoppedOnWithdrawUnspentBalance() public {
        ReentrantReceiver receiver = new ReentrantReceiver(market);
        bytes32 id = _list(PER_QUERY);
        receiver.purchasePerQuery{value: PRICE * 3}(id);
        vm.prank(creator);
        market.revokePerQueryAccess(id, address(receiver));
        receiver.setMode(ReentrantReceiver.Mode.ReenterAndCatch, id);
        receiver.withdrawUnspentBalance(id);
        vm.assertEq(
            receiver.lastReentryRevert(), abi.encodeWithSelector(Marketplace.Reentrancy.selector), "blocked by Reentrancy"
        );
        vm.assertEq(address(receiver).balance, PRICE * 3, "balance returned once");
        vm.assertEq(address(market).balance, 0, "nothing else left");
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../../src/Marketplace.sol";
import {TestHelpers} from "./Vm.sol";

/// @notice A fresh marketplace per test, a cast of actors and helpers to open listings and rentals.
abstract contract MarketplaceTestBase is TestHelpers {
    Marketplace internal market;

    address internal authority = address(uint160(uint256(keccak256("authority"))));
    address internal feeRecipient = address(uint160(uint256(keccak256("fee recipient"))));
    address internal creator = address(uint160(uint256(keccak256("creator"))));
    address internal renter = address(uint160(uint256(keccak256("renter"))));
    address internal stranger = address(uint160(uint256(keccak256("stranger"))));

    uint96 internal constant PRICE = 1e15;
    string internal constant URI = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi";
    uint256 internal constant START = 1_700_000_000;
    uint256 internal constant DAYS_30 = 2_592_000;
    uint256 internal constant DAYS_90 = 7_776_000;
    uint256 internal constant DAYS_365 = 31_536_000;

    Marketplace.AccessType internal constant ONE_TIME = Marketplace.AccessType.OneTime;
    Marketplace.AccessType internal constant SUBSCRIPTION = Marketplace.AccessType.Subscription;
    Marketplace.AccessType internal constant PER_QUERY = Marketplace.AccessType.PerQuery;

    function setUp() public virtual {
        vm.warp(START);
        market = new Marketplace(authority, feeRecipient);
        vm.deal(renter, 100_000_000 ether);
        vm.deal(stranger, 100_000_000 ether);
    }

    function _list(Marketplace.AccessType accessType) internal returns (bytes32) {
        return _list(accessType, PRICE);
    }

    function _list(Marketplace.AccessType accessType, uint96 price) internal returns (bytes32) {
        vm.prank(creator);
        return market.createListing(bytes32(uint256(accessType) + 1), accessType, price, URI);
    }

    function _buyOneTime(bytes32 id, address who) internal {
        vm.prank(who);
        market.purchaseOneTime{value: PRICE}(id);
    }

    function _buySubscription(bytes32 id, address who, uint256 duration) internal {
        uint256 cost = market.subscriptionPrice(id, duration);
        vm.prank(who);
        market.purchaseSubscription{value: cost}(id, duration);
    }

    function _buyPerQuery(bytes32 id, address who, uint256 deposit) internal {
        vm.prank(who);
        market.purchasePerQuery{value: deposit}(id);
    }

    /// @dev Charges a run at the listing's current price (admitted with no cap below it). No external
    /// call precedes the charge, so an expectRevert set by the caller applies to consumeQuery itself.
    function _consume(bytes32 id, address who, bytes32 runRef) internal returns (bool) {
        return _consume(id, who, runRef, type(uint256).max);
    }

    function _consume(bytes32 id, address who, bytes32 runRef, uint256 admittedPrice) internal returns (bool) {
        vm.prank(authority);
        return market.consumeQuery(id, who, runRef, admittedPrice);
    }

    function _setPrice(bytes32 id, uint96 price) internal {
        vm.prank(creator);
        market.updateListing(id, price, URI);
    }

    function _pause(bytes32 id) internal {
        vm.prank(creator);
        market.setListingActive(id, false);
    }

    /// @dev Withdraws whatever escrow the listing holds and closes it (closeListingAndWithdraw).
    function _close(bytes32 id) internal {
        vm.prank(creator);
        market.closeListingAndWithdraw(id);
    }

    /// @dev Asks to withdraw the unspent balance, waits out the delay, withdraws it.
    function _leave(bytes32 id, address who) internal {
        vm.prank(who);
        market.requestBalanceWithdrawal(id);
        vm.warp(block.timestamp + market.BALANCE_WITHDRAWAL_DELAY());
        vm.prank(who);
        market.withdrawUnspentBalance(id);
    }

    /// @dev The first day boundary at or after `t`: where a subscription payment's vesting ends.
    function _dayEnd(uint256 t) internal pure returns (uint256) {
        return ((t + 1 days - 1) / 1 days) * 1 days;
    }

    function _price(bytes32 id) internal view returns (uint256 price) {
        (price,,,,,,) = market.listings(id);
    }

    function _escrow(bytes32 id) internal view returns (uint256 escrow) {
        (, escrow,,,,,) = market.listings(id);
    }

    function _status(bytes32 id) internal view returns (Marketplace.ListingStatus status) {
        (,,, status,,,) = market.listings(id);
    }

    function _balance(bytes32 id, address who) internal view returns (uint256 balance) {
        (balance,,,,,) = market.perQueryBalances(id, who);
    }

    function _expiresAt(bytes32 id, address who) internal view returns (uint256 expiresAt) {
        (,, expiresAt,,) = market.credentials(id, who);
    }

    function _fee(uint256 amount) internal view returns (uint256) {
        return (amount * market.feeBasisPoints()) / 10_000;
    }
}

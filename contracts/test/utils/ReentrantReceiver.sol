// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../../src/Marketplace.sol";

/// @notice A creator and renter contract that misbehaves when it receives ETH: it re-enters the
/// marketplace (catching or bubbling the result) or refuses the payment outright.
contract ReentrantReceiver {
    enum Mode {
        Accept,
        ReenterAndCatch,
        ReenterAndBubble,
        Reject
    }

    Marketplace public immutable market;
    Mode public mode;
    bytes32 public target;
    bytes public lastReentryRevert;
    uint256 public reentryAttempts;

    constructor(Marketplace market_) {
        market = market_;
    }

    function setMode(Mode mode_, bytes32 target_) external {
        mode = mode_;
        target = target_;
    }

    function createListing(bytes32 seed, Marketplace.AccessType accessType, uint96 price) external returns (bytes32) {
        return market.createListing(seed, accessType, price, "ipfs://reentrant");
    }

    function withdrawEarnings(bytes32 listingId, uint256 amount) external {
        market.withdrawEarnings(listingId, amount);
    }

    function closeListingAndWithdraw(bytes32 listingId) external {
        market.closeListingAndWithdraw(listingId);
    }

    function purchasePerQuery(bytes32 listingId) external payable {
        market.purchasePerQuery{value: msg.value}(listingId);
    }

    function withdrawUnspentBalance(bytes32 listingId) external {
        market.withdrawUnspentBalance(listingId);
    }

    receive() external payable {
        Mode current = mode;
        if (current == Mode.Accept) return;
        if (current == Mode.Reject) revert("no ETH please");
        ++reentryAttempts;
        // Try to take the same money twice: once through each withdrawal path.
        try market.withdrawEarnings(target, 1) {}
        catch (bytes memory data) {
            lastReentryRevert = data;
            if (current == Mode.ReenterAndBubble) {
                assembly {
                    revert(add(data, 32), mload(data))
                }
            }
        }
        try market.withdrawUnspentBalance(target) {}
        catch (bytes memory data) {
            lastReentryRevert = data;
        }
    }
}

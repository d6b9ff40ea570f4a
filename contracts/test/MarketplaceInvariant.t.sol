// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {TestHelpers} from "./utils/Vm.sol";
import {MarketplaceHandler} from "./utils/MarketplaceHandler.sol";

/// @notice Invariants checked after every call of random sequences driven by MarketplaceHandler
/// (3 creators, 4 renters, 6 to 12 listings of all three models).
contract MarketplaceInvariantTest is TestHelpers {
    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    Marketplace internal market;
    MarketplaceHandler internal handler;
    address internal constant AUTHORITY = address(0xA0A0);

    function setUp() public {
        market = new Marketplace(AUTHORITY, address(0xFEE5));
        handler = new MarketplaceHandler(market, AUTHORITY);
    }

    /// @dev Read by the invariant runner (forge-std's StdInvariant convention): only the handler is called.
    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    /// @dev Only the handler's actions, not its getters.
    function targetSelectors() public view returns (FuzzSelector[] memory targets) {
        bytes4[] memory selectors = new bytes4[](16);
        selectors[0] = MarketplaceHandler.createListing.selector;
        selectors[1] = MarketplaceHandler.purchaseOneTime.selector;
        selectors[2] = MarketplaceHandler.purchaseSubscription.selector;
        selectors[3] = MarketplaceHandler.purchasePerQuery.selector;
        selectors[4] = MarketplaceHandler.consumeQuery.selector;
        selectors[5] = MarketplaceHandler.revoke.selector;
        selectors[6] = MarketplaceHandler.setListingActive.selector;
        selectors[7] = MarketplaceHandler.updatePrice.selector;
        selectors[8] = MarketplaceHandler.closeListing.selector;
        selectors[9] = MarketplaceHandler.withdrawEarnings.selector;
        selectors[10] = MarketplaceHandler.withdrawUnspentBalance.selector;
        selectors[11] = MarketplaceHandler.withdrawFees.selector;
        selectors[12] = MarketplaceHandler.setFeeBasisPoints.selector;
        selectors[13] = MarketplaceHandler.setPaused.selector;
        selectors[14] = MarketplaceHandler.warp.selector;
        // Weight the money paths: per-query deposits and runs twice.
        selectors[15] = MarketplaceHandler.purchasePerQuery.selector;
        targets = new FuzzSelector[](1);
        targets[0] = FuzzSelector(address(handler), selectors);
    }

    /// @notice The contract's ETH equals escrow + unspent per-query balances + unclaimed fees, exactly.
    function invariant_solvent() public view {
        uint256 listings = handler.listingCount();
        uint256 renters = handler.renterCount();
        uint256 owed = market.accruedFees();
        for (uint256 i = 0; i < listings; ++i) {
            bytes32 id = handler.listingIds(i);
            (, uint128 escrow,,,,,) = market.listings(id);
            owed += escrow;
            for (uint256 j = 0; j < renters; ++j) {
                (uint128 balance,,) = market.perQueryBalances(id, handler.renters(j));
                owed += balance;
            }
        }
        vm.assertEq(address(market).balance, owed, "ETH held == escrow + balances + fees");
    }

    /// @notice No credential is valid on a closed listing or after revocation.
    function invariant_noValidCredentialWhenClosedOrRevoked() public view {
        uint256 listings = handler.listingCount();
        uint256 renters = handler.renterCount();
        for (uint256 i = 0; i < listings; ++i) {
            bytes32 id = handler.listingIds(i);
            (,,, Marketplace.ListingStatus status,,,) = market.listings(id);
            for (uint256 j = 0; j < renters; ++j) {
                address r = handler.renters(j);
                bool valid = market.isCredentialValid(id, r);
                if (status == Marketplace.ListingStatus.Closed) vm.assertFalse(valid, "valid on closed listing");
                if (handler.ghostRevoked(id, r)) vm.assertFalse(valid, "valid after revocation");
            }
        }
    }

    /// @notice Every per-query balance equals its ledger (deposits - runs - withdrawals), never negative.
    function invariant_balancesMatchLedger() public view {
        uint256 listings = handler.listingCount();
        uint256 renters = handler.renterCount();
        for (uint256 i = 0; i < listings; ++i) {
            bytes32 id = handler.listingIds(i);
            for (uint256 j = 0; j < renters; ++j) {
                address r = handler.renters(j);
                int256 ledger = handler.ghostBalance(id, r);
                vm.assertTrue(ledger >= 0, "balance went negative");
                (uint128 balance,,) = market.perQueryBalances(id, r);
                vm.assertEq(uint256(balance), uint256(ledger), "balance == ledger");
            }
        }
    }

    /// @notice Fees never exceed the cap: the rate stays <= 1000 bps, fees collected stay <= 10% of the
    /// revenue they came from, and accrued + withdrawn fees equal the fees collected.
    function invariant_feesWithinCap() public view {
        vm.assertLe(market.feeBasisPoints(), 1000, "fee rate above cap");
        vm.assertLe(handler.ghostMaxFeeBasisPointsSeen(), 1000, "a fee above cap was set");
        vm.assertLe(handler.ghostFeesCollected() * 10, handler.ghostGrossRevenue(), "fees above 10% of revenue");
        vm.assertEq(
            market.accruedFees() + handler.ghostFeesWithdrawn(), handler.ghostFeesCollected(), "fee accounting"
        );
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {TestHelpers} from "./utils/Vm.sol";
import {MarketplaceHandler} from "./utils/MarketplaceHandler.sol";

/// @notice The handler the campaign calls (see MarketplaceHandler for why it is declared here).
contract InvariantHandler is MarketplaceHandler {
    constructor(Marketplace market_, address authority_, address feeRecipient_)
        MarketplaceHandler(market_, authority_, feeRecipient_)
    {}
}

/// @notice The model-based invariant campaign. MarketplaceHandler drives every state-changing function
/// with several actors (a re-entering contract among them) and valid and invalid arguments, predicting
/// each outcome from its own model down to the custom error. After every call these invariants compare
/// the contract with that model: its ETH, its whole storage, and every credential's validity.
contract MarketplaceInvariantTest is TestHelpers {
    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    Marketplace internal market;
    MarketplaceHandler internal handler;
    address internal constant AUTHORITY = address(0xA0A0);
    address internal constant FEE_RECIPIENT = address(0xFEE5);

    function setUp() public {
        vm.warp(1_700_000_000);
        market = new Marketplace(AUTHORITY, FEE_RECIPIENT);
        handler = new InvariantHandler(market, AUTHORITY, FEE_RECIPIENT);
    }

    /// @dev Read by the invariant runner (forge-std's StdInvariant convention): only the handler is called.
    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    /// @dev Only the handler's actions, not its getters. Money paths appear twice to weigh them.
    function targetSelectors() public view returns (FuzzSelector[] memory targets) {
        bytes4[] memory s = new bytes4[](35);
        s[0] = MarketplaceHandler.createListing.selector;
        s[1] = MarketplaceHandler.updateListing.selector;
        s[2] = MarketplaceHandler.setListingActive.selector;
        s[3] = MarketplaceHandler.closeListing.selector;
        s[4] = MarketplaceHandler.revoke.selector;
        s[5] = MarketplaceHandler.withdrawEarnings.selector;
        s[6] = MarketplaceHandler.purchaseOneTime.selector;
        s[7] = MarketplaceHandler.purchaseSubscription.selector;
        s[8] = MarketplaceHandler.renewSubscription.selector;
        s[9] = MarketplaceHandler.purchasePerQuery.selector;
        s[10] = MarketplaceHandler.topUpBalance.selector;
        s[11] = MarketplaceHandler.withdrawUnspentBalance.selector;
        s[12] = MarketplaceHandler.consumeQuery.selector;
        s[13] = MarketplaceHandler.logRuns.selector;
        s[14] = MarketplaceHandler.withdrawFees.selector;
        s[15] = MarketplaceHandler.setFeeBasisPoints.selector;
        s[16] = MarketplaceHandler.setFeeRecipient.selector;
        s[17] = MarketplaceHandler.setPaused.selector;
        s[18] = MarketplaceHandler.transferAuthority.selector;
        s[19] = MarketplaceHandler.acceptAuthority.selector;
        s[20] = MarketplaceHandler.setReceiverMode.selector;
        s[21] = MarketplaceHandler.warp.selector;
        s[22] = MarketplaceHandler.purchasePerQuery.selector;
        s[23] = MarketplaceHandler.consumeQuery.selector;
        s[24] = MarketplaceHandler.consumeQuery.selector;
        s[25] = MarketplaceHandler.purchaseSubscription.selector;
        s[26] = MarketplaceHandler.withdrawEarnings.selector;
        s[27] = MarketplaceHandler.withdrawUnspentBalance.selector;
        s[28] = MarketplaceHandler.consumeQueries.selector;
        s[29] = MarketplaceHandler.consumeQueries.selector;
        s[30] = MarketplaceHandler.requestBalanceWithdrawal.selector;
        s[31] = MarketplaceHandler.requestBalanceWithdrawal.selector;
        s[32] = MarketplaceHandler.closeListingAndWithdraw.selector;
        s[33] = MarketplaceHandler.setChargeCap.selector;
        s[34] = MarketplaceHandler.setChargeCap.selector;
        targets = new FuzzSelector[](1);
        targets[0] = FuzzSelector(address(handler), s);
    }

    /// @notice The contract's ETH equals escrow + unspent per-query balances + unclaimed fees, exactly,
    /// both as the contract stores them and as the model computes them.
    function invariant_ethHeldEqualsEscrowBalancesAndFees() public view {
        uint256 stored = market.accruedFees();
        uint256 modelled = handler.feesModel();
        uint256 listings = handler.listingCount();
        uint256 actors = handler.actorCount();
        for (uint256 i = 0; i < listings; ++i) {
            bytes32 id = handler.listingIds(i);
            (, uint128 escrow,,,,,) = market.listings(id);
            stored += escrow;
            modelled += handler.listingOf(id).escrow;
            for (uint256 j = 0; j < actors; ++j) {
                address a = handler.actors(j);
                (uint96 balance,,,,,) = market.perQueryBalances(id, a);
                stored += balance;
                modelled += handler.perQueryOf(id, a).balance;
            }
        }
        vm.assertEq(address(market).balance, stored, "ETH held == escrow + balances + fees");
        vm.assertEq(address(market).balance, modelled, "ETH held == the model's escrow + balances + fees");
    }

    /// @notice Within any period, the charges on a (renter, listing) stay within its cap: summed from the
    /// contract's own QueryConsumed events, period by period.
    function invariant_chargesStayWithinEachPeriodsCap() public view {
        vm.assertEq(handler.capBreaches(), 0, "a period's charges passed the renter's cap");
    }

    /// @notice Every protocol-level storage item equals the model.
    function invariant_protocolStorageEqualsModel() public view {
        vm.assertEq(market.accruedFees(), handler.feesModel(), "accruedFees");
        vm.assertEq(market.feeBasisPoints(), handler.feeBasisPointsModel(), "feeBasisPoints");
        vm.assertEq(market.paused(), handler.pausedModel(), "paused");
        vm.assertEq(market.authority(), handler.authorityModel(), "authority");
        vm.assertEq(market.pendingAuthority(), handler.pendingAuthorityModel(), "pendingAuthority");
        vm.assertEq(market.feeRecipient(), handler.feeRecipientModel(), "feeRecipient");
        uint256 batches = handler.rootCount();
        vm.assertEq(market.runBatchCount(), batches, "runBatchCount");
        for (uint256 i = 0; i < batches; ++i) {
            vm.assertEq(market.runBatchRoots(i), handler.rootsModel(i), "runBatchRoots");
        }
        for (uint256 i = 0; i < 12; ++i) {
            bytes32 ref = handler.runRef(i);
            vm.assertEq(market.isRunCharged(ref), handler.consumedModel(ref), "isRunCharged");
            // Every public read of the marks agrees, dense reference or hashed.
            vm.assertEq(market.consumedRuns(ref), handler.consumedModel(ref), "consumedRuns");
        }
        vm.assertEq(market.chargedRuns(0), handler.chargedWordModel(0), "chargedRuns word 0");
        vm.assertEq(market.chargedRuns(1), handler.chargedWordModel(1), "chargedRuns word 1");
        uint256 lastWord = uint256(type(uint64).max) >> 8;
        vm.assertEq(market.chargedRuns(lastWord), handler.chargedWordModel(lastWord), "chargedRuns, the last dense word");
    }

    /// @notice Read from the contract's own QueryConsumed events (not the model): no run reference was
    /// ever charged twice, by consumeQuery, consumeQueries or both, and no charge took more than the
    /// price its run was admitted at.
    function invariant_eachRunChargedAtMostOnceAndNeverAboveItsAdmittedPrice() public view {
        vm.assertLe(handler.mostChargesOfARun(), 1, "a run charged twice");
        vm.assertEq(handler.chargesAboveAdmittedPrice(), 0, "a charge above the admitted price");
    }

    /// @notice Every listing and its withdrawable earnings equal the model. The contract keeps one sum of
    /// its subscription payments' vesting; the model computes each payment on its own: they agree to the
    /// wei, and the escrow always covers what has not vested.
    function invariant_listingStorageEqualsModel() public view {
        uint256 listings = handler.listingCount();
        for (uint256 i = 0; i < listings; ++i) {
            bytes32 id = handler.listingIds(i);
            MarketplaceHandler.ListingModel memory m = handler.listingOf(id);
            _checkListing(id, m);
            uint256 locked = m.accessType == 1 ? handler.unvestedModel(id) : 0;
            vm.assertEq(market.unvestedEarnings(id), handler.unvestedModel(id), "unvestedEarnings: the payments one by one");
            vm.assertEq(market.withdrawableEarnings(id), m.escrow - locked, "withdrawableEarnings");
            vm.assertLe(locked, m.escrow, "escrow covers the unvested earnings");
        }
    }

    /// @notice No subscription payment has vested ahead of its paid period: what is left unvested of each
    /// is at least its share of the paid time still to come (checked on the real period, before the
    /// rounding out to whole days). With the listing invariant (the contract's sum equals these
    /// payments), the creator is never paid early.
    function invariant_subscriptionEarningsNeverVestEarly() public view {
        uint256 listings = handler.listingCount();
        for (uint256 i = 0; i < listings; ++i) {
            bytes32 id = handler.listingIds(i);
            uint256 n = handler.paymentCount(id);
            for (uint256 j = 0; j < n; ++j) {
                MarketplaceHandler.PaymentModel memory p = handler.paymentOf(id, j);
                if (block.timestamp >= p.paidUntil) continue;
                uint256 left = p.paidFrom > block.timestamp ? p.paidUntil - p.paidFrom : p.paidUntil - block.timestamp;
                vm.assertTrue(
                    handler.unvestedOf(p) * (p.paidUntil - p.paidFrom) >= p.amount * left, "a payment vested ahead of its paid time"
                );
            }
        }
    }

    function _checkListing(bytes32 id, MarketplaceHandler.ListingModel memory m) internal view {
        (
            uint96 price,
            uint128 escrow,
            Marketplace.AccessType accessType,
            Marketplace.ListingStatus status,
            address creator,
            uint40 createdAt,
            string memory uri
        ) = market.listings(id);
        vm.assertEq(price, m.price, "price");
        vm.assertEq(escrow, m.escrow, "escrow");
        vm.assertEq(uint8(accessType), m.accessType, "accessType");
        vm.assertEq(uint8(status), m.status, "status");
        vm.assertEq(creator, m.creator, "creator");
        vm.assertEq(createdAt, m.createdAt, "createdAt");
        vm.assertEq(keccak256(bytes(uri)), keccak256(bytes(m.uri)), "metadataUri");
    }

    /// @notice Every (listing, actor) record equals the model, and isCredentialValid and
    /// credentialStatus equal the spec's rule evaluated on the model.
    function invariant_credentialsEqualModelAndValidityFollowsTheRule() public view {
        uint256 listings = handler.listingCount();
        uint256 actors = handler.actorCount();
        for (uint256 i = 0; i <= listings; ++i) {
            bytes32 id = i == listings ? handler.UNKNOWN_LISTING() : handler.listingIds(i);
            for (uint256 j = 0; j < actors; ++j) {
                address a = handler.actors(j);
                _checkRecords(id, a);
                Marketplace.CredentialStatus expected = handler.statusModel(id, a);
                vm.assertEq(uint256(market.credentialStatus(id, a)), uint256(expected), "credentialStatus");
                vm.assertEq(
                    market.isCredentialValid(id, a), expected == Marketplace.CredentialStatus.Active, "isCredentialValid"
                );
            }
        }
    }

    function _checkRecords(bytes32 id, address a) internal view {
        MarketplaceHandler.CredentialModel memory c = handler.credentialOf(id, a);
        (address buyer, uint40 purchasedAt, uint40 expiresAt, Marketplace.AccessType accessType, bool isRevoked) =
            market.credentials(id, a);
        vm.assertEq(buyer, c.buyer, "credential.buyer");
        vm.assertEq(purchasedAt, c.purchasedAt, "credential.purchasedAt");
        vm.assertEq(expiresAt, c.expiresAt, "credential.expiresAt");
        vm.assertEq(uint8(accessType), c.accessType, "credential.accessType");
        vm.assertEq(isRevoked, c.isRevoked, "credential.isRevoked");
        _checkPerQuery(id, a);
    }

    function _checkPerQuery(bytes32 id, address a) internal view {
        MarketplaceHandler.PerQueryModel memory p = handler.perQueryOf(id, a);
        (uint96 balance, uint40 pqPurchasedAt, bool pqRevoked, uint96 depositPrice, bool requested,) =
            market.perQueryBalances(id, a);
        _checkCap(id, a);
        vm.assertEq(requested, p.withdrawalRequested, "perQuery.withdrawalRequested");
        if (requested) vm.assertEq(market.withdrawalRequestedAt(id, a), p.requestedAt, "withdrawalRequestedAt");
        vm.assertEq(balance, p.balance, "perQuery.balance");
        vm.assertEq(pqPurchasedAt, p.purchasedAt, "perQuery.purchasedAt");
        vm.assertEq(pqRevoked, p.isRevoked, "perQuery.isRevoked");
        vm.assertEq(depositPrice, p.depositPrice, "perQuery.depositPrice");
    }

    /// @dev The renter's charge cap equals the model, and so does what its current period has charged, as
    /// the contract would count it at a charge now.
    function _checkCap(bytes32 id, address a) internal view {
        (uint96 balance,,,,, bool capped) = market.perQueryBalances(id, a);
        MarketplaceHandler.CapModel memory c = handler.capOf(id, a);
        vm.assertEq(capped, c.set, "perQuery.chargeCapped");
        (uint256 amount, uint256 period, uint256 periodStart, uint256 baseline) = market.chargeCaps(id, a);
        vm.assertEq(amount, c.amount, "chargeCap.amount");
        vm.assertEq(period, c.period, "chargeCap.period");
        if (!c.set) return;
        uint256 charged = block.timestamp >= periodStart + period ? 0 : baseline - balance;
        vm.assertEq(charged, c.charged, "chargeCap: the period's charges");
    }
}

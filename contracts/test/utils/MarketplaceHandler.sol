// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../../src/Marketplace.sol";
import {TestHelpers} from "./Vm.sol";

/// @notice Drives several creators and renters through random sequences of marketplace calls for the
/// invariant tests. Each action picks actors and listings from its fuzzed seeds, skips itself when its
/// preconditions do not hold (so every call it makes is expected to succeed: the suite runs with
/// failOnRevert), and records ghost totals the invariants compare against the contract.
contract MarketplaceHandler is TestHelpers {
    Marketplace public immutable market;
    address public immutable authority;

    address[] public creators;
    address[] public renters;
    bytes32[] public listingIds;
    /// @dev Listings by model, and every (listing, renter) pair that holds a rental, so actions pick
    /// targets that exist instead of wasting most calls on early returns.
    mapping(uint256 accessType => bytes32[] ids) internal idsByType;
    bytes32[] internal holderListing;
    address[] internal holderRenter;
    bytes32[] internal perQueryHolderListing;
    address[] internal perQueryHolderRenter;

    /// @dev Ledger of each per-query balance, kept as a signed number so "never negative" is checkable.
    mapping(bytes32 listingId => mapping(address renter => int256 balance)) public ghostBalance;
    mapping(bytes32 listingId => mapping(address renter => bool revoked)) public ghostRevoked;
    uint256 public ghostGrossRevenue; // every amount a fee was taken from
    uint256 public ghostFeesCollected;
    uint256 public ghostFeesWithdrawn;
    uint256 public ghostMaxFeeBasisPointsSeen;
    mapping(bytes32 => uint256) public calls;

    uint256 internal constant MAX_LISTINGS = 12;
    uint256 internal runCounter;

    constructor(Marketplace market_, address authority_) {
        market = market_;
        authority = authority_;
        for (uint256 i = 0; i < 3; ++i) creators.push(address(uint160(0xC000 + i)));
        for (uint256 i = 0; i < 4; ++i) {
            address r = address(uint160(0xB000 + i));
            renters.push(r);
            vm.deal(r, 1e9 ether);
        }
        ghostMaxFeeBasisPointsSeen = market_.feeBasisPoints();
        for (uint256 i = 0; i < 6; ++i) _create(creators[i % 3], Marketplace.AccessType(i % 3), uint96(1e15 * (i + 1)));
    }

    function _create(address creator, Marketplace.AccessType accessType, uint96 price) internal {
        vm.prank(creator);
        bytes32 id = market.createListing(bytes32(listingIds.length), accessType, price, "ipfs://m");
        listingIds.push(id);
        idsByType[uint256(accessType)].push(id);
    }

    function _ofType(Marketplace.AccessType accessType, uint256 seed) internal view returns (bytes32) {
        bytes32[] storage ids = idsByType[uint256(accessType)];
        return ids[seed % ids.length];
    }

    function _holder(uint256 seed) internal view returns (bool found, bytes32 id, address renter) {
        if (holderListing.length == 0) return (false, bytes32(0), address(0));
        uint256 i = seed % holderListing.length;
        return (true, holderListing[i], holderRenter[i]);
    }

    function _addHolder(bytes32 id, address renter) internal {
        holderListing.push(id);
        holderRenter.push(renter);
    }

    /*//////////////////////////////////////////////////////////////
                                 ACCESSORS
    //////////////////////////////////////////////////////////////*/

    function listingCount() external view returns (uint256) {
        return listingIds.length;
    }

    function renterCount() external view returns (uint256) {
        return renters.length;
    }

    function _renter(uint256 seed) internal view returns (address) {
        return renters[seed % renters.length];
    }

    function _listing(uint256 seed) internal view returns (bool found, bytes32 id) {
        if (listingIds.length == 0) return (false, bytes32(0));
        return (true, listingIds[seed % listingIds.length]);
    }

    function _info(bytes32 id)
        internal
        view
        returns (uint256 price, uint256 escrow, Marketplace.AccessType t, Marketplace.ListingStatus status, address creator)
    {
        (uint96 p, uint128 e, Marketplace.AccessType kind, Marketplace.ListingStatus s, address c,,) = market.listings(id);
        return (p, e, kind, s, c);
    }

    function _takeFee(uint256 amount) internal {
        uint256 fee = (amount * market.feeBasisPoints()) / 10_000;
        ghostGrossRevenue += amount;
        ghostFeesCollected += fee;
    }

    /*//////////////////////////////////////////////////////////////
                                  ACTIONS
    //////////////////////////////////////////////////////////////*/

    function createListing(uint256 creatorSeed, uint8 typeSeed, uint96 price) external {
        if (listingIds.length >= MAX_LISTINGS || market.paused()) return;
        _create(creators[creatorSeed % creators.length], Marketplace.AccessType(typeSeed % 3), uint96(_bound(price, 1e12, 10 ether)));
        ++calls["createListing"];
    }

    function purchaseOneTime(uint256 renterSeed, uint256 listingSeed) external {
        if (market.paused()) return;
        bytes32 id = _ofType(Marketplace.AccessType.OneTime, listingSeed);
        (uint256 price,, Marketplace.AccessType t, Marketplace.ListingStatus s,) = _info(id);
        address r = _renter(renterSeed);
        (address buyer,,,,) = market.credentials(id, r);
        if (t != Marketplace.AccessType.OneTime || s != Marketplace.ListingStatus.Active || buyer != address(0)) return;
        _takeFee(price);
        vm.prank(r);
        market.purchaseOneTime{value: price}(id);
        _addHolder(id, r);
        ++calls["purchaseOneTime"];
    }

    function purchaseSubscription(uint256 renterSeed, uint256 listingSeed, uint8 durationSeed) external {
        if (market.paused()) return;
        bytes32 id = _ofType(Marketplace.AccessType.Subscription, listingSeed);
        (, , Marketplace.AccessType t, Marketplace.ListingStatus s,) = _info(id);
        address r = _renter(renterSeed);
        (address buyer,,,,) = market.credentials(id, r);
        if (t != Marketplace.AccessType.Subscription || s != Marketplace.ListingStatus.Active) return;
        uint256 duration = [uint256(30 days), 90 days, 365 days][durationSeed % 3];
        uint256 cost = market.subscriptionPrice(id, duration);
        if (buyer == address(0)) {
            _takeFee(cost);
            vm.prank(r);
            market.purchaseSubscription{value: cost}(id, duration);
            _addHolder(id, r);
            ++calls["purchaseSubscription"];
        } else if (!ghostRevoked[id][r]) {
            _takeFee(cost);
            vm.prank(r);
            market.renewSubscription{value: cost}(id, duration);
            ++calls["renewSubscription"];
        }
    }

    function purchasePerQuery(uint256 renterSeed, uint256 listingSeed, uint256 runs) external {
        bytes32 id = _ofType(Marketplace.AccessType.PerQuery, listingSeed);
        (uint256 price,, Marketplace.AccessType t, Marketplace.ListingStatus s,) = _info(id);
        address r = _renter(renterSeed);
        (, uint40 purchasedAt, bool revoked) = market.perQueryBalances(id, r);
        if (t != Marketplace.AccessType.PerQuery || s == Marketplace.ListingStatus.Closed || revoked) return;
        uint256 deposit = price * _bound(runs, 1, 5) + (runs % 3 == 0 ? runs % 1e12 : 0);
        if (purchasedAt == 0) {
            if (market.paused() || s != Marketplace.ListingStatus.Active) return;
            vm.prank(r);
            market.purchasePerQuery{value: deposit}(id);
            _addHolder(id, r);
            perQueryHolderListing.push(id);
            perQueryHolderRenter.push(r);
            ++calls["purchasePerQuery"];
        } else {
            vm.prank(r);
            market.topUpBalance{value: deposit}(id);
            ++calls["topUpBalance"];
        }
        ghostBalance[id][r] += int256(deposit);
    }

    /// @dev Settles one to three runs per call (runs are the most frequent event in production).
    function consumeQuery(uint256 holderSeed, bool replay) external {
        uint256 holders = perQueryHolderListing.length;
        if (holders == 0) return;
        uint256 runs = 1 + (holderSeed >> 128) % 3;
        for (uint256 n = 0; n < runs; ++n) {
            uint256 k = (holderSeed + n) % holders;
            _consume(perQueryHolderListing[k], perQueryHolderRenter[k], replay && n == 0);
        }
    }

    function _consume(bytes32 id, address r, bool replay) internal {
        (uint256 price,, Marketplace.AccessType t, Marketplace.ListingStatus s,) = _info(id);
        (uint128 balance,, bool revoked) = market.perQueryBalances(id, r);
        if (t != Marketplace.AccessType.PerQuery || s == Marketplace.ListingStatus.Closed || revoked) return;
        if (balance < price) return;
        bytes32 runRef = keccak256(abi.encode("run", ++runCounter));
        _takeFee(price);
        vm.prank(authority);
        market.consumeQuery(id, r, runRef);
        ghostBalance[id][r] -= int256(price);
        ++calls["consumeQuery"];
        if (replay) {
            // A retried settlement of the same run charges nothing.
            vm.prank(authority);
            require(!market.consumeQuery(id, r, runRef), "run charged twice");
        }
    }

    function revoke(uint256 holderSeed) external {
        (bool found, bytes32 id, address r) = _holder(holderSeed);
        if (!found) return;
        (,, Marketplace.AccessType t, Marketplace.ListingStatus s, address creator) = _info(id);
        if (s == Marketplace.ListingStatus.Closed || ghostRevoked[id][r]) return;
        if (t == Marketplace.AccessType.PerQuery) {
            (,uint40 purchasedAt,) = market.perQueryBalances(id, r);
            if (purchasedAt == 0) return;
            vm.prank(creator);
            market.revokePerQueryAccess(id, r);
        } else {
            (address buyer,,,,) = market.credentials(id, r);
            if (buyer == address(0)) return;
            vm.prank(creator);
            market.revokeAccess(id, r);
        }
        ghostRevoked[id][r] = true;
        ++calls["revoke"];
    }

    function setListingActive(uint256 listingSeed, bool active) external {
        (bool found, bytes32 id) = _listing(listingSeed);
        if (!found) return;
        (,,, Marketplace.ListingStatus s, address creator) = _info(id);
        if (s == Marketplace.ListingStatus.Closed) return;
        vm.prank(creator);
        market.setListingActive(id, active);
        ++calls["setListingActive"];
    }

    function updatePrice(uint256 listingSeed, uint96 price) external {
        (bool found, bytes32 id) = _listing(listingSeed);
        if (!found) return;
        (,,, Marketplace.ListingStatus s, address creator) = _info(id);
        if (s == Marketplace.ListingStatus.Closed) return;
        vm.prank(creator);
        market.updateListing(id, uint96(_bound(price, 1e12, 10 ether)), "ipfs://m2");
        ++calls["updateListing"];
    }

    function closeListing(uint256 listingSeed) external {
        (bool found, bytes32 id) = _listing(listingSeed);
        if (!found) return;
        (, uint256 escrow,, Marketplace.ListingStatus s, address creator) = _info(id);
        if (s == Marketplace.ListingStatus.Closed) return;
        vm.startPrank(creator);
        if (escrow != 0) market.withdrawEarnings(id, escrow);
        market.closeListing(id);
        vm.stopPrank();
        ++calls["closeListing"];
    }

    function withdrawEarnings(uint256 listingSeed, uint256 amount) external {
        (bool found, bytes32 id) = _listing(listingSeed);
        if (!found) return;
        (, uint256 escrow,,, address creator) = _info(id);
        if (escrow == 0) return;
        vm.prank(creator);
        market.withdrawEarnings(id, _bound(amount, 1, escrow));
        ++calls["withdrawEarnings"];
    }

    function withdrawUnspentBalance(uint256 holderSeed) external {
        (bool found, bytes32 id, address r) = _holder(holderSeed);
        if (!found) return;
        (uint256 price,, Marketplace.AccessType t, Marketplace.ListingStatus s,) = _info(id);
        (uint128 balance,, bool revoked) = market.perQueryBalances(id, r);
        if (t != Marketplace.AccessType.PerQuery || balance == 0) return;
        if (s != Marketplace.ListingStatus.Closed && !revoked && balance >= price) return;
        vm.prank(r);
        market.withdrawUnspentBalance(id);
        ghostBalance[id][r] -= int256(uint256(balance));
        ++calls["withdrawUnspentBalance"];
    }

    function withdrawFees() external {
        uint256 fees = market.accruedFees();
        if (fees == 0) return;
        vm.prank(authority);
        market.withdrawFees();
        ghostFeesWithdrawn += fees;
        ++calls["withdrawFees"];
    }

    function setFeeBasisPoints(uint256 bps) external {
        bps = _bound(bps, 0, 1000);
        vm.prank(authority);
        market.setFeeBasisPoints(bps);
        if (bps > ghostMaxFeeBasisPointsSeen) ghostMaxFeeBasisPointsSeen = bps;
        ++calls["setFeeBasisPoints"];
    }

    function setPaused(uint8 seed) external {
        // Pause rarely and unpause often, so purchases still happen in most runs.
        bool next = seed % 8 == 0;
        vm.prank(authority);
        market.setPaused(next);
        ++calls["setPaused"];
    }

    function warp(uint256 secondsForward) external {
        vm.warp(block.timestamp + _bound(secondsForward, 1, 120 days));
        ++calls["warp"];
    }
}

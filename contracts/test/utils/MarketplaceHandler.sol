// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../../src/Marketplace.sol";
import {ReentrantReceiver} from "./ReentrantReceiver.sol";
import {TestHelpers, Vm} from "./Vm.sol";

/// @notice Model-based driver of the invariant campaign. Every state-changing function of the
/// marketplace is called by several actors (creators, renters, a re-entering contract, authority
/// candidates and strangers) with valid and invalid arguments. Before each call the handler predicts the
/// outcome from its own model of the rules (docs/reference/contract.md), down to the custom error and its
/// arguments; it makes the call, checks the outcome equals the prediction, and on success applies the
/// call to the model. The invariant test then compares the contract's whole storage, its ETH and every
/// credential's validity with the model. A wrong prediction reverts, and the suite runs with failOnRevert.
/// @dev Abstract: the invariant test file declares the concrete handler it deploys. Hardhat emits
/// artifacts only for the files a run compiles as roots, and the invariant runner must find the
/// target's artifact; a contract defined in the .t.sol file always has one, even on a fresh build
/// that runs that file alone.
abstract contract MarketplaceHandler is TestHelpers {
    /// @dev The model of one listing, with its vesting line.
    struct ListingModel {
        uint96 price;
        uint128 escrow;
        uint8 accessType;
        uint8 status; // 0 None, 1 Active, 2 Paused, 3 Closed
        address creator;
        uint40 createdAt;
        string uri;
    }

    /// @dev One subscription payment's escrow share and the period it vests over: [start, end), at
    /// floor(amount / (end - start)) a second, the rest at the end (see Marketplace.Vesting). `paidFrom`
    /// and `paidUntil` are the paid period itself, before rounding out to whole days.
    struct PaymentModel {
        uint256 amount;
        uint256 start;
        uint256 end;
        uint256 paidFrom;
        uint256 paidUntil;
    }

    struct CredentialModel {
        address buyer;
        uint40 purchasedAt;
        uint40 expiresAt;
        uint8 accessType;
        bool isRevoked;
    }

    struct PerQueryModel {
        uint96 balance;
        uint40 purchasedAt;
        bool isRevoked;
        uint96 depositPrice;
        bool withdrawalRequested;
        uint256 requestedAt;
    }

    /// @dev A renter's charge cap: the amount per period, and the current period's start and charges.
    struct CapModel {
        bool set;
        uint256 amount;
        uint256 period;
        uint256 periodStart;
        uint256 charged;
    }

    uint8 internal constant ONE_TIME = 0;
    uint8 internal constant SUBSCRIPTION = 1;
    uint8 internal constant PER_QUERY = 2;
    uint8 internal constant NONE = 0;
    uint8 internal constant ACTIVE = 1;
    uint8 internal constant PAUSED = 2;
    uint8 internal constant CLOSED = 3;
    uint256 internal constant MIN_PRICE = 1e12;
    uint256 internal constant MAX_LISTINGS = 10;
    uint256 internal constant RUN_REFS = 12;

    Marketplace public immutable market;
    ReentrantReceiver public immutable receiver;

    /// @dev actors[0..2] create, actors[3..6] rent, actors[7] is the re-entering contract (both roles).
    address[] public actors;
    /// @dev Who may be proposed as authority, or named fee recipient.
    address[] internal authorityCandidates;
    address[] internal feeRecipientCandidates;
    bytes32[] public listingIds;
    bytes32[] internal seedsUsed;
    bytes32 public constant UNKNOWN_LISTING = keccak256("no such listing");

    mapping(bytes32 listingId => ListingModel) internal listingModel;
    mapping(bytes32 listingId => mapping(address buyer => CredentialModel)) internal credentialModel;
    mapping(bytes32 listingId => mapping(address buyer => PerQueryModel)) internal perQueryModel;
    /// @dev Every subscription payment of each listing, one by one: the model's vesting.
    mapping(bytes32 listingId => PaymentModel[]) internal paymentsModel;
    mapping(bytes32 listingId => mapping(address buyer => CapModel)) internal capModel;
    /// @dev Read from the contract's QueryConsumed events: what each capped (listing, renter) was charged
    /// in the period the event fell in, and how often a period's charges passed the cap (must stay 0).
    mapping(bytes32 listingId => mapping(address buyer => uint256)) internal eventPeriodStart;
    mapping(bytes32 listingId => mapping(address buyer => uint256)) internal eventPeriodCharged;
    uint256 public capBreaches;
    /// @dev Charges a cap refused (consumeQuery reverts and consumeQueries refusals).
    uint256 public capRefusals;
    mapping(bytes32 runRef => bool) public consumedModel;
    bytes32[] public rootsModel;
    uint128 public feesModel;
    uint16 public feeBasisPointsModel = 250;
    bool public pausedModel;
    address public authorityModel;
    address public pendingAuthorityModel;
    address public feeRecipientModel;
    ReentrantReceiver.Mode public receiverMode;

    /// @dev Outcome counters: the campaign's report shows both outcomes were reached for each function.
    mapping(bytes32 name => uint256 count) public succeeded;
    mapping(bytes32 name => uint256 count) public refused;
    /// @dev Withdrawal requests allowed only by the price-rise rule (active, not revoked, balance covers a run).
    uint256 public priceRiseExits;
    /// @dev Renters who took a balance back after a request (the delay passed).
    uint256 public requestedExits;
    /// @dev Read from the contract's own QueryConsumed events, not from the model: how often each run
    /// reference was charged, the most any was, and charges above the price their run was admitted at.
    mapping(bytes32 runRef => uint256 count) public chargesOf;
    uint256 public mostChargesOfARun;
    uint256 public chargesAboveAdmittedPrice;
    /// @dev consumeQueries batches that charged some runs and refused others in one transaction.
    uint256 public mixedBatches;

    constructor(Marketplace market_, address authority_, address feeRecipient_) {
        market = market_;
        authorityModel = authority_;
        feeRecipientModel = feeRecipient_;
        receiver = new ReentrantReceiver(market_);
        for (uint256 i = 0; i < 7; ++i) actors.push(address(uint160(0xA11CE000 + i)));
        actors.push(address(receiver));
        for (uint256 i = 0; i < actors.length; ++i) vm.deal(actors[i], 1e12 ether);
        authorityCandidates.push(authority_);
        authorityCandidates.push(address(uint160(0xA0A1)));
        authorityCandidates.push(address(uint160(0xA0A2)));
        feeRecipientCandidates.push(feeRecipient_);
        feeRecipientCandidates.push(address(uint160(0xFEE6)));
        feeRecipientCandidates.push(address(receiver));
        // Two listings of each model to start with (seeds never reused: 4i+1 is never 0 mod 4), and one
        // one-time listing of the re-entering contract.
        for (uint256 i = 0; i < 6; ++i) {
            createListing(i % 3, uint8(i % 3), 1e15 * (i + 1), 4 * i + 1, 3);
        }
        createListing(3, ONE_TIME, (uint256(7e15) << 8) | 1, 25, 3);
        _seedRentals();
    }

    /// @dev Rentals every sequence starts from, so the rules that need an existing rental (revoking,
    /// charging, renewing, withdrawing, closing a listing with paid periods left, re-entry through a
    /// payout) are reached within a short sequence, not only after the purchases that create them.
    function _seedRentals() internal {
        // The handler pays for the calls it makes as an actor.
        vm.deal(address(this), 1e12 ether);
        _purchaseOneTime(listingIds[0], actors[3], listingModel[listingIds[0]].price);
        // Subscriptions of different lengths on one listing: its vesting line runs to the longest.
        _purchaseSubscription(listingIds[1], actors[3], 365 days, (uint256(listingModel[listingIds[1]].price) * 365 days) / 30 days);
        _purchaseSubscription(listingIds[1], actors[4], 30 days, listingModel[listingIds[1]].price);
        for (uint256 r = 3; r <= 5; ++r) _purchasePerQuery(listingIds[2], actors[r], uint256(listingModel[listingIds[2]].price) * 3);
        _purchasePerQuery(listingIds[2], address(receiver), uint256(listingModel[listingIds[2]].price) * 2);
        _purchasePerQuery(listingIds[5], actors[6], uint256(listingModel[listingIds[5]].price) * 2);
        // The re-entering contract earns on its own listing and re-enters it when paid.
        _purchaseOneTime(listingIds[6], actors[4], listingModel[listingIds[6]].price);
        receiverMode = ReentrantReceiver.Mode.ReenterAndCatch;
        receiver.setMode(receiverMode, listingIds[6]);
    }

    /*//////////////////////////////////////////////////////////////
                                ACCESSORS
    //////////////////////////////////////////////////////////////*/

    function listingCount() external view returns (uint256) {
        return listingIds.length;
    }

    function actorCount() external view returns (uint256) {
        return actors.length;
    }

    function rootCount() external view returns (uint256) {
        return rootsModel.length;
    }

    /// @dev Half of the references are dense (marked in the bitmap, on both sides of a word boundary),
    /// half hashed (marked in consumedRuns), as the service hands out both.
    /// The last dense reference (2^64 - 1) and the first hashed-range one (2^64) are in the pool too.
    function runRef(uint256 i) public pure returns (bytes32) {
        uint256 k = i % RUN_REFS;
        if (k < RUN_REFS / 2 - 1) return bytes32(250 + 2 * k);
        if (k == RUN_REFS / 2 - 1) return bytes32(uint256(type(uint64).max));
        if (k == RUN_REFS / 2) return bytes32(uint256(1) << 64);
        return keccak256(abi.encode("run", k));
    }

    /// @notice The model's dense marks: word `w` of chargedRuns.
    function chargedWordModel(uint256 w) external view returns (uint256 bits) {
        for (uint256 k = 0; k < RUN_REFS; ++k) {
            uint256 ref = uint256(runRef(k));
            if (ref < 1 << 64 && ref >> 8 == w && consumedModel[bytes32(ref)]) bits |= 1 << (ref & 255);
        }
    }

    function listingOf(bytes32 id) external view returns (ListingModel memory) {
        return listingModel[id];
    }

    function credentialOf(bytes32 id, address buyer) external view returns (CredentialModel memory) {
        return credentialModel[id][buyer];
    }

    function capOf(bytes32 id, address buyer) external view returns (CapModel memory c) {
        c = capModel[id][buyer];
        if (c.set && block.timestamp >= c.periodStart + c.period) c.charged = 0;
    }

    function perQueryOf(bytes32 id, address buyer) external view returns (PerQueryModel memory) {
        return perQueryModel[id][buyer];
    }

    function paymentCount(bytes32 id) external view returns (uint256) {
        return paymentsModel[id].length;
    }

    function paymentOf(bytes32 id, uint256 i) external view returns (PaymentModel memory) {
        return paymentsModel[id][i];
    }

    /// @notice The model's unvested part of a listing's escrow now: each payment on its own (the rule in
    /// docs/reference/contract.md), summed; the contract keeps only the sum.
    function unvestedModel(bytes32 id) public view returns (uint256 unvested) {
        PaymentModel[] storage payments = paymentsModel[id];
        for (uint256 i = 0; i < payments.length; ++i) unvested += unvestedOf(payments[i]);
    }

    function unvestedOf(PaymentModel memory p) public view returns (uint256) {
        if (block.timestamp < p.start) return p.amount;
        if (block.timestamp >= p.end) return 0;
        return p.amount - (p.amount / (p.end - p.start)) * (block.timestamp - p.start);
    }

    /// @notice The spec's validity rule, from the model: the CredentialStatus the contract must report.
    function statusModel(bytes32 id, address buyer) public view returns (Marketplace.CredentialStatus) {
        ListingModel storage l = listingModel[id];
        if (l.status == NONE) return Marketplace.CredentialStatus.NotFound;
        if (l.accessType == PER_QUERY) {
            PerQueryModel storage p = perQueryModel[id][buyer];
            if (p.purchasedAt == 0) return Marketplace.CredentialStatus.NotFound;
            if (l.status == CLOSED) return Marketplace.CredentialStatus.ListingClosed;
            if (p.isRevoked) return Marketplace.CredentialStatus.Revoked;
            // A valid per-query credential can pay for one run at the current price, and is not leaving.
            if (p.withdrawalRequested || p.balance < l.price) return Marketplace.CredentialStatus.LowBalance;
            return Marketplace.CredentialStatus.Active;
        }
        CredentialModel storage c = credentialModel[id][buyer];
        if (c.buyer == address(0)) return Marketplace.CredentialStatus.NotFound;
        if (l.status == CLOSED) return Marketplace.CredentialStatus.ListingClosed;
        if (c.isRevoked) return Marketplace.CredentialStatus.Revoked;
        if (c.accessType == SUBSCRIPTION && block.timestamp >= c.expiresAt) return Marketplace.CredentialStatus.Expired;
        return Marketplace.CredentialStatus.Active;
    }

    /*//////////////////////////////////////////////////////////////
                                 PICKERS
    //////////////////////////////////////////////////////////////*/

    function _actor(uint256 seed) internal view returns (address) {
        return actors[seed % actors.length];
    }

    /// @dev A renter-side actor (renters and the re-entering contract), or any actor one time in five.
    function _renter(uint256 seed) internal view returns (address) {
        if (seed % 5 == 0) return _actor(seed >> 8);
        return actors[3 + (seed >> 8) % 5];
    }

    /// @dev One time in two an actor holding a rental on `id` (revoked ones included), when there is one;
    /// else as _renter.
    function _holder(bytes32 id, uint256 seed) internal view returns (address) {
        if (seed % 2 == 0) {
            uint256 holders = 0;
            for (uint256 i = 0; i < actors.length; ++i) if (_holds(id, actors[i])) ++holders;
            if (holders > 0) {
                uint256 pick = (seed >> 1) % holders;
                for (uint256 i = 0; i < actors.length; ++i) {
                    if (!_holds(id, actors[i])) continue;
                    if (pick == 0) return actors[i];
                    --pick;
                }
            }
        }
        return _renter(seed >> 1);
    }

    function _holds(bytes32 id, address a) internal view returns (bool) {
        return perQueryModel[id][a].purchasedAt != 0 || credentialModel[id][a].buyer != address(0);
    }

    /// @dev Mostly an existing listing; one time in twelve an id nothing was created at.
    function _listing(uint256 seed) internal view returns (bytes32) {
        if (seed % 12 == 0) return UNKNOWN_LISTING;
        return listingIds[(seed >> 8) % listingIds.length];
    }

    /// @dev The listing's creator three times in four, else any actor.
    function _creatorOf(bytes32 id, uint256 seed) internal view returns (address) {
        address c = listingModel[id].creator;
        if (seed % 4 != 0 && c != address(0)) return c;
        return _actor(seed >> 8);
    }

    /// @dev The current authority three times in four, else a candidate or a renter.
    function _authorityCaller(uint256 seed) internal view returns (address) {
        if (seed % 4 != 0) return authorityModel;
        if (seed % 8 == 0) return _actor(seed >> 8);
        return authorityCandidates[(seed >> 8) % authorityCandidates.length];
    }

    /// @dev A price: below the minimum one time in eight, else up to 1 ETH.
    function _price(uint256 seed) internal pure returns (uint96) {
        if (seed % 8 == 0) return uint96((seed >> 8) % MIN_PRICE);
        return uint96(_bound(seed >> 8, MIN_PRICE, 1 ether));
    }

    /// @dev A price change: a small rise (still within most balances), a doubling, a cut, or any price.
    function _newPrice(uint96 current, uint256 seed) internal pure returns (uint96) {
        uint256 k = seed % 6;
        if (k == 0 && current < 1 ether) return current + 1;
        if (k == 1 && current < 1 ether) return current * 2;
        if (k == 2) return current / 2;
        return _price(seed >> 8);
    }

    function _uri(uint256 seed) internal pure returns (string memory) {
        uint256 k = seed % 10;
        if (k == 0) return "";
        if (k == 1) return string(new bytes(201));
        if (k == 2) return string(new bytes(200));
        return "ipfs://manifest";
    }

    /// @dev The exact amount due three times in four, else one wei more or less.
    function _payment(uint256 due, uint256 seed) internal pure returns (uint256) {
        uint256 k = seed % 8;
        if (k == 0) return due + 1;
        if (k == 1 && due > 0) return due - 1;
        return due;
    }

    function _duration(uint256 seed) internal pure returns (uint256) {
        uint256 k = seed % 8;
        if (k == 0) return 30 days + 1;
        if (k == 1) return 0;
        return [uint256(30 days), 90 days, 365 days][k % 3];
    }

    /*//////////////////////////////////////////////////////////////
                         CALLING AND CHECKING
    //////////////////////////////////////////////////////////////*/

    bytes internal constant OK = "";

    function _err(bytes4 selector) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(selector);
    }

    /// @dev Calls the marketplace as `from`, and checks the outcome against the prediction (`OK`, or
    /// the exact revert data). Returns whether the call succeeded.
    function _call(bytes32 name, address from, uint256 value, bytes memory data, bytes memory expected)
        internal
        returns (bool ok, bytes memory ret)
    {
        vm.prank(from);
        (ok, ret) = address(market).call{value: value}(data);
        if (expected.length == 0) {
            if (!ok) vm.assertEq(ret, expected, string.concat("unexpected revert in ", _str(name)));
            ++succeeded[name];
        } else {
            vm.assertFalse(ok, string.concat("call succeeded, the model expected a revert: ", _str(name)));
            vm.assertEq(ret, expected, string.concat("wrong revert data: ", _str(name)));
            ++refused[name];
        }
    }

    function _str(bytes32 name) internal pure returns (string memory) {
        uint256 n = 0;
        while (n < 32 && name[n] != 0) ++n;
        bytes memory out = new bytes(n);
        for (uint256 i = 0; i < n; ++i) out[i] = name[i];
        return string(out);
    }

    /// @dev Whether an ETH payment to `to` fails: the re-entering contract refuses it, or bubbles the
    /// Reentrancy its re-entry met (in catching mode its re-entry fails quietly and the payment lands).
    function _payoutFails(address to) internal view returns (bool) {
        return to == address(receiver)
            && (receiverMode == ReentrantReceiver.Mode.Reject || receiverMode == ReentrantReceiver.Mode.ReenterAndBubble);
    }

    /// @dev The checks of a creator action on a listing that is not closed (_openListingOfCreator).
    function _openListingError(bytes32 id, address from) internal view returns (bytes memory) {
        ListingModel storage l = listingModel[id];
        if (l.status == NONE) return _err(Marketplace.ListingNotFound.selector);
        if (l.creator != from) return _err(Marketplace.Unauthorized.selector);
        if (l.status == CLOSED) return _err(Marketplace.ListingNotActive.selector);
        return OK;
    }

    function _termsError(uint256 price, string memory uri) internal pure returns (bytes memory) {
        uint256 length = bytes(uri).length;
        if (length == 0) return _err(Marketplace.MetadataUriEmpty.selector);
        if (length > 200) return abi.encodeWithSelector(Marketplace.MetadataUriTooLong.selector, length, 200);
        if (price < MIN_PRICE) return abi.encodeWithSelector(Marketplace.PriceTooLow.selector, price, MIN_PRICE);
        return OK;
    }

    function _purchasableError(bytes32 id, uint8 accessType) internal view returns (bytes memory) {
        if (pausedModel) return _err(Marketplace.ProtocolPaused.selector);
        ListingModel storage l = listingModel[id];
        if (l.status == NONE) return _err(Marketplace.ListingNotFound.selector);
        if (l.status != ACTIVE) return _err(Marketplace.ListingNotActive.selector);
        if (l.accessType != accessType) return _err(Marketplace.InvalidAccessType.selector);
        return OK;
    }

    function _collectModel(bytes32 id, uint256 amount) internal returns (uint256 fee) {
        fee = (amount * feeBasisPointsModel) / 10_000;
        feesModel += uint128(fee);
        listingModel[id].escrow += uint128(amount - fee);
    }

    /// @dev A payment for [paidFrom, paidUntil) vests from now, or from the first day boundary at or after
    /// paidFrom when that is later, to the first day boundary at or after paidUntil.
    function _vestModel(bytes32 id, uint256 amount, uint256 paidFrom, uint256 paidUntil) internal {
        uint256 start = paidFrom > block.timestamp ? _dayEnd(paidFrom) : block.timestamp;
        paymentsModel[id].push(PaymentModel(amount, start, _dayEnd(paidUntil), paidFrom, paidUntil));
    }

    function _dayEnd(uint256 t) internal pure returns (uint256) {
        return ((t + 1 days - 1) / 1 days) * 1 days;
    }

    /*//////////////////////////////////////////////////////////////
                                 ACTIONS
    //////////////////////////////////////////////////////////////*/

    function createListing(uint256 actorSeed, uint8 typeSeed, uint256 priceSeed, uint256 seedSeed, uint256 uriSeed)
        public
    {
        if (listingIds.length >= MAX_LISTINGS && seedSeed % 4 != 0) return;
        address from = actorSeed % 4 == 3 ? address(receiver) : actors[actorSeed % 3];
        uint8 accessType = typeSeed % 3;
        uint96 price = listingIds.length < 6 ? uint96(priceSeed) : _price(priceSeed);
        // A seed used before one time in four (ListingAlreadyExists), else a fresh one.
        bytes32 seed = (seedSeed % 4 == 0 && seedsUsed.length > 0) ? seedsUsed[seedSeed % seedsUsed.length] : bytes32(seedSeed);
        string memory uri = _uri(uriSeed);
        bytes32 id = market.listingIdOf(from, seed);
        bytes memory expected = pausedModel ? _err(Marketplace.ProtocolPaused.selector) : _termsError(price, uri);
        if (expected.length == 0 && listingModel[id].status != NONE) expected = _err(Marketplace.ListingAlreadyExists.selector);
        if (expected.length == 0 && listingIds.length >= MAX_LISTINGS) return;
        (bool ok,) = _call("createListing", from, 0, abi.encodeCall(market.createListing, (seed, Marketplace.AccessType(accessType), price, uri)), expected);
        if (!ok) return;
        listingIds.push(id);
        seedsUsed.push(seed);
        ListingModel storage l = listingModel[id];
        l.price = price;
        l.accessType = accessType;
        l.status = ACTIVE;
        l.creator = from;
        l.createdAt = uint40(block.timestamp);
        l.uri = uri;
    }

    function updateListing(uint256 listingSeed, uint256 actorSeed, uint256 priceSeed, uint256 uriSeed) external {
        bytes32 id = _listing(listingSeed);
        _updateListing(id, _creatorOf(id, actorSeed), _newPrice(listingModel[id].price, priceSeed), _uri(uriSeed));
    }

    function _updateListing(bytes32 id, address from, uint96 price, string memory uri) internal {
        bytes memory expected = _openListingError(id, from);
        if (expected.length == 0) expected = _termsError(price, uri);
        (bool ok,) = _call("updateListing", from, 0, abi.encodeCall(market.updateListing, (id, price, uri)), expected);
        if (!ok) return;
        listingModel[id].price = price;
        listingModel[id].uri = uri;
    }

    function setListingActive(uint256 listingSeed, uint256 actorSeed, bool active) external {
        bytes32 id = _listing(listingSeed);
        _setListingActive(id, _creatorOf(id, actorSeed), active);
    }

    function _setListingActive(bytes32 id, address from, bool active) internal {
        (bool ok,) = _call("setListingActive", from, 0, abi.encodeCall(market.setListingActive, (id, active)), _openListingError(id, from));
        if (ok) listingModel[id].status = active ? ACTIVE : PAUSED;
    }

    /// @dev The listings every sequence starts with (and their seeded rentals) close one time in four
    /// only: a close from any state with an empty escrow is easy, and closing them early would leave
    /// little for the rest of the sequence to exercise.
    function _spareSeeded(bytes32 id, uint256 seed) internal view returns (bool) {
        for (uint256 i = 0; i < 7 && i < listingIds.length; ++i) if (listingIds[i] == id) return seed % 4 != 0;
        return false;
    }

    function closeListing(uint256 listingSeed, uint256 actorSeed) external {
        bytes32 id = _listing(listingSeed);
        if (_spareSeeded(id, actorSeed >> 24)) return;
        address from = _creatorOf(id, actorSeed);
        // One time in two its creator first withdraws what has vested, so the close meets an empty escrow
        // (or, on a subscription listing with unvested earnings, EscrowNotEmpty for that reason alone).
        ListingModel storage l = listingModel[id];
        if ((actorSeed >> 16) % 2 == 0 && from == l.creator && l.status != NONE && l.status != CLOSED) {
            uint256 available = l.escrow - (l.accessType == SUBSCRIPTION ? unvestedModel(id) : 0);
            if (available > 0) _withdrawEarnings(id, from, available);
        }
        bytes memory expected = _openListingError(id, from);
        if (expected.length == 0 && l.escrow != 0) expected = _err(Marketplace.EscrowNotEmpty.selector);
        (bool ok,) = _call("closeListing", from, 0, abi.encodeCall(market.closeListing, (id)), expected);
        if (ok) l.status = CLOSED;
    }

    function closeListingAndWithdraw(uint256 listingSeed, uint256 actorSeed) external {
        bytes32 id = _listing(listingSeed);
        if (_spareSeeded(id, actorSeed >> 24)) return;
        address from = _creatorOf(id, actorSeed);
        ListingModel storage l = listingModel[id];
        uint256 amount = l.escrow;
        bytes memory expected = _openListingError(id, from);
        if (expected.length == 0 && amount != 0 && l.accessType == SUBSCRIPTION && unvestedModel(id) != 0) {
            expected = _err(Marketplace.EscrowNotEmpty.selector);
        }
        if (expected.length == 0 && amount != 0 && _payoutFails(from)) expected = _err(Marketplace.TransferFailed.selector);
        (bool ok, bytes memory ret) = _call("closeListingAndWithdraw", from, 0, abi.encodeCall(market.closeListingAndWithdraw, (id)), expected);
        if (!ok) return;
        vm.assertEq(abi.decode(ret, (uint256)), amount, "closeListingAndWithdraw: the whole escrow");
        l.escrow = 0;
        l.status = CLOSED;
    }

    function revoke(uint256 listingSeed, uint256 actorSeed, uint256 renterSeed, bool perQueryCall) external {
        bytes32 id = _listing(listingSeed);
        address from = _creatorOf(id, actorSeed);
        address buyer = _holder(id, renterSeed);
        bytes memory expected = _openListingError(id, from);
        bool isPerQuery = listingModel[id].accessType == PER_QUERY;
        if (expected.length == 0 && isPerQuery != perQueryCall) expected = _err(Marketplace.InvalidAccessType.selector);
        bool exists = perQueryCall ? perQueryModel[id][buyer].purchasedAt != 0 : credentialModel[id][buyer].buyer != address(0);
        bool revoked = perQueryCall ? perQueryModel[id][buyer].isRevoked : credentialModel[id][buyer].isRevoked;
        if (expected.length == 0 && !exists) expected = _err(Marketplace.CredentialNotFound.selector);
        if (expected.length == 0 && revoked) expected = _err(Marketplace.CredentialRevoked.selector);
        bytes memory data = perQueryCall
            ? abi.encodeCall(market.revokePerQueryAccess, (id, buyer))
            : abi.encodeCall(market.revokeAccess, (id, buyer));
        (bool ok,) = _call(perQueryCall ? bytes32("revokePerQueryAccess") : bytes32("revokeAccess"), from, 0, data, expected);
        if (!ok) return;
        if (perQueryCall) perQueryModel[id][buyer].isRevoked = true;
        else credentialModel[id][buyer].isRevoked = true;
    }

    function withdrawEarnings(uint256 listingSeed, uint256 actorSeed, uint256 amountSeed) external {
        bytes32 id = _listing(listingSeed);
        address from = _creatorOf(id, actorSeed);
        ListingModel storage l = listingModel[id];
        uint256 available = l.escrow - (l.accessType == SUBSCRIPTION ? unvestedModel(id) : 0);
        // All of it, part of it, one wei too much, or nothing.
        uint256 k = amountSeed % 6;
        uint256 amount = k == 0 ? available + 1 : k == 1 ? 0 : k == 2 ? _bound(amountSeed >> 8, 1, available + 1) : available;
        _withdrawEarnings(id, from, amount);
    }

    function _withdrawEarnings(bytes32 id, address from, uint256 amount) internal {
        ListingModel storage l = listingModel[id];
        uint256 available = l.escrow - (l.accessType == SUBSCRIPTION ? unvestedModel(id) : 0);
        bytes memory expected = OK;
        if (l.status == NONE) expected = _err(Marketplace.ListingNotFound.selector);
        else if (l.creator != from) expected = _err(Marketplace.Unauthorized.selector);
        else if (available == 0 || amount == 0) expected = _err(Marketplace.NothingToWithdraw.selector);
        else if (amount > available) expected = abi.encodeWithSelector(Marketplace.WithdrawalExceedsBalance.selector, amount, available);
        else if (_payoutFails(from)) expected = _err(Marketplace.TransferFailed.selector);
        (bool ok,) = _call("withdrawEarnings", from, 0, abi.encodeCall(market.withdrawEarnings, (id, amount)), expected);
        if (ok) l.escrow -= uint128(amount);
    }

    function purchaseOneTime(uint256 listingSeed, uint256 renterSeed, uint256 paySeed) external {
        bytes32 id = _listing(listingSeed);
        _purchaseOneTime(id, _renter(renterSeed), _payment(listingModel[id].price, paySeed));
    }

    function _purchaseOneTime(bytes32 id, address from, uint256 value) internal {
        bytes memory expected = _purchasableError(id, ONE_TIME);
        CredentialModel storage c = credentialModel[id][from];
        if (expected.length == 0 && c.buyer != address(0)) {
            expected = _err(c.isRevoked ? Marketplace.CredentialRevoked.selector : Marketplace.CredentialAlreadyExists.selector);
        }
        if (expected.length == 0 && value != listingModel[id].price) {
            expected = abi.encodeWithSelector(Marketplace.IncorrectPayment.selector, listingModel[id].price, value);
        }
        (bool ok,) = _call("purchaseOneTime", from, value, abi.encodeCall(market.purchaseOneTime, (id)), expected);
        if (!ok) return;
        c.buyer = from;
        c.purchasedAt = uint40(block.timestamp);
        c.accessType = ONE_TIME;
        _collectModel(id, value);
    }

    function _subscriptionError(bytes32 id, uint256 duration) internal view returns (bytes memory expected, uint256 cost) {
        expected = _purchasableError(id, SUBSCRIPTION);
        if (expected.length != 0) return (expected, 0);
        if (duration != 30 days && duration != 90 days && duration != 365 days) {
            return (abi.encodeWithSelector(Marketplace.InvalidDuration.selector, duration), 0);
        }
        cost = (uint256(listingModel[id].price) * duration) / 30 days;
    }

    function purchaseSubscription(uint256 listingSeed, uint256 renterSeed, uint256 durationSeed, uint256 paySeed)
        external
    {
        bytes32 id = _listing(listingSeed);
        uint256 duration = _duration(durationSeed);
        (, uint256 cost) = _subscriptionError(id, duration);
        _purchaseSubscription(id, _renter(renterSeed), duration, _payment(cost, paySeed));
    }

    function _purchaseSubscription(bytes32 id, address from, uint256 duration, uint256 value) internal {
        (bytes memory expected, uint256 cost) = _subscriptionError(id, duration);
        CredentialModel storage c = credentialModel[id][from];
        if (expected.length == 0 && c.buyer != address(0)) {
            expected = _err(c.isRevoked ? Marketplace.CredentialRevoked.selector : Marketplace.CredentialAlreadyExists.selector);
        }
        if (expected.length == 0 && value != cost) expected = abi.encodeWithSelector(Marketplace.IncorrectPayment.selector, cost, value);
        uint256 expiresAt = block.timestamp + duration;
        if (expected.length == 0 && expiresAt > type(uint40).max) {
            expected = abi.encodeWithSelector(Marketplace.ExpiryTooLate.selector, expiresAt, uint256(type(uint40).max));
        }
        (bool ok,) = _call("purchaseSubscription", from, value, abi.encodeCall(market.purchaseSubscription, (id, duration)), expected);
        if (!ok) return;
        c.buyer = from;
        c.purchasedAt = uint40(block.timestamp);
        c.expiresAt = uint40(expiresAt);
        c.accessType = SUBSCRIPTION;
        uint256 fee = _collectModel(id, cost);
        _vestModel(id, cost - fee, block.timestamp, expiresAt);
    }

    function renewSubscription(uint256 listingSeed, uint256 renterSeed, uint256 durationSeed, uint256 paySeed) external {
        bytes32 id = _listing(listingSeed);
        address from = _holder(id, renterSeed);
        uint256 duration = _duration(durationSeed);
        (bytes memory expected, uint256 cost) = _subscriptionError(id, duration);
        uint256 value = _payment(cost, paySeed);
        CredentialModel storage c = credentialModel[id][from];
        if (expected.length == 0 && c.buyer == address(0)) expected = _err(Marketplace.CredentialNotFound.selector);
        if (expected.length == 0 && c.isRevoked) expected = _err(Marketplace.CredentialRevoked.selector);
        if (expected.length == 0 && value != cost) expected = abi.encodeWithSelector(Marketplace.IncorrectPayment.selector, cost, value);
        uint256 paidFrom = c.expiresAt > block.timestamp ? c.expiresAt : block.timestamp;
        uint256 expiresAt = paidFrom + duration;
        // A renewal pays at most 395 days ahead, and never past what a uint40 holds.
        if (expected.length == 0 && expiresAt > _maxRenewalExpiry()) {
            expected = abi.encodeWithSelector(Marketplace.ExpiryTooLate.selector, expiresAt, _maxRenewalExpiry());
        }
        (bool ok,) = _call("renewSubscription", from, value, abi.encodeCall(market.renewSubscription, (id, duration)), expected);
        if (!ok) return;
        c.expiresAt = uint40(expiresAt);
        uint256 fee = _collectModel(id, cost);
        _vestModel(id, cost - fee, paidFrom, expiresAt);
    }

    /// @dev The latest expiry a renewal may reach now: 395 days ahead, at most 2^40 - 1.
    function _maxRenewalExpiry() internal view returns (uint256) {
        uint256 maxExpiresAt = block.timestamp + 395 days;
        return maxExpiresAt > type(uint40).max ? type(uint40).max : maxExpiresAt;
    }

    /// @dev A deposit of one to five runs, sometimes with change, sometimes one wei short of a run.
    function _deposit(uint256 price, uint256 seed) internal pure returns (uint256) {
        if (seed % 7 == 0 && price > 0) return price - 1;
        return price * _bound(seed >> 8, 1, 5) + (seed % 3 == 0 ? (seed >> 16) % MIN_PRICE : 0);
    }

    function purchasePerQuery(uint256 listingSeed, uint256 renterSeed, uint256 depositSeed) external {
        bytes32 id = _listing(listingSeed);
        _purchasePerQuery(id, _renter(renterSeed), _deposit(listingModel[id].price, depositSeed));
    }

    function _purchasePerQuery(bytes32 id, address from, uint256 deposit) internal {
        uint256 price = listingModel[id].price;
        bytes memory expected = _purchasableError(id, PER_QUERY);
        PerQueryModel storage p = perQueryModel[id][from];
        if (expected.length == 0 && p.purchasedAt != 0) {
            expected = _err(p.isRevoked ? Marketplace.CredentialRevoked.selector : Marketplace.CredentialAlreadyExists.selector);
        }
        if (expected.length == 0 && deposit < price) expected = abi.encodeWithSelector(Marketplace.DepositTooLow.selector, deposit, price);
        (bool ok,) = _call("purchasePerQuery", from, deposit, abi.encodeCall(market.purchasePerQuery, (id)), expected);
        if (!ok) return;
        p.balance = uint96(deposit);
        p.purchasedAt = uint40(block.timestamp);
        p.depositPrice = uint96(price);
    }

    function topUpBalance(uint256 listingSeed, uint256 renterSeed, uint256 depositSeed) external {
        bytes32 id = _listing(listingSeed);
        address from = _holder(id, renterSeed);
        ListingModel storage l = listingModel[id];
        // One time in three the creator has just moved the price: a top-up accepts the new one (it
        // becomes the renter's deposit price).
        if ((depositSeed >> 40) % 3 == 0 && l.creator != address(0)) {
            _updateListing(id, l.creator, _newPrice(l.price, depositSeed >> 48), "ipfs://manifest");
        }
        uint256 amount = _deposit(l.price, depositSeed);
        PerQueryModel storage p = perQueryModel[id][from];
        bytes memory expected = OK;
        if (l.status == NONE) expected = _err(Marketplace.ListingNotFound.selector);
        else if (l.status == CLOSED) expected = _err(Marketplace.ListingNotActive.selector);
        else if (l.accessType != PER_QUERY) expected = _err(Marketplace.InvalidAccessType.selector);
        else if (p.purchasedAt == 0) expected = _err(Marketplace.CredentialNotFound.selector);
        else if (p.isRevoked) expected = _err(Marketplace.CredentialRevoked.selector);
        else if (amount < l.price) expected = abi.encodeWithSelector(Marketplace.DepositTooLow.selector, amount, l.price);
        (bool ok,) = _call("topUpBalance", from, amount, abi.encodeCall(market.topUpBalance, (id)), expected);
        if (!ok) return;
        p.balance += uint96(amount);
        p.depositPrice = l.price;
        p.withdrawalRequested = false;
    }

    /// @dev Whether the model lets a renter leave with the balance: the listing not active, the renter
    /// revoked, the price above the deposit price, or the balance below a run.
    function _mayLeave(bytes32 id, PerQueryModel storage p) internal view returns (bool) {
        ListingModel storage l = listingModel[id];
        return l.status != ACTIVE || p.isRevoked || l.price > p.depositPrice || p.balance < l.price;
    }

    /// @dev The checks both exits make first (the listing, the rental, a balance to take).
    function _exitError(bytes32 id, PerQueryModel storage p) internal view returns (bytes memory) {
        ListingModel storage l = listingModel[id];
        if (l.status == NONE) return _err(Marketplace.ListingNotFound.selector);
        if (l.accessType != PER_QUERY) return _err(Marketplace.InvalidAccessType.selector);
        if (p.purchasedAt == 0) return _err(Marketplace.CredentialNotFound.selector);
        if (p.balance == 0) return _err(Marketplace.NothingToWithdraw.selector);
        return OK;
    }

    function requestBalanceWithdrawal(uint256 listingSeed, uint256 renterSeed) public {
        bytes32 id = _listing(listingSeed);
        address from = _holder(id, renterSeed);
        ListingModel storage l = listingModel[id];
        PerQueryModel storage p = perQueryModel[id][from];
        // One time in three the creator has just raised the price by a wei: the renter may leave.
        if ((renterSeed >> 40) % 3 == 0 && l.creator != address(0) && l.price < 1 ether) {
            _updateListing(id, l.creator, l.price + 1, "ipfs://manifest");
        }
        bytes memory expected = _exitError(id, p);
        if (expected.length == 0 && p.withdrawalRequested) {
            expected = abi.encodeWithSelector(Marketplace.WithdrawalNotReady.selector, p.requestedAt + 1 hours);
        } else if (expected.length == 0 && !_mayLeave(id, p)) {
            // Live, affordable, and at a price the renter agreed to: prepaid credit is not refundable.
            expected = _err(Marketplace.Unauthorized.selector);
        }
        (bool ok,) = _call("requestBalanceWithdrawal", from, 0, abi.encodeCall(market.requestBalanceWithdrawal, (id)), expected);
        if (!ok) return;
        if (l.status == ACTIVE && !p.isRevoked && l.price > p.depositPrice && p.balance >= l.price) ++priceRiseExits;
        p.withdrawalRequested = true;
        p.requestedAt = block.timestamp;
    }

    function withdrawUnspentBalance(uint256 listingSeed, uint256 renterSeed) external {
        bytes32 id = _listing(listingSeed);
        address from = _holder(id, renterSeed);
        // One time in two a renter who asked to leave comes back, when there is one.
        if ((renterSeed >> 56) % 2 == 0) {
            for (uint256 i = 0; i < actors.length; ++i) {
                if (perQueryModel[id][actors[(i + renterSeed) % actors.length]].withdrawalRequested) {
                    from = actors[(i + renterSeed) % actors.length];
                    break;
                }
            }
        }
        ListingModel storage l = listingModel[id];
        PerQueryModel storage p = perQueryModel[id][from];
        // One time in three a renter with a pending request comes back when it is ready (or a second early).
        if ((renterSeed >> 40) % 3 == 0 && p.withdrawalRequested && block.timestamp < p.requestedAt + 1 hours) {
            vm.warp(p.requestedAt + 1 hours - ((renterSeed >> 48) % 4 == 0 ? 1 : 0));
        }
        bytes memory expected = _exitError(id, p);
        if (expected.length == 0 && l.status != CLOSED && !p.isRevoked) {
            // The right to leave is judged when it is used: a request whose reason has gone pays nothing.
            if (!_mayLeave(id, p)) {
                expected = _err(Marketplace.Unauthorized.selector);
            } else if (!p.withdrawalRequested) {
                expected = abi.encodeWithSelector(Marketplace.WithdrawalNotReady.selector, 0);
            } else if (block.timestamp < p.requestedAt + 1 hours) {
                expected = abi.encodeWithSelector(Marketplace.WithdrawalNotReady.selector, p.requestedAt + 1 hours);
            }
        }
        if (expected.length == 0 && _payoutFails(from)) expected = _err(Marketplace.TransferFailed.selector);
        (bool ok,) = _call("withdrawUnspentBalance", from, 0, abi.encodeCall(market.withdrawUnspentBalance, (id)), expected);
        if (!ok) return;
        if (p.withdrawalRequested && l.status != CLOSED && !p.isRevoked) ++requestedExits;
        p.balance = 0;
        p.withdrawalRequested = false;
    }

    /// @dev The price a run was admitted at: mostly the current one, sometimes a stale higher or lower
    /// one (the price moved while the run ran), sometimes below the minimum.
    function _admittedPrice(uint256 price, uint256 seed) internal pure returns (uint256) {
        uint256 k = seed % 8;
        if (k == 0) return (seed >> 8) % MIN_PRICE;
        if (k == 1) return price * 2;
        if (k == 2) return price / 2;
        if (k == 3) return _bound(seed >> 8, MIN_PRICE, 2 ether);
        return price;
    }

    function consumeQuery(uint256 listingSeed, uint256 renterSeed, uint256 callerSeed, uint256 runSeed, uint256 priceSeed)
        external
    {
        bytes32 id = _listing(listingSeed);
        address buyer = _holder(id, renterSeed);
        address from = _authorityCaller(callerSeed);
        bytes32 ref = runRef(runSeed);
        uint256 maxPrice = _admittedPrice(listingModel[id].price, priceSeed);
        (bytes memory expected, bool replay, uint256 charge) = _consumeOutcome(id, buyer, from, ref, maxPrice);
        vm.recordLogs();
        (bool ok, bytes memory ret) =
            _call("consumeQuery", from, 0, abi.encodeCall(market.consumeQuery, (id, buyer, ref, maxPrice)), expected);
        Marketplace.Charge[] memory sent = new Marketplace.Charge[](1);
        sent[0] = Marketplace.Charge(id, buyer, ref, maxPrice);
        _countCharges(sent);
        if (!ok) return;
        vm.assertEq(abi.decode(ret, (bool)), !replay, "charged iff the run was not charged before");
        if (replay) return;
        _applyCharge(id, buyer, ref, charge);
    }

    function _applyCharge(bytes32 id, address buyer, bytes32 ref, uint256 charge) internal {
        CapModel storage c = capModel[id][buyer];
        if (c.set) {
            if (block.timestamp >= c.periodStart + c.period) {
                c.periodStart += ((block.timestamp - c.periodStart) / c.period) * c.period;
                c.charged = 0;
            }
            c.charged += charge;
        }
        consumedModel[ref] = true;
        perQueryModel[id][buyer].balance -= uint96(charge);
        _collectModel(id, charge);
    }

    /// @dev Up to eight charges in one consumeQueries call: runs of the holders of one or two listings,
    /// the same reference twice now and then, stale and too-low admitted prices. Each charge's outcome
    /// is predicted in order from the model (a charge changes what the next one meets), and the events
    /// are checked one by one: QueryConsumed for a charge, QueryRefused with consumeQuery's custom error
    /// for a refusal, nothing for a run charged before.
    function consumeQueries(uint256 listingSeed, uint256 renterSeed, uint256 callerSeed, uint256 runSeed, uint256 countSeed)
        external
    {
        address from = _authorityCaller(callerSeed);
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](countSeed % 9);
        for (uint256 i = 0; i < charges.length; ++i) {
            uint256 r = uint256(keccak256(abi.encode(listingSeed, renterSeed, runSeed, i)));
            bytes32 id = _listing(r % 3 == 0 ? listingSeed >> 16 : listingSeed);
            // A reference of this batch again one time in five, else one from the pool.
            bytes32 ref = i > 0 && r % 5 == 0 ? charges[(r >> 8) % i].runRef : runRef(runSeed ^ (r >> 16));
            charges[i] = Marketplace.Charge(id, _holder(id, renterSeed >> (8 * (i % 8))), ref, _admittedPrice(listingModel[id].price, r >> 24));
        }
        bytes memory expected = from != authorityModel ? _err(Marketplace.Unauthorized.selector) : OK;
        // Predicted outcome of each charge: 0xffffffff charged, 0 skipped, else the refusal's selector.
        bytes4[] memory outcomes = new bytes4[](charges.length);
        uint256 predicted = 0;
        if (expected.length == 0) {
            for (uint256 i = 0; i < charges.length; ++i) {
                Marketplace.Charge memory c = charges[i];
                (bytes memory refusal, bool replay, uint256 charge) = _consumeOutcome(c.listingId, c.buyer, from, c.runRef, c.maxPrice);
                if (replay) continue;
                if (refusal.length != 0) {
                    outcomes[i] = bytes4(refusal);
                    continue;
                }
                outcomes[i] = bytes4(0xffffffff);
                ++predicted;
                _applyCharge(c.listingId, c.buyer, c.runRef, charge);
            }
        }
        vm.recordLogs();
        (bool ok, bytes memory ret) = _call("consumeQueries", from, 0, abi.encodeCall(market.consumeQueries, (charges)), expected);
        Vm.Log[] memory logs = _countCharges(charges);
        if (!ok) return;
        vm.assertEq(abi.decode(ret, (uint256)), predicted, "consumeQueries: the count charged");
        uint256 next = 0;
        bool anyRefused = false;
        for (uint256 i = 0; i < charges.length; ++i) {
            if (outcomes[i] == bytes4(0)) continue;
            vm.assertEq(logs[next].topics[3], charges[i].runRef, "consumeQueries: the event of this charge");
            if (outcomes[i] == bytes4(0xffffffff)) {
                vm.assertEq(logs[next].topics[0], QUERY_CONSUMED, "consumeQueries: charged");
            } else {
                anyRefused = true;
                vm.assertEq(logs[next].topics[0], QUERY_REFUSED, "consumeQueries: refused");
                vm.assertEq(abi.decode(logs[next].data, (bytes4)), outcomes[i], "consumeQueries: consumeQuery's custom error");
            }
            ++next;
        }
        vm.assertEq(next, logs.length, "consumeQueries: no other charge event");
        if (anyRefused && predicted > 0) ++mixedBatches;
    }

    bytes32 internal constant QUERY_CONSUMED = keccak256("QueryConsumed(bytes32,address,bytes32,uint256,uint256,uint256)");
    bytes32 internal constant QUERY_REFUSED = keccak256("QueryRefused(bytes32,address,bytes32,bytes4)");

    /// @dev The recorded QueryConsumed and QueryRefused events of the last call, in order. Each
    /// QueryConsumed counts a charge of its run reference (at most one ever) and is checked against the
    /// highest price any charge of this call admitted that run at.
    function _countCharges(Marketplace.Charge[] memory sent) internal returns (Vm.Log[] memory out) {
        Vm.Log[] memory logs = vm.getRecordedLogs();
        out = new Vm.Log[](logs.length);
        uint256 n = 0;
        for (uint256 i = 0; i < logs.length; ++i) {
            Vm.Log memory log = logs[i];
            if (log.emitter != address(market)) continue;
            if (log.topics[0] == QUERY_REFUSED) out[n++] = log;
            if (log.topics[0] != QUERY_CONSUMED) continue;
            out[n++] = log;
            _countCapped(log);
            bytes32 ref = log.topics[3];
            uint256 count = ++chargesOf[ref];
            if (count > mostChargesOfARun) mostChargesOfARun = count;
            (uint256 price,,) = abi.decode(log.data, (uint256, uint256, uint256));
            uint256 admitted = 0;
            for (uint256 j = 0; j < sent.length; ++j) {
                if (sent[j].runRef == ref && sent[j].maxPrice > admitted) admitted = sent[j].maxPrice;
            }
            if (price > admitted) ++chargesAboveAdmittedPrice;
        }
        assembly ("memory-safe") {
            mstore(out, n)
        }
    }

    /// @dev Adds a QueryConsumed to its capped (listing, renter)'s period, from the event alone, and counts
    /// a period whose charges pass the cap.
    function _countCapped(Vm.Log memory log) internal {
        bytes32 id = log.topics[1];
        address buyer = address(uint160(uint256(log.topics[2])));
        CapModel storage c = capModel[id][buyer];
        if (!c.set) return;
        uint256 start = c.periodStart + ((block.timestamp - c.periodStart) / c.period) * c.period;
        if (eventPeriodStart[id][buyer] != start) {
            eventPeriodStart[id][buyer] = start;
            eventPeriodCharged[id][buyer] = 0;
        }
        (uint256 price,,) = abi.decode(log.data, (uint256, uint256, uint256));
        eventPeriodCharged[id][buyer] += price;
        if (eventPeriodCharged[id][buyer] > c.amount) ++capBreaches;
    }

    /// @dev consumeQuery's rule: the charge is min(current price, admitted price, deposit price).
    function _consumeOutcome(bytes32 id, address buyer, address from, bytes32 ref, uint256 maxPrice)
        internal
        view
        returns (bytes memory expected, bool replay, uint256 charge)
    {
        ListingModel storage l = listingModel[id];
        PerQueryModel storage p = perQueryModel[id][buyer];
        charge = l.price < maxPrice ? l.price : maxPrice;
        // The renter's deposit price caps every charge too.
        if (charge > p.depositPrice) charge = p.depositPrice;
        if (from != authorityModel) expected = _err(Marketplace.Unauthorized.selector);
        else if (consumedModel[ref]) replay = true;
        else if (maxPrice < MIN_PRICE) expected = abi.encodeWithSelector(Marketplace.PriceTooLow.selector, maxPrice, MIN_PRICE);
        else if (l.status == NONE) expected = _err(Marketplace.ListingNotFound.selector);
        else if (l.status == CLOSED) expected = _err(Marketplace.ListingNotActive.selector);
        else if (l.accessType != PER_QUERY) expected = _err(Marketplace.InvalidAccessType.selector);
        else if (p.purchasedAt == 0) expected = _err(Marketplace.CredentialNotFound.selector);
        else if (p.isRevoked) expected = _err(Marketplace.CredentialRevoked.selector);
        else if (p.balance < charge) expected = abi.encodeWithSelector(Marketplace.InsufficientBalance.selector, p.balance, charge);
        else expected = _capOutcome(id, buyer, charge);
    }

    /// @dev A capped renter's charge is refused when the current period's charges and it pass the cap.
    function _capOutcome(bytes32 id, address buyer, uint256 charge) internal view returns (bytes memory) {
        CapModel storage c = capModel[id][buyer];
        if (!c.set) return OK;
        uint256 charged = block.timestamp >= c.periodStart + c.period ? 0 : c.charged;
        if (charged + charge <= c.amount) return OK;
        return abi.encodeWithSelector(Marketplace.ChargeCapExceeded.selector, charged, c.amount);
    }

    /// @dev A renter sets, replaces or removes its cap: valid and invalid amounts and periods, on listings
    /// of every model, by renters who hold a rental and renters who do not.
    function setChargeCap(uint256 listingSeed, uint256 renterSeed, uint256 amountSeed, uint256 periodSeed) external {
        bytes32 id = _listing(listingSeed);
        address from = _holder(id, renterSeed);
        uint256 k = periodSeed % 10;
        uint256 period = k == 0 ? 0 : k == 1 ? (periodSeed >> 8) % 1 hours : k == 2 ? 180 days + 1 + (periodSeed >> 8) % 9 : 1 hours + (periodSeed >> 8) % 3 days;
        uint256 price = listingModel[id].price;
        uint256 amount = amountSeed % 11 == 0 ? uint256(type(uint88).max) + 1 : price * (amountSeed % 5) + (amountSeed >> 8) % (price + 1);
        if (k == 0 && amountSeed % 2 == 0) amount = 0;
        ListingModel storage l = listingModel[id];
        bytes memory expected = OK;
        if (l.status == NONE) expected = _err(Marketplace.ListingNotFound.selector);
        else if (l.accessType != PER_QUERY) expected = _err(Marketplace.InvalidAccessType.selector);
        else if (perQueryModel[id][from].purchasedAt == 0) expected = _err(Marketplace.CredentialNotFound.selector);
        else if ((amount != 0 || period != 0) && (period < 1 hours || period > 180 days || amount > type(uint88).max)) {
            expected = abi.encodeWithSelector(Marketplace.InvalidChargeCap.selector, amount, period);
        }
        (bool ok,) = _call("setChargeCap", from, 0, abi.encodeCall(market.setChargeCap, (id, amount, period)), expected);
        if (!ok) return;
        delete capModel[id][from];
        eventPeriodStart[id][from] = type(uint256).max;
        if (period == 0) return;
        capModel[id][from] = CapModel(true, amount, period, block.timestamp, 0);
    }

    function logRuns(uint256 callerSeed, bytes32 root, uint32 count) external {
        address from = _authorityCaller(callerSeed);
        if (callerSeed % 5 == 0) root = bytes32(0);
        if (callerSeed % 7 == 0) count = 0;
        bytes memory expected = OK;
        if (from != authorityModel) expected = _err(Marketplace.Unauthorized.selector);
        else if (root == bytes32(0) || count == 0) expected = _err(Marketplace.EmptyRunBatch.selector);
        (bool ok, bytes memory ret) = _call("logRuns", from, 0, abi.encodeCall(market.logRuns, (root, count)), expected);
        if (!ok) return;
        vm.assertEq(abi.decode(ret, (uint256)), rootsModel.length, "batch index");
        rootsModel.push(root);
    }

    function withdrawFees(uint256 callerSeed) external {
        address from = callerSeed % 3 == 0 ? feeRecipientModel : callerSeed % 3 == 1 ? authorityModel : _actor(callerSeed >> 8);
        bytes memory expected = OK;
        if (from != feeRecipientModel && from != authorityModel) expected = _err(Marketplace.Unauthorized.selector);
        else if (feesModel == 0) expected = _err(Marketplace.NothingToWithdraw.selector);
        else if (_payoutFails(feeRecipientModel)) expected = _err(Marketplace.TransferFailed.selector);
        (bool ok,) = _call("withdrawFees", from, 0, abi.encodeCall(market.withdrawFees, ()), expected);
        if (ok) feesModel = 0;
    }

    function setFeeBasisPoints(uint256 callerSeed, uint256 bps) external {
        address from = _authorityCaller(callerSeed);
        bps = bps % 1100;
        bytes memory expected = OK;
        if (from != authorityModel) expected = _err(Marketplace.Unauthorized.selector);
        else if (bps > 1000) expected = abi.encodeWithSelector(Marketplace.FeeTooHigh.selector, bps, 1000);
        (bool ok,) = _call("setFeeBasisPoints", from, 0, abi.encodeCall(market.setFeeBasisPoints, (bps)), expected);
        if (ok) feeBasisPointsModel = uint16(bps);
    }

    function setFeeRecipient(uint256 callerSeed, uint256 recipientSeed) external {
        address from = _authorityCaller(callerSeed);
        address to = recipientSeed % 5 == 0 ? address(0) : feeRecipientCandidates[recipientSeed % feeRecipientCandidates.length];
        bytes memory expected = OK;
        if (from != authorityModel) expected = _err(Marketplace.Unauthorized.selector);
        else if (to == address(0)) expected = _err(Marketplace.ZeroAddress.selector);
        (bool ok,) = _call("setFeeRecipient", from, 0, abi.encodeCall(market.setFeeRecipient, (to)), expected);
        if (ok) feeRecipientModel = to;
    }

    function setPaused(uint256 callerSeed, bool paused) external {
        address from = _authorityCaller(callerSeed);
        bytes memory expected = from != authorityModel ? _err(Marketplace.Unauthorized.selector) : OK;
        (bool ok,) = _call("setPaused", from, 0, abi.encodeCall(market.setPaused, (paused)), expected);
        if (ok) pausedModel = paused;
    }

    function transferAuthority(uint256 callerSeed, uint256 candidateSeed) external {
        address from = _authorityCaller(callerSeed);
        address to = candidateSeed % 6 == 0 ? address(0) : authorityCandidates[candidateSeed % authorityCandidates.length];
        bytes memory expected = OK;
        if (from != authorityModel) expected = _err(Marketplace.Unauthorized.selector);
        else if (to == address(0)) expected = _err(Marketplace.ZeroAddress.selector);
        (bool ok,) = _call("transferAuthority", from, 0, abi.encodeCall(market.transferAuthority, (to)), expected);
        if (ok) pendingAuthorityModel = to;
    }

    function acceptAuthority(uint256 callerSeed) external {
        address from = callerSeed % 3 != 0 && pendingAuthorityModel != address(0)
            ? pendingAuthorityModel
            : authorityCandidates[callerSeed % authorityCandidates.length];
        bytes memory expected = from != pendingAuthorityModel ? _err(Marketplace.Unauthorized.selector) : OK;
        (bool ok,) = _call("acceptAuthority", from, 0, abi.encodeCall(market.acceptAuthority, ()), expected);
        if (!ok) return;
        authorityModel = from;
        pendingAuthorityModel = address(0);
    }

    /// @dev How the re-entering contract treats the ETH it receives, and which listing it re-enters.
    function setReceiverMode(uint8 modeSeed, uint256 listingSeed) external {
        receiverMode = ReentrantReceiver.Mode(modeSeed % 4);
        receiver.setMode(receiverMode, _listing(listingSeed));
    }

    /// @dev Time passes: up to 40 days, so subscriptions expire and earnings vest; one time in four to the
    /// exact second a subscription expires or a listing's last paid period ends (or the second before),
    /// where the validity, vesting and closing rules change their answer.
    function warp(uint256 secondsSeed) external {
        if (secondsSeed % 4 == 0) {
            uint256 boundary = _futureBoundary(secondsSeed >> 3);
            if (boundary > block.timestamp) {
                uint256 to = (secondsSeed >> 2) % 2 == 0 ? boundary : boundary - 1;
                if (to > block.timestamp) {
                    vm.warp(to);
                    return;
                }
            }
        }
        vm.warp(block.timestamp + _bound(secondsSeed, 1, 40 days));
    }

    /// @dev One of the future expiries, vesting starts and ends, and withdrawal ready times in the model
    /// (0 when there is none).
    function _futureBoundary(uint256 seed) internal view returns (uint256) {
        uint256 count = 0;
        for (uint256 pass = 0; pass < 2; ++pass) {
            uint256 pick = pass == 1 && count > 0 ? seed % count : 0;
            for (uint256 i = 0; i < listingIds.length; ++i) {
                bytes32 id = listingIds[i];
                PaymentModel[] storage payments = paymentsModel[id];
                for (uint256 j = 0; j < payments.length * 2; ++j) {
                    uint256 t = j % 2 == 0 ? payments[j / 2].start : payments[j / 2].end;
                    if (t > block.timestamp) {
                        if (pass == 1 && pick == 0) return t;
                        if (pass == 1) --pick;
                        else ++count;
                    }
                }
                for (uint256 j = 0; j < actors.length; ++j) {
                    uint256 expiresAt = credentialModel[id][actors[j]].expiresAt;
                    PerQueryModel storage p = perQueryModel[id][actors[j]];
                    uint256 ready = p.withdrawalRequested ? p.requestedAt + 1 hours : 0;
                    for (uint256 k = 0; k < 2; ++k) {
                        uint256 t = k == 0 ? expiresAt : ready;
                        if (t > block.timestamp) {
                            if (pass == 1 && pick == 0) return t;
                            if (pass == 1) --pick;
                            else ++count;
                        }
                    }
                }
            }
            if (count == 0) return 0;
        }
        return 0;
    }
}

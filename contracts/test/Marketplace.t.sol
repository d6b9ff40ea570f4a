// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {MarketplaceTestBase} from "./utils/MarketplaceTestBase.sol";
import {ReentrantReceiver} from "./utils/ReentrantReceiver.sol";

/// @notice Every function on its happy path, and every custom error triggered with its selector (and
/// arguments where it has them) checked.
contract MarketplaceTest is MarketplaceTestBase {
    /*//////////////////////////////////////////////////////////////
                              DEPLOYMENT
    //////////////////////////////////////////////////////////////*/

    function test_constructor_setsRolesAndDefaultFee() public view {
        vm.assertEq(market.authority(), authority, "authority");
        vm.assertEq(market.feeRecipient(), feeRecipient, "fee recipient");
        vm.assertEq(market.feeBasisPoints(), 250, "default fee 2.5%");
        vm.assertFalse(market.paused(), "not paused");
    }

    function test_RevertWhen_constructorGetsZeroAuthority() public {
        vm.expectRevert(Marketplace.ZeroAddress.selector);
        new Marketplace(address(0), feeRecipient);
    }

    function test_RevertWhen_constructorGetsZeroFeeRecipient() public {
        vm.expectRevert(Marketplace.ZeroAddress.selector);
        new Marketplace(authority, address(0));
    }

    /*//////////////////////////////////////////////////////////////
                               LISTINGS
    //////////////////////////////////////////////////////////////*/

    function test_createListing_storesListingAndEmits() public {
        bytes32 seed = keccak256("seed");
        bytes32 expectedId = keccak256(abi.encodePacked(creator, seed));
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.ListingCreated(expectedId, creator, seed, SUBSCRIPTION, PRICE, URI);
        vm.prank(creator);
        bytes32 id = market.createListing(seed, SUBSCRIPTION, PRICE, URI);
        vm.assertEq(id, expectedId, "id is keccak256(creator, seed)");
        vm.assertEq(market.listingIdOf(creator, seed), expectedId, "listingIdOf");
        (
            uint96 price,
            uint128 escrow,
            Marketplace.AccessType accessType,
            Marketplace.ListingStatus status,
            address listedBy,
            uint40 createdAt,
            string memory uri
        ) = market.listings(id);
        vm.assertEq(price, PRICE, "price");
        vm.assertEq(escrow, 0, "escrow");
        vm.assertTrue(accessType == SUBSCRIPTION, "access type");
        vm.assertTrue(status == Marketplace.ListingStatus.Active, "active");
        vm.assertEq(listedBy, creator, "creator");
        vm.assertEq(createdAt, START, "createdAt");
        vm.assertEq(bytes(uri), bytes(URI), "uri");
    }

    function test_createListing_acceptsBoundaryTerms() public {
        vm.prank(creator);
        market.createListing(bytes32(uint256(7)), ONE_TIME, 1e12, "x");
        vm.prank(creator);
        market.createListing(bytes32(uint256(8)), ONE_TIME, type(uint96).max, string(new bytes(200)));
    }

    function test_RevertWhen_createListingTwiceWithSameSeed() public {
        _list(ONE_TIME);
        vm.expectRevert(Marketplace.ListingAlreadyExists.selector);
        _list(ONE_TIME);
    }

    function test_RevertWhen_createListingAfterCloseReusesSeed() public {
        bytes32 id = _list(ONE_TIME);
        vm.prank(creator);
        market.closeListing(id);
        vm.expectRevert(Marketplace.ListingAlreadyExists.selector);
        _list(ONE_TIME);
    }

    function test_RevertWhen_createListingPriceTooLow() public {
        vm.expectRevert(abi.encodeWithSelector(Marketplace.PriceTooLow.selector, 1e12 - 1, 1e12));
        _list(ONE_TIME, 1e12 - 1);
    }

    function test_RevertWhen_createListingMetadataUriEmpty() public {
        vm.expectRevert(Marketplace.MetadataUriEmpty.selector);
        vm.prank(creator);
        market.createListing(bytes32(0), ONE_TIME, PRICE, "");
    }

    function test_RevertWhen_createListingMetadataUriTooLong() public {
        vm.expectRevert(abi.encodeWithSelector(Marketplace.MetadataUriTooLong.selector, 201, 200));
        vm.prank(creator);
        market.createListing(bytes32(0), ONE_TIME, PRICE, string(new bytes(201)));
    }

    function test_RevertWhen_createListingWhileProtocolPaused() public {
        vm.prank(authority);
        market.setPaused(true);
        vm.expectRevert(Marketplace.ProtocolPaused.selector);
        _list(ONE_TIME);
    }

    function test_updateListing_replacesPriceAndUri() public {
        bytes32 id = _list(ONE_TIME);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.ListingUpdated(id, 2e15, "ipfs://v2");
        vm.prank(creator);
        market.updateListing(id, 2e15, "ipfs://v2");
        (uint96 price,,,,,, string memory uri) = market.listings(id);
        vm.assertEq(price, 2e15, "new price");
        vm.assertEq(bytes(uri), bytes("ipfs://v2"), "new uri");
    }

    function test_RevertWhen_updateListingByStranger() public {
        bytes32 id = _list(ONE_TIME);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(stranger);
        market.updateListing(id, PRICE, URI);
    }

    function test_RevertWhen_updateListingUnknown() public {
        vm.expectRevert(Marketplace.ListingNotFound.selector);
        vm.prank(creator);
        market.updateListing(bytes32(uint256(404)), PRICE, URI);
    }

    function test_RevertWhen_updateListingPriceTooLow() public {
        bytes32 id = _list(ONE_TIME);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.PriceTooLow.selector, 0, 1e12));
        vm.prank(creator);
        market.updateListing(id, 0, URI);
    }

    function test_setListingActive_pausesAndResumes() public {
        bytes32 id = _list(ONE_TIME);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.ListingActiveSet(id, false);
        vm.prank(creator);
        market.setListingActive(id, false);
        vm.assertTrue(_status(id) == Marketplace.ListingStatus.Paused, "paused");
        vm.prank(creator);
        market.setListingActive(id, true);
        vm.assertTrue(_status(id) == Marketplace.ListingStatus.Active, "active again");
    }

    function test_pausedListing_refusesNewRentalsButKeepsAccess() public {
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        vm.prank(creator);
        market.setListingActive(id, false);
        vm.assertTrue(market.isCredentialValid(id, renter), "existing access kept");
        vm.expectRevert(Marketplace.ListingNotActive.selector);
        _buyOneTime(id, stranger);
    }

    function test_closeListing_invalidatesEveryCredential() public {
        bytes32 one = _list(ONE_TIME);
        bytes32 perQuery = _list(PER_QUERY);
        _buyOneTime(one, renter);
        _buyPerQuery(perQuery, renter, PRICE * 3);
        vm.startPrank(creator);
        market.withdrawEarnings(one, _escrow(one));
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.ListingClosed(one);
        market.closeListing(one);
        market.closeListing(perQuery);
        vm.stopPrank();
        vm.assertFalse(market.isCredentialValid(one, renter), "one_time invalid after close");
        vm.assertFalse(market.isCredentialValid(perQuery, renter), "per_query invalid after close");
        vm.assertTrue(
            market.credentialStatus(one, renter) == Marketplace.CredentialStatus.ListingClosed, "status ListingClosed"
        );
    }

    function test_RevertWhen_closeListingWithEscrow() public {
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        vm.expectRevert(Marketplace.EscrowNotEmpty.selector);
        vm.prank(creator);
        market.closeListing(id);
    }

    function test_RevertWhen_closedListingIsManagedAgain() public {
        bytes32 id = _list(ONE_TIME);
        vm.startPrank(creator);
        market.closeListing(id);
        vm.expectRevert(Marketplace.ListingNotActive.selector);
        market.closeListing(id);
        vm.expectRevert(Marketplace.ListingNotActive.selector);
        market.setListingActive(id, true);
        vm.expectRevert(Marketplace.ListingNotActive.selector);
        market.updateListing(id, PRICE, URI);
        vm.stopPrank();
        vm.expectRevert(Marketplace.ListingNotActive.selector);
        _buyOneTime(id, renter);
    }

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
                               PER-QUERY
    //////////////////////////////////////////////////////////////*/

    function test_purchasePerQuery_opensBalanceWithoutFee() public {
        bytes32 id = _list(PER_QUERY);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.PerQueryPurchased(id, renter, PRICE * 2);
        _buyPerQuery(id, renter, PRICE * 2);
        (uint128 balance, uint40 purchasedAt, bool isRevoked) = market.perQueryBalances(id, renter);
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
        market.consumeQuery(id, renter, "run-1");
    }

    function test_RevertWhen_consumeQueryWithoutRental() public {
        bytes32 id = _list(PER_QUERY);
        vm.expectRevert(Marketplace.CredentialNotFound.selector);
        _consume(id, renter, "run-1");
    }

    function test_RevertWhen_consumeQueryOnClosedListing() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        vm.prank(creator);
        market.closeListing(id);
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
        vm.prank(creator);
        market.closeListing(id);
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
        vm.prank(creator);
        market.closeListing(id);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.assertEq(address(market).balance, 0, "nothing trapped");
    }

    function test_withdrawUnspentBalance_afterPriceRiseAboveBalance() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        vm.prank(creator);
        market.updateListing(id, PRICE * 2, URI);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InsufficientBalance.selector, PRICE, PRICE * 2));
        _consume(id, renter, "run-1");
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.assertEq(_balance(id, renter), 0, "stranded balance returned");
    }

    function test_RevertWhen_withdrawUnspentBalanceOfLiveRental() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
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
                               EARNINGS
    //////////////////////////////////////////////////////////////*/

    function test_withdrawEarnings_paysCreatorEvenWhilePaused() public {
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        uint256 escrow = _escrow(id);
        vm.prank(authority);
        market.setPaused(true);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.EarningsWithdrawn(id, creator, escrow - 1);
        vm.prank(creator);
        market.withdrawEarnings(id, escrow - 1);
        vm.assertEq(creator.balance, escrow - 1, "paid");
        vm.assertEq(_escrow(id), 1, "rest stays");
    }

    function test_RevertWhen_withdrawEarningsExceedsEscrow() public {
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        uint256 escrow = _escrow(id);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.WithdrawalExceedsBalance.selector, escrow + 1, escrow));
        vm.prank(creator);
        market.withdrawEarnings(id, escrow + 1);
    }

    function test_RevertWhen_withdrawEarningsWithEmptyEscrowOrZeroAmount() public {
        bytes32 id = _list(ONE_TIME);
        vm.expectRevert(Marketplace.NothingToWithdraw.selector);
        vm.prank(creator);
        market.withdrawEarnings(id, 1);
        _buyOneTime(id, renter);
        vm.expectRevert(Marketplace.NothingToWithdraw.selector);
        vm.prank(creator);
        market.withdrawEarnings(id, 0);
    }

    function test_RevertWhen_withdrawEarningsByStranger() public {
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(stranger);
        market.withdrawEarnings(id, 1);
    }

    function test_RevertWhen_withdrawEarningsToContractThatRejectsEth() public {
        ReentrantReceiver receiver = new ReentrantReceiver(market);
        bytes32 id = receiver.createListing("r", ONE_TIME, PRICE);
        _buyOneTime(id, renter);
        receiver.setMode(ReentrantReceiver.Mode.Reject, id);
        vm.expectRevert(Marketplace.TransferFailed.selector);
        receiver.withdrawEarnings(id, 1);
    }

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

    /*//////////////////////////////////////////////////////////////
                                PROTOCOL
    //////////////////////////////////////////////////////////////*/

    function test_setFeeBasisPoints_appliesToLaterPurchases() public {
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.FeeBasisPointsSet(250, 1000);
        vm.prank(authority);
        market.setFeeBasisPoints(1000);
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        vm.assertEq(market.accruedFees(), PRICE / 10, "10% fee");
    }

    function test_RevertWhen_setFeeBasisPointsAboveCap() public {
        vm.expectRevert(abi.encodeWithSelector(Marketplace.FeeTooHigh.selector, 1001, 1000));
        vm.prank(authority);
        market.setFeeBasisPoints(1001);
    }

    function test_RevertWhen_protocolSettersCalledByStranger() public {
        vm.startPrank(stranger);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        market.setFeeBasisPoints(100);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        market.setFeeRecipient(stranger);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        market.setPaused(true);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        market.transferAuthority(stranger);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        market.logRuns(bytes32(0), 1);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        market.withdrawFees();
        vm.stopPrank();
    }

    function test_setFeeRecipient_andWithdrawFees() public {
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        address next = address(0xBEEF);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.FeeRecipientSet(feeRecipient, next);
        vm.prank(authority);
        market.setFeeRecipient(next);
        vm.prank(authority);
        market.setPaused(true);
        uint256 fees = market.accruedFees();
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.FeesWithdrawn(next, fees);
        vm.prank(next);
        market.withdrawFees();
        vm.assertEq(next.balance, fees, "fees paid while paused");
        vm.assertEq(market.accruedFees(), 0, "fees cleared");
        vm.expectRevert(Marketplace.NothingToWithdraw.selector);
        vm.prank(next);
        market.withdrawFees();
    }

    function test_RevertWhen_setFeeRecipientZero() public {
        vm.expectRevert(Marketplace.ZeroAddress.selector);
        vm.prank(authority);
        market.setFeeRecipient(address(0));
    }

    function test_setPaused_emits() public {
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.PausedSet(true);
        vm.prank(authority);
        market.setPaused(true);
        vm.assertTrue(market.paused(), "paused");
    }

    function test_transferAuthority_movesTheRole() public {
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.AuthorityTransferred(authority, stranger);
        vm.prank(authority);
        market.transferAuthority(stranger);
        vm.assertEq(market.authority(), stranger, "new authority");
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(authority);
        market.setPaused(true);
    }

    function test_RevertWhen_transferAuthorityToZero() public {
        vm.expectRevert(Marketplace.ZeroAddress.selector);
        vm.prank(authority);
        market.transferAuthority(address(0));
    }

    /*//////////////////////////////////////////////////////////////
                                RUN LOG
    //////////////////////////////////////////////////////////////*/

    function test_logRuns_andVerifyReceipts() public {
        bytes32 listingId = _list(PER_QUERY);
        bytes32[4] memory leaves;
        for (uint256 i = 0; i < 4; ++i) {
            leaves[i] = market.runReceiptLeaf(bytes32(i + 1), listingId, renter, uint8(i % 2), PRICE, uint64(100 * i));
        }
        bytes32 left = _pair(leaves[0], leaves[1]);
        bytes32 right = _pair(leaves[2], leaves[3]);
        bytes32 root = _pair(left, right);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.RunsLogged(0, root, 4);
        vm.prank(authority);
        uint256 batch = market.logRuns(root, 4);
        vm.assertEq(batch, 0, "first batch");
        vm.assertEq(market.runBatchCount(), 1, "count");
        bytes32[] memory proof = new bytes32[](2);
        proof[0] = leaves[3];
        proof[1] = left;
        vm.assertTrue(market.verifyRunReceipt(0, leaves[2], proof), "leaf 2 proven");
        vm.assertFalse(market.verifyRunReceipt(0, leaves[1], proof), "wrong leaf refused");
        vm.assertFalse(market.verifyRunReceipt(1, leaves[2], proof), "unknown batch refused");
        vm.prank(authority);
        vm.assertEq(market.logRuns(keccak256("next"), 100), 1, "second batch");
    }

    function _pair(bytes32 a, bytes32 b) private pure returns (bytes32) {
        return a < b ? keccak256(abi.encode(a, b)) : keccak256(abi.encode(b, a));
    }
}

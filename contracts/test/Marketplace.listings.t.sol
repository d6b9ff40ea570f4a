// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {MarketplaceTestBase} from "./utils/MarketplaceTestBase.sol";
import {ReentrantReceiver} from "./utils/ReentrantReceiver.sol";

/// @notice Listings (create, update, pause, close) and the creator's earnings. Every function on its happy path, and every custom error triggered with its selector
/// (and arguments where it has them) checked.
contract MarketplaceListingsTest is MarketplaceTestBase {
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
        _close(id);
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

    /// @notice The specification's rule: a listing in any state closes when its escrow holds no funds.
    function test_closeListing_closesAnActiveListingWithAnEmptyEscrow() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 2); // a deposit is the renter's, not escrow
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.ListingClosed(id);
        vm.prank(creator);
        market.closeListing(id);
        vm.assertTrue(_status(id) == Marketplace.ListingStatus.Closed, "closed from active");
    }

    function test_closeListing_closesAPausedListingWithAnEmptyEscrow() public {
        bytes32 id = _list(ONE_TIME);
        _pause(id);
        vm.prank(creator);
        market.closeListing(id);
        vm.assertTrue(_status(id) == Marketplace.ListingStatus.Closed, "closed from paused");
    }

    /// @notice With funds in escrow the close fails with EscrowNotEmpty, active or paused.
    function test_RevertWhen_closeListingWithFundsInEscrow() public {
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        vm.expectRevert(Marketplace.EscrowNotEmpty.selector);
        vm.prank(creator);
        market.closeListing(id);
        _pause(id);
        vm.expectRevert(Marketplace.EscrowNotEmpty.selector);
        vm.prank(creator);
        market.closeListing(id);
        uint256 escrow = _escrow(id);
        vm.prank(creator);
        market.withdrawEarnings(id, escrow - 1);
        vm.expectRevert(Marketplace.EscrowNotEmpty.selector);
        vm.prank(creator);
        market.closeListing(id);
        vm.prank(creator);
        market.withdrawEarnings(id, 1);
        vm.prank(creator);
        market.closeListing(id);
        vm.assertTrue(_status(id) == Marketplace.ListingStatus.Closed, "closed once the escrow is empty");
    }

    function test_closeListingAndWithdraw_paysTheEscrowAndCloses() public {
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        _buyOneTime(id, stranger);
        uint256 earned = _escrow(id);
        uint256 before = creator.balance;
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.EarningsWithdrawn(id, creator, earned);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.ListingClosed(id);
        vm.prank(creator);
        vm.assertEq(market.closeListingAndWithdraw(id), earned, "returns the amount");
        vm.assertEq(creator.balance - before, earned, "earnings paid");
        vm.assertEq(_escrow(id), 0, "escrow empty");
        vm.assertTrue(_status(id) == Marketplace.ListingStatus.Closed, "closed");
        vm.assertEq(address(market).balance, market.accruedFees(), "only fees left");
    }

    function test_closeListingAndWithdraw_closesAnEmptyListingWithoutAPayment() public {
        bytes32 id = _list(PER_QUERY);
        vm.recordLogs();
        vm.prank(creator);
        vm.assertEq(market.closeListingAndWithdraw(id), 0, "nothing withdrawn");
        vm.assertEq(vm.getRecordedLogs().length, 1, "ListingClosed only: no EarningsWithdrawn of 0");
        vm.assertTrue(_status(id) == Marketplace.ListingStatus.Closed, "closed");
    }

    /// @notice The race decision 0015 worried about: a charge lands between the creator's last look and
    /// the close. closeListingAndWithdraw takes whatever escrow there is when it runs.
    function test_closeListingAndWithdraw_cannotBeRacedByASettlement() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 3);
        _consume(id, renter, "settled-before");
        uint256 seen = _escrow(id);
        _consume(id, renter, "lands-in-between"); // after the creator read the escrow
        vm.prank(creator);
        uint256 paid = market.closeListingAndWithdraw(id);
        vm.assertEq(paid, seen * 2, "both runs' earnings");
        vm.assertTrue(_status(id) == Marketplace.ListingStatus.Closed, "closed");
        vm.prank(renter);
        market.withdrawUnspentBalance(id);
        vm.assertEq(_balance(id, renter), 0, "the renter takes the unspent balance back at once");
        vm.assertEq(address(market).balance, market.accruedFees(), "only fees left");
    }

    function test_RevertWhen_closeListingAndWithdrawBeforeSubscriptionEarningsVest() public {
        bytes32 id = _list(SUBSCRIPTION);
        _buySubscription(id, renter, DAYS_30);
        vm.expectRevert(Marketplace.EscrowNotEmpty.selector);
        vm.prank(creator);
        market.closeListingAndWithdraw(id);
        vm.warp(_dayEnd(START + DAYS_30) - 1);
        vm.expectRevert(Marketplace.EscrowNotEmpty.selector);
        vm.prank(creator);
        market.closeListingAndWithdraw(id);
        vm.warp(_dayEnd(START + DAYS_30));
        uint256 escrow = _escrow(id);
        vm.prank(creator);
        vm.assertEq(market.closeListingAndWithdraw(id), escrow, "all vested: paid and closed");
    }

    function test_RevertWhen_closeListingAndWithdrawByAnotherOrAgain() public {
        bytes32 id = _list(ONE_TIME);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(stranger);
        market.closeListingAndWithdraw(id);
        vm.expectRevert(Marketplace.ListingNotFound.selector);
        vm.prank(creator);
        market.closeListingAndWithdraw(bytes32(uint256(404)));
        _close(id);
        vm.expectRevert(Marketplace.ListingNotActive.selector);
        vm.prank(creator);
        market.closeListingAndWithdraw(id);
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
}

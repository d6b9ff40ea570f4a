// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {MarketplaceTestBase} from "./utils/MarketplaceTestBase.sol";
import {Vm} from "./utils/Vm.sol";

/// @notice consumeQueries, the batch charge: each charge with exactly consumeQuery's guarantees, every
/// refusal reported with its custom error's selector without reverting the rest, run references charged
/// at most once across both functions and inside one batch, dense references in the bitmap.
contract MarketplaceBatchTest is MarketplaceTestBase {
    bytes32 internal constant QUERY_CONSUMED =
        keccak256("QueryConsumed(bytes32,address,bytes32,uint256,uint256,uint256)");
    bytes32 internal constant QUERY_REFUSED = keccak256("QueryRefused(bytes32,address,bytes32,bytes4)");

    address internal renterB = address(uint160(uint256(keccak256("renter b"))));

    function setUp() public override {
        super.setUp();
        vm.deal(renterB, 100_000_000 ether);
    }

    function _batch(Marketplace.Charge[] memory charges) internal returns (uint256) {
        vm.prank(authority);
        return market.consumeQueries(charges);
    }

    function _one(bytes32 id, address who, bytes32 ref, uint256 maxPrice) internal pure returns (Marketplace.Charge memory) {
        return Marketplace.Charge(id, who, ref, maxPrice);
    }

    /// @dev The marketplace's QueryConsumed and QueryRefused logs of the recorded call, in order.
    function _chargeLogs() internal returns (Vm.Log[] memory out) {
        Vm.Log[] memory logs = vm.getRecordedLogs();
        uint256 n = 0;
        for (uint256 i = 0; i < logs.length; ++i) {
            if (logs[i].emitter == address(market) && (logs[i].topics[0] == QUERY_CONSUMED || logs[i].topics[0] == QUERY_REFUSED)) ++n;
        }
        out = new Vm.Log[](n);
        n = 0;
        for (uint256 i = 0; i < logs.length; ++i) {
            if (logs[i].emitter == address(market) && (logs[i].topics[0] == QUERY_CONSUMED || logs[i].topics[0] == QUERY_REFUSED)) out[n++] = logs[i];
        }
    }

    function _assertRefused(Vm.Log memory log, bytes32 id, address who, bytes32 ref, bytes4 reason) internal pure {
        vm.assertEq(log.topics[0], QUERY_REFUSED, "a QueryRefused event");
        vm.assertEq(log.topics[1], id, "refused: listing");
        vm.assertEq(log.topics[2], bytes32(uint256(uint160(who))), "refused: buyer");
        vm.assertEq(log.topics[3], ref, "refused: runRef");
        vm.assertEq(abi.decode(log.data, (bytes4)), reason, "refused: the reason is consumeQuery's custom error");
    }

    function _assertConsumed(Vm.Log memory log, bytes32 id, address who, bytes32 ref, uint256 price, uint256 newBalance) internal view {
        vm.assertEq(log.topics[0], QUERY_CONSUMED, "a QueryConsumed event");
        vm.assertEq(log.topics[1], id, "consumed: listing");
        vm.assertEq(log.topics[2], bytes32(uint256(uint160(who))), "consumed: buyer");
        vm.assertEq(log.topics[3], ref, "consumed: runRef");
        (uint256 charged, uint256 fee, uint256 balance) = abi.decode(log.data, (uint256, uint256, uint256));
        vm.assertEq(charged, price, "consumed: price");
        vm.assertEq(fee, _fee(price), "consumed: fee");
        vm.assertEq(balance, newBalance, "consumed: newBalance");
    }

    /*//////////////////////////////////////////////////////////////
                               CHARGING
    //////////////////////////////////////////////////////////////*/

    function test_consumeQueries_chargesEveryRunOfTheBatch() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 3);
        _buyPerQuery(id, renterB, PRICE * 2);
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](3);
        charges[0] = _one(id, renter, bytes32(uint256(0)), PRICE);
        charges[1] = _one(id, renterB, bytes32(uint256(1)), PRICE);
        charges[2] = _one(id, renter, keccak256("a hashed run"), PRICE);
        vm.recordLogs();
        vm.assertEq(_batch(charges), 3, "three charged");
        Vm.Log[] memory logs = _chargeLogs();
        vm.assertEq(logs.length, 3, "one QueryConsumed per charged run");
        _assertConsumed(logs[0], id, renter, bytes32(uint256(0)), PRICE, PRICE * 2);
        _assertConsumed(logs[1], id, renterB, bytes32(uint256(1)), PRICE, PRICE);
        _assertConsumed(logs[2], id, renter, keccak256("a hashed run"), PRICE, PRICE);
        vm.assertEq(_balance(id, renter), PRICE, "renter debited twice");
        vm.assertEq(_balance(id, renterB), PRICE, "renter b debited once");
        vm.assertEq(_escrow(id), 3 * (PRICE - _fee(PRICE)), "escrow grew by three runs less fees");
        vm.assertEq(market.accruedFees(), 3 * _fee(PRICE), "three fees");
        vm.assertTrue(market.isRunCharged(bytes32(uint256(0))), "dense ref 0 marked");
        vm.assertTrue(market.isRunCharged(bytes32(uint256(1))), "dense ref 1 marked");
        vm.assertTrue(market.isRunCharged(keccak256("a hashed run")), "hashed ref marked");
        vm.assertEq(market.chargedRuns(0), 3, "bits 0 and 1 of word 0");
        vm.assertTrue(market.consumedRuns(keccak256("a hashed run")), "consumedRuns answers for a hashed ref");
        vm.assertTrue(market.consumedRuns(bytes32(uint256(1))), "and for a dense one");
    }

    function test_consumeQueries_chargesTheLowerOfTheCurrentAndTheAdmittedPrice() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 10);
        _setPrice(id, PRICE * 2);
        vm.prank(renter);
        market.topUpBalance{value: PRICE * 2}(id); // the renter agrees to the new price
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](2);
        charges[0] = _one(id, renter, bytes32(uint256(7)), PRICE); // admitted before the rise
        charges[1] = _one(id, renter, bytes32(uint256(8)), PRICE * 3); // admitted at a higher price before a cut
        vm.recordLogs();
        _batch(charges);
        Vm.Log[] memory logs = _chargeLogs();
        _assertConsumed(logs[0], id, renter, bytes32(uint256(7)), PRICE, PRICE * 11);
        _assertConsumed(logs[1], id, renter, bytes32(uint256(8)), PRICE * 2, PRICE * 9);
    }

    function test_consumeQueries_worksOnAPausedListingAndWhileTheProtocolIsPaused() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        _pause(id);
        vm.prank(authority);
        market.setPaused(true);
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](1);
        charges[0] = _one(id, renter, bytes32(uint256(3)), PRICE);
        vm.assertEq(_batch(charges), 1, "admitted runs settle while paused");
    }

    function test_consumeQueries_emptyBatchChargesNothing() public {
        vm.recordLogs();
        vm.assertEq(_batch(new Marketplace.Charge[](0)), 0, "nothing charged");
        vm.assertEq(_chargeLogs().length, 0, "no event");
        vm.assertEq(market.accruedFees(), 0, "no fee");
    }

    function test_RevertWhen_consumeQueriesByStranger() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](1);
        charges[0] = _one(id, renter, bytes32(uint256(1)), PRICE);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(stranger);
        market.consumeQueries(charges);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(creator);
        market.consumeQueries(charges);
        vm.assertFalse(market.isRunCharged(bytes32(uint256(1))), "nothing marked");
        vm.assertEq(_balance(id, renter), PRICE, "nothing debited");
    }

    /*//////////////////////////////////////////////////////////////
                               REFUSALS
    //////////////////////////////////////////////////////////////*/

    /// @notice Every reason consumeQuery reverts with is reported for its run, between charges that land.
    function test_consumeQueries_reportsEveryRefusalAndChargesTheRest() public {
        bytes32 id = _list(PER_QUERY);
        bytes32 oneTime = _list(ONE_TIME);
        bytes32 closed;
        {
            vm.prank(creator);
            closed = market.createListing(bytes32(uint256(99)), PER_QUERY, PRICE, URI);
            _buyPerQuery(closed, renter, PRICE);
            _close(closed);
        }
        _buyPerQuery(id, renter, PRICE * 2);
        _buyPerQuery(id, stranger, PRICE);
        vm.prank(creator);
        market.revokePerQueryAccess(id, stranger);
        _buyPerQuery(id, renterB, PRICE);
        _consume(id, renterB, "drains b");

        Marketplace.Charge[] memory charges = new Marketplace.Charge[](9);
        charges[0] = _one(id, renter, bytes32(uint256(10)), PRICE); // charged
        charges[1] = _one(id, renter, bytes32(uint256(11)), 1e12 - 1); // PriceTooLow
        charges[2] = _one(bytes32(uint256(404)), renter, bytes32(uint256(12)), PRICE); // ListingNotFound
        charges[3] = _one(closed, renter, bytes32(uint256(13)), PRICE); // ListingNotActive (closed)
        charges[4] = _one(oneTime, renter, bytes32(uint256(14)), PRICE); // InvalidAccessType
        charges[5] = _one(id, creator, bytes32(uint256(15)), PRICE); // CredentialNotFound
        charges[6] = _one(id, stranger, bytes32(uint256(16)), PRICE); // CredentialRevoked
        charges[7] = _one(id, renterB, bytes32(uint256(17)), PRICE); // InsufficientBalance
        charges[8] = _one(id, renter, bytes32(uint256(18)), PRICE); // charged

        vm.recordLogs();
        vm.assertEq(_batch(charges), 2, "the two valid charges land");
        Vm.Log[] memory logs = _chargeLogs();
        vm.assertEq(logs.length, 9, "one event per charge");
        _assertConsumed(logs[0], id, renter, bytes32(uint256(10)), PRICE, PRICE);
        _assertRefused(logs[1], id, renter, bytes32(uint256(11)), Marketplace.PriceTooLow.selector);
        _assertRefused(logs[2], bytes32(uint256(404)), renter, bytes32(uint256(12)), Marketplace.ListingNotFound.selector);
        _assertRefused(logs[3], closed, renter, bytes32(uint256(13)), Marketplace.ListingNotActive.selector);
        _assertRefused(logs[4], oneTime, renter, bytes32(uint256(14)), Marketplace.InvalidAccessType.selector);
        _assertRefused(logs[5], id, creator, bytes32(uint256(15)), Marketplace.CredentialNotFound.selector);
        _assertRefused(logs[6], id, stranger, bytes32(uint256(16)), Marketplace.CredentialRevoked.selector);
        _assertRefused(logs[7], id, renterB, bytes32(uint256(17)), Marketplace.InsufficientBalance.selector);
        _assertConsumed(logs[8], id, renter, bytes32(uint256(18)), PRICE, 0);
        for (uint256 ref = 11; ref <= 17; ++ref) {
            vm.assertFalse(market.isRunCharged(bytes32(ref)), "a refused charge marks nothing");
        }
        vm.assertEq(_balance(id, stranger), PRICE, "a revoked renter's balance is untouched");
        vm.assertEq(_escrow(id), 3 * (PRICE - _fee(PRICE)), "escrow: b's earlier run and the two charged");
    }

    /// @notice The same refusal through consumeQuery reverts with the same custom error (the selector
    /// the batch reports is that error's).
    function test_consumeQueries_reportsWhatConsumeQueryRevertsWith() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        _consume(id, renter, bytes32(uint256(1)));
        vm.expectRevert(abi.encodeWithSelector(Marketplace.InsufficientBalance.selector, 0, PRICE));
        _consume(id, renter, bytes32(uint256(2)), PRICE);
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](1);
        charges[0] = _one(id, renter, bytes32(uint256(2)), PRICE);
        vm.recordLogs();
        vm.assertEq(_batch(charges), 0, "refused");
        _assertRefused(_chargeLogs()[0], id, renter, bytes32(uint256(2)), Marketplace.InsufficientBalance.selector);
    }

    /// @notice A refused run is not marked: a later batch charges it once the renter can pay.
    function test_consumeQueries_aRefusedRunCanBeChargedLater() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE);
        _consume(id, renter, bytes32(uint256(1)));
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](1);
        charges[0] = _one(id, renter, bytes32(uint256(2)), PRICE);
        vm.assertEq(_batch(charges), 0, "refused: balance 0");
        vm.prank(renter);
        market.topUpBalance{value: PRICE}(id);
        vm.assertEq(_batch(charges), 1, "charged after the top-up");
    }

    /*//////////////////////////////////////////////////////////////
                           AT MOST ONCE PER RUN
    //////////////////////////////////////////////////////////////*/

    function test_consumeQueries_aDuplicateInsideOneBatchIsChargedOnce() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 5);
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](4);
        charges[0] = _one(id, renter, bytes32(uint256(5)), PRICE);
        charges[1] = _one(id, renter, bytes32(uint256(5)), PRICE);
        charges[2] = _one(id, renter, keccak256("hashed"), PRICE);
        charges[3] = _one(id, renter, keccak256("hashed"), PRICE);
        vm.recordLogs();
        vm.assertEq(_batch(charges), 2, "each run once");
        Vm.Log[] memory logs = _chargeLogs();
        vm.assertEq(logs.length, 2, "the duplicates emit nothing");
        _assertConsumed(logs[0], id, renter, bytes32(uint256(5)), PRICE, PRICE * 4);
        _assertConsumed(logs[1], id, renter, keccak256("hashed"), PRICE, PRICE * 3);
        vm.assertEq(_balance(id, renter), PRICE * 3, "debited twice, not four times");
    }

    function test_consumeQueries_skipsARunConsumeQueryCharged() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 4);
        vm.assertTrue(_consume(id, renter, bytes32(uint256(300))), "dense ref charged by consumeQuery");
        vm.assertTrue(_consume(id, renter, keccak256("hashed")), "hashed ref charged by consumeQuery");
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](2);
        charges[0] = _one(id, renter, bytes32(uint256(300)), PRICE);
        charges[1] = _one(id, renter, keccak256("hashed"), PRICE);
        vm.recordLogs();
        vm.assertEq(_batch(charges), 0, "nothing charged again");
        vm.assertEq(_chargeLogs().length, 0, "skipped silently");
        vm.assertEq(_balance(id, renter), PRICE * 2, "two charges, not four");
        vm.assertEq(market.chargedRuns(1), 1 << (300 - 256), "ref 300 is bit 44 of word 1");
    }

    function test_consumeQuery_skipsARunTheBatchCharged() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 4);
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](2);
        charges[0] = _one(id, renter, bytes32(uint256(9)), PRICE);
        charges[1] = _one(id, renter, keccak256("hashed"), PRICE);
        _batch(charges);
        vm.recordLogs();
        vm.assertFalse(_consume(id, renter, bytes32(uint256(9))), "dense ref: no-op");
        vm.assertFalse(_consume(id, renter, keccak256("hashed")), "hashed ref: no-op");
        vm.assertEq(_chargeLogs().length, 0, "no event");
        vm.assertEq(_balance(id, renter), PRICE * 2, "charged once each");
    }

    /// @notice The boundary of the two markers: 2^64 - 1 is the last dense reference, 2^64 the first hashed.
    function test_consumeQueries_denseRefsEndBelowTwoToTheSixtyFour() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 4);
        bytes32 lastDense = bytes32(uint256(type(uint64).max));
        bytes32 firstSparse = bytes32(uint256(type(uint64).max) + 1);
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](2);
        charges[0] = _one(id, renter, lastDense, PRICE);
        charges[1] = _one(id, renter, firstSparse, PRICE);
        vm.assertEq(_batch(charges), 2, "both charged");
        vm.assertEq(market.DENSE_RUN_REFS(), uint256(type(uint64).max) + 1, "the boundary");
        vm.assertEq(market.chargedRuns(uint256(type(uint64).max) >> 8), 1 << 255, "the last bit of the last dense word");
        vm.assertEq(market.chargedRuns((uint256(type(uint64).max) + 1) >> 8), 0, "the first sparse ref is not a bit");
        vm.assertTrue(market.consumedRuns(lastDense) && market.isRunCharged(lastDense), "the last dense ref reads charged");
        vm.assertTrue(market.consumedRuns(firstSparse) && market.isRunCharged(firstSparse), "the first sparse ref too");
        vm.assertFalse(_consume(id, renter, lastDense), "and neither charges again");
        vm.assertFalse(_consume(id, renter, firstSparse), "and neither charges again");
    }

    /// @notice Refs of neighbouring words stay apart: marking 255 does not mark 256 and the reverse.
    function test_consumeQueries_marksOnlyItsOwnBit() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 4);
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](1);
        charges[0] = _one(id, renter, bytes32(uint256(255)), PRICE);
        _batch(charges);
        vm.assertFalse(market.isRunCharged(bytes32(uint256(256))), "256 not marked");
        vm.assertFalse(market.isRunCharged(bytes32(uint256(254))), "254 not marked");
        vm.assertTrue(_consume(id, renter, bytes32(uint256(256))), "256 still chargeable");
        vm.assertTrue(_consume(id, renter, bytes32(uint256(254))), "254 still chargeable");
        vm.assertEq(market.chargedRuns(0), (1 << 255) | (1 << 254), "word 0");
        vm.assertEq(market.chargedRuns(1), 1, "word 1");
    }

    /// @notice The audit's N-6: the public consumedRuns(runRef) read said false for a charged dense
    /// reference while isRunCharged said true. Every public read now agrees, for every kind of reference,
    /// charged by either function.
    function test_consumedRuns_agreesWithIsRunChargedForEveryReference() public {
        bytes32 id = _list(PER_QUERY);
        _buyPerQuery(id, renter, PRICE * 8);
        bytes32[4] memory refs = [bytes32(uint256(7)), bytes32(uint256(300)), keccak256("hashed-1"), keccak256("hashed-2")];
        for (uint256 i = 0; i < refs.length; ++i) {
            vm.assertFalse(market.consumedRuns(refs[i]), "not charged yet");
            vm.assertFalse(market.isRunCharged(refs[i]), "not charged yet (isRunCharged)");
        }
        vm.assertTrue(_consume(id, renter, refs[0]), "dense, by consumeQuery");
        vm.assertTrue(_consume(id, renter, refs[2]), "hashed, by consumeQuery");
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](2);
        charges[0] = _one(id, renter, refs[1], PRICE);
        charges[1] = _one(id, renter, refs[3], PRICE);
        vm.assertEq(_batch(charges), 2, "dense and hashed, by consumeQueries");
        for (uint256 i = 0; i < refs.length; ++i) {
            vm.assertTrue(market.consumedRuns(refs[i]), "consumedRuns says charged");
            vm.assertTrue(market.isRunCharged(refs[i]), "isRunCharged says charged");
        }
        vm.assertFalse(market.consumedRuns(bytes32(uint256(8))), "a neighbour is not");
    }
}

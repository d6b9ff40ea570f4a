// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {MarketplaceTestBase} from "./utils/MarketplaceTestBase.sol";
import {Vm} from "./utils/Vm.sol";

/// @notice Fuzz tests of the batch charge: a batch does exactly what the same charges sent one by one
/// through consumeQuery do, refusals included, and never charges a run twice or above its admitted price.
contract MarketplaceBatchFuzzTest is MarketplaceTestBase {
    bytes32 internal constant QUERY_REFUSED = keccak256("QueryRefused(bytes32,address,bytes32,bytes4)");
    bytes32 internal constant QUERY_CONSUMED =
        keccak256("QueryConsumed(bytes32,address,bytes32,uint256,uint256,uint256)");
    uint256 internal constant REFS = 6;

    Marketplace internal twin;
    address internal renterB = address(uint160(uint256(keccak256("renter b"))));

    function setUp() public override {
        super.setUp();
        twin = new Marketplace(authority, feeRecipient);
        vm.deal(renterB, 100_000_000 ether);
    }

    /// @dev A pool of run references: dense ones on both sides of a word boundary and hashed ones.
    function _ref(uint256 i) internal pure returns (bytes32) {
        uint256 k = i % REFS;
        if (k < 4) return bytes32(uint256(254 + k));
        return keccak256(abi.encode("run", k));
    }

    /// @dev The same listing and rentals on both marketplaces (a listing id depends on creator and seed
    /// only): the renter holds `depositA`, renterB is revoked (CredentialRevoked), stranger has none.
    function _twinSetup(uint96 price, uint256 depositA, uint256 depositB) internal returns (bytes32 id) {
        Marketplace[2] memory markets = [market, twin];
        for (uint256 m = 0; m < 2; ++m) {
            vm.prank(creator);
            id = markets[m].createListing(bytes32(uint256(1)), PER_QUERY, price, URI);
            vm.prank(renter);
            markets[m].purchasePerQuery{value: depositA}(id);
            vm.prank(renterB);
            markets[m].purchasePerQuery{value: depositB}(id);
            vm.prank(creator);
            markets[m].revokePerQueryAccess(id, renterB);
        }
    }

    function testFuzz_consumeQueries_equalsConsumeQueryOneByOne(uint96 price, uint256 deposit, uint256 seed) public {
        price = uint96(_bound(price, 1e12, 1e20));
        deposit = _bound(deposit, price, uint256(price) * 6);
        bytes32 id = _twinSetup(price, deposit, price);
        uint256 n = _bound(seed, 0, 10);
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](n);
        for (uint256 i = 0; i < n; ++i) {
            uint256 r = uint256(keccak256(abi.encode(seed, i)));
            address who = r % 7 == 0 ? renterB : r % 11 == 0 ? stranger : renter;
            bytes32 listingId = r % 13 == 0 ? bytes32(uint256(404)) : id;
            uint256 k = (r >> 8) % 5;
            uint256 maxPrice = k == 0 ? (r >> 16) % 1e12 : k == 1 ? uint256(price) / 2 : k == 2 ? uint256(price) * 2 : price;
            charges[i] = Marketplace.Charge(listingId, who, _ref(r >> 32), maxPrice);
        }

        // One by one through consumeQuery on the twin: what each charge did.
        bytes4[] memory expected = new bytes4[](n);
        uint256 chargedOneByOne = 0;
        for (uint256 i = 0; i < n; ++i) {
            vm.prank(authority);
            try twin.consumeQuery(charges[i].listingId, charges[i].buyer, charges[i].runRef, charges[i].maxPrice) returns (bool wasCharged) {
                if (wasCharged) {
                    ++chargedOneByOne;
                    expected[i] = bytes4(0xffffffff);
                }
            } catch (bytes memory reason) {
                expected[i] = bytes4(reason);
            }
        }

        vm.recordLogs();
        vm.prank(authority);
        uint256 charged = market.consumeQueries(charges);
        vm.assertEq(charged, chargedOneByOne, "the same runs charged");

        // The batch's events, in order: a QueryConsumed for each charge consumeQuery made, a QueryRefused
        // with the selector consumeQuery reverted with for each refusal, nothing for a skip.
        Vm.Log[] memory logs = vm.getRecordedLogs();
        uint256 next = 0;
        for (uint256 i = 0; i < n; ++i) {
            if (expected[i] == bytes4(0)) continue;
            while (logs[next].topics[0] != QUERY_CONSUMED && logs[next].topics[0] != QUERY_REFUSED) ++next;
            vm.assertEq(logs[next].topics[3], charges[i].runRef, "the event of this charge");
            if (expected[i] == bytes4(0xffffffff)) {
                vm.assertEq(logs[next].topics[0], QUERY_CONSUMED, "charged");
                (uint256 paid,,) = abi.decode(logs[next].data, (uint256, uint256, uint256));
                vm.assertLe(paid, charges[i].maxPrice, "never above the admitted price");
                vm.assertLe(paid, price, "never above the listing price");
            } else {
                vm.assertEq(logs[next].topics[0], QUERY_REFUSED, "refused");
                vm.assertEq(abi.decode(logs[next].data, (bytes4)), expected[i], "consumeQuery's custom error");
            }
            ++next;
        }
        for (; next < logs.length; ++next) {
            vm.assertTrue(logs[next].topics[0] != QUERY_CONSUMED && logs[next].topics[0] != QUERY_REFUSED, "no extra event");
        }

        // The same state on both.
        (, uint128 escrowA,,,,,) = market.listings(id);
        (, uint128 escrowB,,,,,) = twin.listings(id);
        vm.assertEq(escrowA, escrowB, "escrow");
        vm.assertEq(market.accruedFees(), twin.accruedFees(), "fees");
        address[3] memory who3 = [renter, renterB, stranger];
        for (uint256 w = 0; w < 3; ++w) {
            (uint96 a,,,,,) = market.perQueryBalances(id, who3[w]);
            (uint96 b,,,,,) = twin.perQueryBalances(id, who3[w]);
            vm.assertEq(a, b, "balance");
        }
        for (uint256 i = 0; i < REFS; ++i) {
            vm.assertEq(market.isRunCharged(_ref(i)), twin.isRunCharged(_ref(i)), "run marks");
        }
        vm.assertEq(address(market).balance, uint256(escrowA) + market.accruedFees() + _balance(id, renter) + _balance(id, renterB), "solvent");
    }

    /// @notice A batch of one renter's runs charges each at most once and the balance never goes below
    /// zero, whatever the duplicates and the batch's length.
    function testFuzz_consumeQueries_chargesEachRunOnceWithinTheBalance(uint256 runs, uint256 deposit, uint256 seed) public {
        bytes32 id = _list(PER_QUERY);
        deposit = _bound(deposit, PRICE, PRICE * 20);
        _buyPerQuery(id, renter, deposit);
        runs = _bound(runs, 1, 40);
        Marketplace.Charge[] memory charges = new Marketplace.Charge[](runs);
        for (uint256 i = 0; i < runs; ++i) {
            charges[i] = Marketplace.Charge(id, renter, bytes32(uint256(keccak256(abi.encode(seed, i))) % 30), PRICE);
        }
        vm.prank(authority);
        uint256 charged = market.consumeQueries(charges);
        uint256 distinct = 0;
        for (uint256 r = 0; r < 30; ++r) {
            for (uint256 i = 0; i < runs; ++i) {
                if (charges[i].runRef == bytes32(r)) {
                    ++distinct;
                    break;
                }
            }
        }
        uint256 affordable = deposit / PRICE;
        vm.assertEq(charged, distinct < affordable ? distinct : affordable, "each distinct run once, while the balance lasts");
        vm.assertEq(_balance(id, renter), deposit - charged * PRICE, "debited once per charged run");
    }
}

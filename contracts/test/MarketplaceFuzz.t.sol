// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {MarketplaceTestBase} from "./utils/MarketplaceTestBase.sol";

/// @notice Fuzz tests over prices, fees, durations, deposits, amounts and URI lengths.
contract MarketplaceFuzzTest is MarketplaceTestBase {
    uint256 internal constant MAX_TEST_PRICE = 1e24; // a million ETH: far above any real price

    function testFuzz_createListing_enforcesMinimumPrice(uint96 price) public {
        if (price < 1e12) {
            vm.expectRevert(abi.encodeWithSelector(Marketplace.PriceTooLow.selector, uint256(price), 1e12));
            _list(ONE_TIME, price);
        } else {
            bytes32 id = _list(ONE_TIME, price);
            (uint96 stored,,,,,,) = market.listings(id);
            vm.assertEq(stored, price, "price stored");
        }
    }

    function testFuzz_createListing_enforcesUriLength(uint16 length) public {
        length = uint16(_bound(length, 0, 400));
        vm.prank(creator);
        if (length == 0) vm.expectRevert(Marketplace.MetadataUriEmpty.selector);
        else if (length > 200) vm.expectRevert(abi.encodeWithSelector(Marketplace.MetadataUriTooLong.selector, length, 200));
        market.createListing(bytes32(0), ONE_TIME, PRICE, string(new bytes(length)));
    }

    function testFuzz_listingIdOf_matchesPackedKeccak(address who, bytes32 seed) public view {
        vm.assertEq(market.listingIdOf(who, seed), keccak256(abi.encodePacked(who, seed)), "derived id");
    }

    function testFuzz_setFeeBasisPoints_enforcesCap(uint256 bps) public {
        vm.prank(authority);
        if (bps > 1000) {
            vm.expectRevert(abi.encodeWithSelector(Marketplace.FeeTooHigh.selector, bps, 1000));
            market.setFeeBasisPoints(bps);
        } else {
            market.setFeeBasisPoints(bps);
            vm.assertEq(market.feeBasisPoints(), bps, "fee set");
        }
    }

    function testFuzz_purchaseOneTime_splitsPaymentExactly(uint96 price, uint256 bps) public {
        price = uint96(_bound(price, 1e12, MAX_TEST_PRICE));
        bps = _bound(bps, 0, 1000);
        vm.prank(authority);
        market.setFeeBasisPoints(bps);
        bytes32 id = _list(ONE_TIME, price);
        vm.prank(renter);
        market.purchaseOneTime{value: price}(id);
        uint256 fee = market.accruedFees();
        vm.assertEq(fee, (uint256(price) * bps) / 10_000, "fee formula");
        vm.assertLe(fee * 10, price, "fee never above 10%");
        vm.assertEq(_escrow(id) + fee, price, "nothing created or lost");
        vm.assertEq(address(market).balance, price, "ETH held");
    }

    function testFuzz_purchaseOneTime_refusesAnyOtherAmount(uint96 price, uint256 sent) public {
        price = uint96(_bound(price, 1e12, MAX_TEST_PRICE));
        sent = _bound(sent, 0, 2 * MAX_TEST_PRICE);
        vm.assume(sent != price);
        bytes32 id = _list(ONE_TIME, price);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.IncorrectPayment.selector, uint256(price), sent));
        vm.prank(renter);
        market.purchaseOneTime{value: sent}(id);
    }

    function testFuzz_purchaseSubscription_acceptsOnlyTheThreeDurations(uint256 duration) public {
        bytes32 id = _list(SUBSCRIPTION);
        bool allowed = duration == DAYS_30 || duration == DAYS_90 || duration == DAYS_365;
        if (!allowed) {
            vm.expectRevert(abi.encodeWithSelector(Marketplace.InvalidDuration.selector, duration));
            vm.prank(renter);
            market.purchaseSubscription{value: PRICE}(id, duration);
        } else {
            _buySubscription(id, renter, duration);
            vm.assertEq(_expiresAt(id, renter), START + duration, "expiry");
        }
    }

    function testFuzz_purchaseSubscription_costScalesWithDuration(uint96 price, uint8 which) public {
        price = uint96(_bound(price, 1e12, MAX_TEST_PRICE));
        uint256 duration = [DAYS_30, DAYS_90, DAYS_365][which % 3];
        bytes32 id = _list(SUBSCRIPTION, price);
        uint256 cost = (uint256(price) * duration) / DAYS_30;
        vm.assertEq(market.subscriptionPrice(id, duration), cost, "price per 30 days, scaled");
        vm.prank(renter);
        market.purchaseSubscription{value: cost}(id, duration);
        vm.assertEq(_escrow(id) + market.accruedFees(), cost, "split");
    }

    function testFuzz_renewSubscription_neverLosesPaidTime(uint256 elapsed, uint8 which) public {
        elapsed = _bound(elapsed, 0, 3 * DAYS_365);
        uint256 duration = [DAYS_30, DAYS_90, DAYS_365][which % 3];
        bytes32 id = _list(SUBSCRIPTION);
        _buySubscription(id, renter, DAYS_30);
        uint256 expiry = _expiresAt(id, renter);
        uint256 now_ = START + elapsed;
        vm.warp(now_);
        uint256 cost = market.subscriptionPrice(id, duration);
        vm.prank(renter);
        market.renewSubscription{value: cost}(id, duration);
        uint256 expected = (expiry > now_ ? expiry : now_) + duration;
        vm.assertEq(_expiresAt(id, renter), expected, "extended from expiry if active, from now if expired");
        vm.assertTrue(market.isCredentialValid(id, renter), "valid after renewal");
    }

    function testFuzz_perQuery_depositsAndRuns(uint96 price, uint256 deposit, uint8 runs) public {
        price = uint96(_bound(price, 1e12, 1e21));
        deposit = _bound(deposit, 0, uint256(price) * 50);
        bytes32 id = _list(PER_QUERY, price);
        if (deposit < price) {
            vm.expectRevert(abi.encodeWithSelector(Marketplace.DepositTooLow.selector, deposit, uint256(price)));
            _buyPerQuery(id, renter, deposit);
            return;
        }
        _buyPerQuery(id, renter, deposit);
        uint256 affordable = deposit / price;
        uint256 attempts = _bound(runs, 0, 60);
        uint256 charged;
        for (uint256 i = 0; i < attempts; ++i) {
            if (charged < affordable) {
                vm.assertTrue(_consume(id, renter, bytes32(i + 1)), "charged");
                ++charged;
            } else {
                vm.expectRevert(
                    abi.encodeWithSelector(Marketplace.InsufficientBalance.selector, deposit - charged * price, price)
                );
                _consume(id, renter, bytes32(i + 1));
            }
        }
        vm.assertEq(_balance(id, renter), deposit - charged * price, "balance = deposit - runs x price");
        vm.assertEq(_escrow(id) + market.accruedFees(), charged * price, "revenue only from runs");
        vm.assertEq(
            address(market).balance, _escrow(id) + market.accruedFees() + _balance(id, renter), "solvent"
        );
        vm.assertEq(market.isCredentialValid(id, renter), deposit - charged * price >= price, "valid iff balance covers a run");
    }

    function testFuzz_topUpBalance_addsDeposit(uint96 price, uint256 amount) public {
        price = uint96(_bound(price, 1e12, 1e21));
        amount = _bound(amount, 0, 1e24);
        bytes32 id = _list(PER_QUERY, price);
        _buyPerQuery(id, renter, price);
        vm.prank(renter);
        if (amount < price) {
            vm.expectRevert(abi.encodeWithSelector(Marketplace.DepositTooLow.selector, amount, uint256(price)));
            market.topUpBalance{value: amount}(id);
        } else {
            market.topUpBalance{value: amount}(id);
            vm.assertEq(_balance(id, renter), uint256(price) + amount, "added");
        }
    }

    function testFuzz_withdrawEarnings_anyAmountUpToEscrow(uint256 amount) public {
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        uint256 escrow = _escrow(id);
        amount = _bound(amount, 0, escrow * 2);
        vm.prank(creator);
        if (amount == 0) {
            vm.expectRevert(Marketplace.NothingToWithdraw.selector);
            market.withdrawEarnings(id, amount);
        } else if (amount > escrow) {
            vm.expectRevert(abi.encodeWithSelector(Marketplace.WithdrawalExceedsBalance.selector, amount, escrow));
            market.withdrawEarnings(id, amount);
        } else {
            market.withdrawEarnings(id, amount);
            vm.assertEq(creator.balance, amount, "paid");
            vm.assertEq(_escrow(id), escrow - amount, "escrow debited");
        }
    }

    function testFuzz_consumeQuery_feeWithinCap(uint96 price, uint256 bps) public {
        price = uint96(_bound(price, 1e12, MAX_TEST_PRICE));
        bps = _bound(bps, 0, 1000);
        vm.prank(authority);
        market.setFeeBasisPoints(bps);
        bytes32 id = _list(PER_QUERY, price);
        _buyPerQuery(id, renter, price);
        _consume(id, renter, "run");
        vm.assertEq(market.accruedFees(), (uint256(price) * bps) / 10_000, "fee formula");
        vm.assertLe(market.accruedFees() * 10, price, "fee never above 10%");
    }

    /// @notice Whatever the price does while a run is in flight, the run is charged at most the price it
    /// was admitted at, and exactly the current price when that is lower.
    function testFuzz_consumeQuery_neverChargesMoreThanTheAdmittedPrice(uint96 admitted, uint96 current, uint256 deposit)
        public
    {
        admitted = uint96(_bound(admitted, 1e12, MAX_TEST_PRICE));
        current = uint96(_bound(current, 1e12, MAX_TEST_PRICE));
        deposit = _bound(deposit, admitted, uint256(admitted) * 10);
        bytes32 id = _list(PER_QUERY, admitted);
        _buyPerQuery(id, renter, deposit);
        _setPrice(id, current);
        uint256 charge = current < admitted ? current : admitted;
        _consume(id, renter, "run", admitted);
        vm.assertEq(_balance(id, renter), deposit - charge, "charged min(current, admitted)");
        vm.assertEq(_escrow(id) + market.accruedFees(), charge, "revenue is the charge");
    }

    /// @notice Each payment vests over its own paid period (a running subscription's renewal over the
    /// period after its expiry), rounded out to whole days, at floor(share / span) a second: the
    /// withdrawable earnings equal the payments computed one by one, exactly, and never run ahead of the
    /// paid time that elapsed.
    function testFuzz_withdrawableEarnings_equalEachPaymentOnItsOwn(uint8 which, uint256 elapsed, uint256 renewAfter, uint8 renewWhich)
        public
    {
        uint256 duration = [DAYS_30, DAYS_90, DAYS_365][which % 3];
        uint256 renewal = [DAYS_30, DAYS_90, DAYS_365][renewWhich % 3];
        bytes32 id = _list(SUBSCRIPTION);
        _buySubscription(id, renter, duration);
        uint256 net = _escrow(id);
        renewAfter = _bound(renewAfter, 0, duration + DAYS_30);
        uint256 renewedAt = START + renewAfter;
        vm.warp(renewedAt);
        uint256 paidFrom = START + duration > renewedAt ? START + duration : renewedAt;
        uint256 cost = market.subscriptionPrice(id, renewal);
        if (paidFrom + renewal > renewedAt + 395 days) {
            vm.expectRevert(abi.encodeWithSelector(Marketplace.ExpiryTooLate.selector, paidFrom + renewal, renewedAt + 395 days));
            vm.prank(renter);
            market.renewSubscription{value: cost}(id, renewal);
            return;
        }
        vm.prank(renter);
        market.renewSubscription{value: cost}(id, renewal);
        uint256 renewalNet = _escrow(id) - net;
        elapsed = _bound(elapsed, renewAfter, duration + DAYS_30 + renewal + 2 days);
        uint256 t = START + elapsed;
        vm.warp(t);
        // The first payment from the purchase; the renewal from the first day boundary at or after the
        // expiry it extends (from the renewal itself when the subscription had expired).
        uint256 first = _unvestedOf(net, START, _dayEnd(START + duration), t);
        uint256 secondStart = paidFrom > renewedAt ? _dayEnd(paidFrom) : renewedAt;
        uint256 second = _unvestedOf(renewalNet, secondStart, _dayEnd(paidFrom + renewal), t);
        vm.assertEq(market.withdrawableEarnings(id), net + renewalNet - first - second, "the payments one by one");
        vm.assertEq(market.unvestedEarnings(id), first + second, "unvested");
        // Never ahead of the paid time: unvested >= share x (paid time left) / (paid period), per payment.
        if (t < START + duration) vm.assertTrue(first * duration >= net * (START + duration - t), "first: never early");
        if (t < paidFrom + renewal) {
            uint256 left = paidFrom > t ? renewal : paidFrom + renewal - t;
            vm.assertTrue(second * renewal >= renewalNet * left, "renewal: never early");
        }
        if (t >= _dayEnd(paidFrom + renewal)) vm.assertEq(market.withdrawableEarnings(id), net + renewalNet, "all vested at the end");
    }

    function _unvestedOf(uint256 share, uint256 start, uint256 end, uint256 t) internal pure returns (uint256) {
        if (t < start) return share;
        if (t >= end) return 0;
        return share - (share / (end - start)) * (t - start);
    }

    /// @notice No charge takes more than the price the renter deposited at, whatever it was admitted at
    /// and whatever the listing's price is now.
    function testFuzz_consumeQuery_neverChargesMoreThanTheDepositPrice(uint96 deposited, uint96 current, uint256 admitted) public {
        deposited = uint96(_bound(deposited, 1e12, MAX_TEST_PRICE));
        current = uint96(_bound(current, 1e12, MAX_TEST_PRICE));
        admitted = _bound(admitted, 1e12, MAX_TEST_PRICE * 2);
        bytes32 id = _list(PER_QUERY, deposited);
        _buyPerQuery(id, renter, uint256(deposited) * 2);
        _setPrice(id, current);
        uint256 charge = current;
        if (admitted < charge) charge = admitted;
        if (deposited < charge) charge = deposited;
        _consume(id, renter, "run", admitted);
        vm.assertEq(_balance(id, renter), uint256(deposited) * 2 - charge, "min(current, admitted, deposit price)");
        vm.assertLe(charge, deposited, "never above the deposit price");
    }

    /// @notice Deposits and top-ups never take a balance past 2^96 - 1 wei (BalanceTooLarge), so the
    /// record always holds the ETH the contract holds for it.
    function testFuzz_topUpBalance_neverWrapsTheBalance(uint256 first, uint256 second) public {
        uint256 max = type(uint96).max;
        first = _bound(first, PRICE, max);
        second = _bound(second, PRICE, max);
        bytes32 id = _list(PER_QUERY);
        vm.deal(renter, first + second);
        _buyPerQuery(id, renter, first);
        vm.prank(renter);
        if (first + second > max) {
            vm.expectRevert(abi.encodeWithSelector(Marketplace.BalanceTooLarge.selector, first + second, max));
            market.topUpBalance{value: second}(id);
            vm.assertEq(_balance(id, renter), first, "unchanged");
        } else {
            market.topUpBalance{value: second}(id);
            vm.assertEq(_balance(id, renter), first + second, "added");
        }
        vm.assertEq(address(market).balance, _balance(id, renter), "the record holds exactly the ETH");
    }
}

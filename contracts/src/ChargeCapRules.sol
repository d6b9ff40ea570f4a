// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "./Marketplace.sol";

/// @title ChargeCapRules
/// @author Agent rental service
/// @notice The rules of a renter's charge cap (Marketplace.ChargeCap), one copy for both marketplaces:
/// at most `amount` charged from a per-task balance in each period of `period` seconds, the periods
/// following one another from when the cap was set.
/// @dev Layout. A capped renter's record (Marketplace.PerQueryBalance, the slot every charge writes
/// anyway) holds what a charge changes: in its `depositPrice` field, what the current period has charged
/// (the low 88 bits) and that period's number counted from the cap's `periodStart` (the high 8 bits);
/// the cap's slot holds what a charge only reads: the amount, the period, the start the periods are
/// counted from, and the renter's deposit price. So no charge writes the cap's slot, the first charge of
/// a period included, except once every 256 periods, when the start the periods are counted from moves
/// on to the current period (rebase). Deposits and withdrawals leave the period's charges as they are.
library ChargeCapRules {
    /// @dev The shortest period: one hour.
    uint256 internal constant MIN_PERIOD = 1 hours;
    /// @dev The longest period: 180 days (the cap's uint24 holds up to 194).
    uint256 internal constant MAX_PERIOD = 180 days;
    /// @dev The bits of a capped record's word that hold the current period's charges.
    uint256 internal constant SPENT_BITS = 88;
    /// @dev The highest period number the record's word holds: 8 bits.
    uint256 internal constant MAX_PERIOD_NUMBER = 255;

    /// @dev Sets the renter's cap (a new period begins now, with nothing charged in it), or removes it
    /// when `amount` and `period` are both 0. The renter's deposit price moves to the cap's slot while a
    /// cap is set, and back to the record when it is removed.
    function set(Marketplace.PerQueryBalance storage record, Marketplace.ChargeCap storage cap, uint256 amount, uint256 period)
        internal
    {
        if (amount == 0 && period == 0) {
            if (record.chargeCapped) {
                record.depositPrice = cap.depositPrice;
                record.chargeCapped = false;
            }
            delete cap.amount;
            delete cap.period;
            delete cap.periodStart;
            delete cap.depositPrice;
            return;
        }
        if (period < MIN_PERIOD || period > MAX_PERIOD || amount > type(uint88).max) {
            revert Marketplace.InvalidChargeCap(amount, period);
        }
        if (!record.chargeCapped) {
            cap.depositPrice = record.depositPrice;
            record.chargeCapped = true;
        }
        // Period 0 of the new cap, nothing charged in it.
        record.depositPrice = 0;
        cap.amount = uint88(amount);
        cap.period = uint24(period);
        cap.periodStart = uint40(block.timestamp);
    }

    /// @dev The renter's deposit price: in the cap's slot while a cap is set, in the record otherwise.
    function depositPrice(Marketplace.PerQueryBalance storage record, Marketplace.ChargeCap storage cap)
        internal
        view
        returns (uint256)
    {
        return record.chargeCapped ? cap.depositPrice : record.depositPrice;
    }

    /// @dev The cap as a charge sees it: its amount, the renter's deposit price, what the current period
    /// has charged, and the current period's number. `word` is the capped record's `depositPrice` field.
    /// When the stored period is over, the period that holds now has charged nothing and `changed` says
    /// the record's word must be written (pack); from the 256th period on, the cap's start moves on to
    /// the current period (written here: the one write to the cap's slot a charge makes).
    function load(Marketplace.ChargeCap storage cap, uint256 word)
        internal
        returns (uint256 amount, uint256 capDepositPrice, uint256 spent, uint256 number, bool changed)
    {
        amount = cap.amount;
        capDepositPrice = cap.depositPrice;
        uint256 periodStart = cap.periodStart;
        uint256 period = cap.period;
        number = (block.timestamp - periodStart) / period;
        if (number == word >> SPENT_BITS) return (amount, capDepositPrice, word & type(uint88).max, number, false);
        changed = true;
        if (number > MAX_PERIOD_NUMBER) {
            // Cannot truncate: the start of the period that holds now is at most now.
            cap.periodStart = uint40(periodStart + number * period);
            number = 0;
        }
    }

    /// @dev A capped record's word: `spent` in the period numbered `number`.
    function pack(uint256 spent, uint256 number) internal pure returns (uint96) {
        // Cannot truncate: spent is at most the cap's amount (below 2^88), number at most 255.
        return uint96(spent | (number << SPENT_BITS));
    }

    /// @dev Whether `price` more would take the period's charges past `amount`.
    function refuses(uint256 amount, uint256 spent, uint256 price) internal pure returns (bool) {
        return spent + price > amount;
    }

    /// @dev The cap as `chargeCaps` reports it (the layout before the deposit price moved into the cap):
    /// the current stored period's start and its baseline, `balance` plus what that period has charged,
    /// so that `baseline - balance` is the period's charges until it ends. All zero without a cap.
    function report(Marketplace.PerQueryBalance storage record, Marketplace.ChargeCap storage cap)
        internal
        view
        returns (uint88 amount, uint24 period, uint40 periodStart, uint104 baseline)
    {
        if (!record.chargeCapped) return (0, 0, 0, 0);
        uint256 word = record.depositPrice;
        amount = cap.amount;
        period = cap.period;
        // Cannot truncate: a stored period's start is at most the last charge's time; a baseline is a
        // balance (below 2^96) plus less than 2^88.
        periodStart = uint40(cap.periodStart + (word >> SPENT_BITS) * period);
        baseline = uint104(record.balance + (word & type(uint88).max));
    }
}

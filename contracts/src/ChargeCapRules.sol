// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "./Marketplace.sol";

/// @title ChargeCapRules
/// @author Agent rental service
/// @notice The rules of a renter's charge cap (Marketplace.ChargeCap), one copy for both marketplaces:
/// at most `amount` charged from a per-task balance in each period of `period` seconds, the periods
/// following one another from when the cap was set. What the current period has charged is
/// `baseline - balance`, so a charge under the cap writes nothing to the cap; the first charge of a new
/// period moves the period on and takes the balance as the new baseline, and deposits and withdrawals
/// move the baseline with the balance.
library ChargeCapRules {
    /// @dev The shortest period: one hour.
    uint256 internal constant MIN_PERIOD = 1 hours;
    /// @dev The longest period: 180 days (the cap's uint24 holds up to 194).
    uint256 internal constant MAX_PERIOD = 180 days;

    /// @dev Sets the renter's cap (a new period begins now, at the current balance), or removes it when
    /// `amount` and `period` are both 0.
    function set(Marketplace.PerQueryBalance storage record, Marketplace.ChargeCap storage cap, uint256 amount, uint256 period)
        internal
    {
        if (amount == 0 && period == 0) {
            record.chargeCapped = false;
            delete cap.amount;
            delete cap.period;
            delete cap.periodStart;
            delete cap.baseline;
            return;
        }
        if (period < MIN_PERIOD || period > MAX_PERIOD || amount > type(uint88).max) {
            revert Marketplace.InvalidChargeCap(amount, period);
        }
        record.chargeCapped = true;
        cap.amount = uint88(amount);
        cap.period = uint24(period);
        cap.periodStart = uint40(block.timestamp);
        cap.baseline = record.balance;
    }

    /// @dev A deposit raises a capped renter's baseline with its balance (the period's charges unchanged).
    function deposited(Marketplace.PerQueryBalance storage record, Marketplace.ChargeCap storage cap, uint256 amount)
        internal
    {
        // Cannot overflow: baseline - balance stays at most the cap's amount (below 2^88), the balance
        // below 2^96.
        if (record.chargeCapped) cap.baseline += uint104(amount);
    }

    /// @dev A withdrawal lowers a capped renter's baseline with its balance.
    function withdrawn(Marketplace.PerQueryBalance storage record, Marketplace.ChargeCap storage cap, uint256 amount)
        internal
    {
        // Cannot underflow: baseline is at least the balance withdrawn.
        if (record.chargeCapped) cap.baseline -= uint104(amount);
    }

    /// @dev The cap as a charge sees it: its amount, and the current period's start and baseline. Once the
    /// stored period is over, the period that holds now begins at `balance` (the balance before this
    /// call's charges), and `rolled` says it must be written (roll).
    function load(Marketplace.ChargeCap storage cap, uint256 balance)
        internal
        view
        returns (uint256 amount, uint256 periodStart, uint256 baseline, bool rolled)
    {
        amount = cap.amount;
        periodStart = cap.periodStart;
        baseline = cap.baseline;
        uint256 period = cap.period;
        if (block.timestamp >= periodStart + period) {
            periodStart += ((block.timestamp - periodStart) / period) * period;
            baseline = balance;
            rolled = true;
        }
    }

    /// @dev Writes a new period's start and baseline.
    function roll(Marketplace.ChargeCap storage cap, uint256 periodStart, uint256 baseline) internal {
        // Cannot truncate: a period start is at most now, a baseline a balance.
        cap.periodStart = uint40(periodStart);
        cap.baseline = uint104(baseline);
    }

    /// @dev What the current period has charged at `balance`, and whether `price` more would pass `amount`.
    function refuses(uint256 amount, uint256 baseline, uint256 balance, uint256 price)
        internal
        pure
        returns (bool refused, uint256 charged)
    {
        charged = baseline - balance;
        refused = charged + price > amount;
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title Marketplace
/// @notice Listings, rentals, escrow, fees, credentials and the run log of the agent marketplace.
contract Marketplace {
    /// @notice The protocol authority: settles per-query runs and logs run receipts.
    address public authority;
    /// @notice Where protocol fees are paid.
    address public feeRecipient;

    /// @param authority_ The protocol authority.
    /// @param feeRecipient_ The receiver of protocol fees.
    constructor(address authority_, address feeRecipient_) {
        authority = authority_;
        feeRecipient = feeRecipient_;
    }
}

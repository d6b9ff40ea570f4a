// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";

/// @title UtilityToken
/// @author Agent rental service
/// @notice The marketplace's utility token, "Rental Credit" (RENT): 18 decimals, EIP-2612 permit
/// (EIP-712 name "Rental Credit", version "1"). On the local chain the deployer mints it; how it is
/// issued on a public network is outside this contract.
contract UtilityToken is ERC20, ERC20Permit {
    /// @notice Only the deployer mints.
    error NotMinter();

    /// @notice Who may mint: the deployer.
    address public immutable minter;

    constructor() ERC20("Rental Credit", "RENT") ERC20Permit("Rental Credit") {
        minter = msg.sender;
    }

    /// @notice Mints `amount` to `to`. Deployer only.
    /// @param to The receiver.
    /// @param amount The amount, in units of 10^-18.
    function mint(address to, uint256 amount) external {
        if (msg.sender != minter) revert NotMinter();
        _mint(to, amount);
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {ERC3009} from "@openzeppelin/contracts/token/ERC20/extensions/draft-ERC3009.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";

/// @title LocalUSDC
/// @author Agent rental service
/// @notice A stand-in for Circle's USDC on the local chain: 6 decimals, EIP-3009
/// (transferWithAuthorization, receiveWithAuthorization, cancelAuthorization, authorizationState) and
/// EIP-2612 permit, under the EIP-712 domain USDC uses (name "USD Coin", version "2"), which is what
/// x402 clients read. The deployer mints; nothing else differs from a plain ERC-20.
/// @dev OpenZeppelin's ERC20, ERC3009 and EIP712; the permit is OpenZeppelin's ERC20Permit written out
/// here because that contract fixes the EIP-712 version at "1" and USDC's is "2".
contract LocalUSDC is ERC20, EIP712, ERC3009, IERC20Permit, Nonces {
    bytes32 private constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    /// @notice The permit's deadline has passed.
    /// @param deadline The deadline signed.
    error ERC2612ExpiredSignature(uint256 deadline);
    /// @notice The permit was signed by another wallet than `owner`.
    /// @param signer The wallet that signed.
    /// @param owner The owner named.
    error ERC2612InvalidSigner(address signer, address owner);
    /// @notice Only the deployer mints.
    error NotMinter();

    /// @notice Who may mint: the deployer.
    address public immutable minter;

    constructor() ERC20("USD Coin", "USDC") EIP712("USD Coin", "2") {
        minter = msg.sender;
    }

    /// @notice 6, as USDC.
    /// @return The decimals.
    function decimals() public pure override returns (uint8) {
        return 6;
    }

    /// @notice Mints `amount` to `to`. Deployer only.
    /// @param to The receiver.
    /// @param amount The amount, in units of 10^-6.
    function mint(address to, uint256 amount) external {
        if (msg.sender != minter) revert NotMinter();
        _mint(to, amount);
    }

    /// @inheritdoc IERC20Permit
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        if (block.timestamp > deadline) revert ERC2612ExpiredSignature(deadline);
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _useNonce(owner), deadline));
        address signer = ECDSA.recover(_hashTypedDataV4(structHash), v, r, s);
        if (signer != owner) revert ERC2612InvalidSigner(signer, owner);
        _approve(owner, spender, value);
    }

    /// @inheritdoc IERC20Permit
    function nonces(address owner) public view override(IERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }

    /// @inheritdoc IERC20Permit
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @dev USDC's time window, in seconds only: valid strictly after `validAfter` and strictly before
    /// `validBefore` (OpenZeppelin's version also reads a block-number flag USDC does not have).
    function _checkValidity(uint256 validAfter, uint256 validBefore) internal view override {
        if (block.timestamp <= validAfter || block.timestamp >= validBefore) {
            revert ERC3009InvalidAuthorizationTime(validAfter, validBefore);
        }
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @notice The signing cheatcodes the ERC-8004 registry tests use, at the runner's cheatcode address
/// (declared apart from Vm.sol's, which the marketplace's tests share).
interface SigningVm {
    function addr(uint256 privateKey) external pure returns (address keyAddr);
    function sign(uint256 privateKey, bytes32 digest) external pure returns (uint8 v, bytes32 r, bytes32 s);
    function expectEmit(address emitter) external;
}

/// @notice A contract wallet (ERC-1271) that accepts exactly one digest and signature.
contract ContractWallet {
    bytes32 private immutable _DIGEST;
    bytes32 private immutable _SIGNATURE_HASH;

    constructor(bytes32 digest, bytes memory signature) {
        _DIGEST = digest;
        _SIGNATURE_HASH = keccak256(signature);
    }

    function isValidSignature(bytes32 digest, bytes calldata signature) external view returns (bytes4) {
        return digest == _DIGEST && keccak256(signature) == _SIGNATURE_HASH ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}

/// @notice A contract that takes ERC-721 tokens (an agent owned by a contract).
contract TokenReceiver {
    function onERC721Received(address, address, uint256, bytes calldata) external pure returns (bytes4) {
        return 0x150b7a02;
    }
}

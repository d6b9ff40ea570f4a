// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Marketplace} from "../../src/Marketplace.sol";
import {TokenMarketplace} from "../../src/TokenMarketplace.sol";
import {LocalUSDC} from "../../src/tokens/LocalUSDC.sol";
import {UtilityToken} from "../../src/tokens/UtilityToken.sol";
import {TestHelpers} from "./Vm.sol";
import {SigningVm} from "./SigningVm.sol";
import {PaymentBatch} from "./PaymentBatch.sol";

/// @notice A token that keeps 1% of every transfer (a fee-on-transfer token), to show it is refused.
contract FeeOnTransferToken is ERC20 {
    constructor() ERC20("Taxed", "TAX") {}

    function mint(address to, uint256 amount) external {
        _mint(to, amount);
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from == address(0) || to == address(0)) return super._update(from, to, value);
        uint256 fee = value / 100;
        super._update(from, address(0xdead), fee);
        super._update(from, to, value - fee);
    }
}

/// @notice A fresh token marketplace per test, both tokens allowed, a renter whose key signs permits and
/// EIP-3009 authorizations, and helpers to list and buy.
abstract contract TokenTestBase is TestHelpers {
    SigningVm internal constant svm = SigningVm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);

    TokenMarketplace internal tm;
    LocalUSDC internal usdc;
    UtilityToken internal rent;

    address internal authority = address(uint160(uint256(keccak256("authority"))));
    address internal feeRecipient = address(uint160(uint256(keccak256("fee recipient"))));
    address internal creator = address(uint160(uint256(keccak256("creator"))));
    uint256 internal constant RENTER_KEY = 0xA11CE;
    address internal renter;
    address internal stranger = address(uint160(uint256(keccak256("stranger"))));

    uint96 internal constant PRICE = 1_000_000; // 1 USDC
    string internal constant URI = "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi";
    uint256 internal constant START = 1_700_000_000;
    uint256 internal constant DAYS_30 = 2_592_000;

    Marketplace.AccessType internal constant ONE_TIME = Marketplace.AccessType.OneTime;
    Marketplace.AccessType internal constant SUBSCRIPTION = Marketplace.AccessType.Subscription;
    Marketplace.AccessType internal constant PER_QUERY = Marketplace.AccessType.PerQuery;

    bytes32 internal constant TRANSFER_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 internal constant RECEIVE_TYPEHASH = keccak256(
        "ReceiveWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );
    bytes32 internal constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    function setUp() public virtual {
        vm.warp(START);
        renter = svm.addr(RENTER_KEY);
        tm = new TokenMarketplace(authority, feeRecipient);
        usdc = new LocalUSDC();
        rent = new UtilityToken();
        vm.prank(authority);
        tm.setTokenAllowed(address(usdc), true);
        vm.prank(authority);
        tm.setTokenAllowed(address(rent), true);
        usdc.mint(renter, 1e15);
        usdc.mint(stranger, 1e15);
        rent.mint(renter, 1e30);
    }

    function _list(address token, Marketplace.AccessType accessType, uint96 price) internal returns (bytes32) {
        vm.prank(creator);
        return tm.createListing(bytes32(uint256(accessType) + 1), token, accessType, price, URI);
    }

    function _approve(ERC20 token, address who, uint256 amount) internal {
        vm.prank(who);
        token.approve(address(tm), amount);
    }

    function _buyPerQuery(bytes32 id, address who, uint256 deposit) internal {
        _approve(usdc, who, deposit);
        vm.prank(who);
        tm.purchasePerQuery(id, deposit);
    }

    /// @dev A TransferWithAuthorization `key` signs to the marketplace, as an x402 client does.
    function _payment(uint256 key, bytes32 id, uint256 value, bytes32 nonce, bytes32 runRef)
        internal
        view
        returns (PaymentBatch.Payment memory p)
    {
        p.listingId = id;
        p.from = svm.addr(key);
        p.value = value;
        p.validAfter = block.timestamp - 1;
        p.validBefore = block.timestamp + 300;
        p.nonce = nonce;
        p.runRef = runRef;
        bytes32 digest = _digest(
            usdc.DOMAIN_SEPARATOR(),
            keccak256(abi.encode(TRANSFER_TYPEHASH, p.from, address(tm), value, p.validAfter, p.validBefore, nonce))
        );
        (uint8 v, bytes32 r, bytes32 s) = svm.sign(key, digest);
        p.signature = abi.encodePacked(r, s, v);
    }

    /// @dev A ReceiveWithAuthorization the renter signs to the marketplace, for a one-transaction purchase.
    function _authorization(uint256 value, bytes32 nonce) internal view returns (TokenMarketplace.Authorization memory a) {
        a.value = value;
        a.validAfter = block.timestamp - 1;
        a.validBefore = block.timestamp + 300;
        a.nonce = nonce;
        bytes32 digest = _digest(
            usdc.DOMAIN_SEPARATOR(),
            keccak256(abi.encode(RECEIVE_TYPEHASH, renter, address(tm), value, a.validAfter, a.validBefore, nonce))
        );
        (a.v, a.r, a.s) = svm.sign(RENTER_KEY, digest);
    }

    /// @dev An EIP-2612 permit the renter signs for the marketplace.
    function _permit(ERC20 token, bytes32 domainSeparator, uint256 value) internal view returns (TokenMarketplace.Permit memory p) {
        p.value = value;
        p.deadline = block.timestamp + 300;
        uint256 nonce = address(token) == address(usdc) ? usdc.nonces(renter) : rent.nonces(renter);
        bytes32 digest = _digest(
            domainSeparator, keccak256(abi.encode(PERMIT_TYPEHASH, renter, address(tm), value, nonce, p.deadline))
        );
        (p.v, p.r, p.s) = svm.sign(RENTER_KEY, digest);
    }

    function _digest(bytes32 domainSeparator, bytes32 structHash) internal pure returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator, structHash));
    }

    function _escrow(bytes32 id) internal view returns (uint256 escrow) {
        (, escrow,,,,,,) = tm.listings(id);
    }

    function _balance(bytes32 id, address who) internal view returns (uint256 balance) {
        (balance,,,,,) = tm.perQueryBalances(id, who);
    }
}

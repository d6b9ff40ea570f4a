// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {Marketplace} from "../src/Marketplace.sol";
import {TokenMarketplace} from "../src/TokenMarketplace.sol";
import {LocalUSDC} from "../src/tokens/LocalUSDC.sol";
import {UtilityToken} from "../src/tokens/UtilityToken.sol";
import {TestHelpers} from "./utils/Vm.sol";
import {SigningVm} from "./utils/SigningVm.sol";
import {PaymentBatch} from "./utils/PaymentBatch.sol";

/// @notice Drives the token marketplace with listings in two tokens, renters paying three ways, charges,
/// x402 payments, exits, withdrawals and fee changes. Every call is made through try/catch: a refusal is
/// an outcome, not a failure; the invariants judge the money.
contract TokenHandler is TestHelpers {
    SigningVm internal constant svm = SigningVm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);
    bytes32 internal constant TRANSFER_TYPEHASH = keccak256(
        "TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)"
    );

    TokenMarketplace public immutable tm;
    LocalUSDC public immutable usdc;
    UtilityToken public immutable rent;
    address public immutable authority;
    address public immutable creator = address(0xC0);
    uint256[3] internal keys = [uint256(0xA1), 0xA2, 0xA3];
    bytes32[] public ids;
    uint256 internal nonceCounter;
    uint256 internal runCounter;
    uint256 public settled;
    uint256 public charged;

    constructor(TokenMarketplace tm_, LocalUSDC usdc_, UtilityToken rent_, address authority_) {
        tm = tm_;
        usdc = usdc_;
        rent = rent_;
        authority = authority_;
        for (uint256 i = 0; i < 3; ++i) {
            address who = svm.addr(keys[i]);
            vm.prank(who);
            usdc.approve(address(tm), type(uint256).max);
            vm.prank(who);
            rent.approve(address(tm), type(uint256).max);
        }
    }

    function idCount() external view returns (uint256) {
        return ids.length;
    }

    function renterAt(uint256 i) external view returns (address) {
        return svm.addr(keys[i]);
    }

    function createListing(uint256 tokenSeed, uint8 model, uint96 price) external {
        address token = tokenSeed % 2 == 0 ? address(usdc) : address(rent);
        uint256 unit = token == address(usdc) ? 1 : 1e12;
        price = uint96(_bound(price, unit, unit * 1e7));
        vm.prank(creator);
        try tm.createListing(bytes32(ids.length), token, Marketplace.AccessType(model % 3), price, "ipfs://x") returns (
            bytes32 id
        ) {
            ids.push(id);
        } catch {}
    }

    function buy(uint256 idSeed, uint256 renterSeed, uint8 kind, uint256 arg) external {
        if (ids.length == 0) return;
        bytes32 id = ids[idSeed % ids.length];
        address who = svm.addr(keys[renterSeed % 3]);
        kind = kind % 5;
        if (kind == 1 || kind == 2) arg = [uint256(30 days), 90 days, 365 days][arg % 3];
        else if (kind >= 3) arg = _bound(arg, 1, 1e24);
        vm.prank(who);
        try tm.purchaseWithPermit(
            TokenMarketplace.Purchase(kind), id, arg, TokenMarketplace.Permit(type(uint256).max, 0, 0, 0, 0)
        ) {} catch {}
    }

    function consume(uint256 idSeed, uint256 renterSeed, uint256 runs) external {
        if (ids.length == 0) return;
        runs = _bound(runs, 1, 5);
        TokenMarketplace.Charge[] memory cs = new TokenMarketplace.Charge[](runs);
        for (uint256 i = 0; i < runs; ++i) {
            cs[i] = TokenMarketplace.Charge(
                ids[(idSeed % ids.length + i) % ids.length], svm.addr(keys[(renterSeed % 3 + i) % 3]), bytes32(++runCounter), type(uint256).max
            );
        }
        vm.prank(authority);
        charged += tm.consumeQueries(cs);
    }

    function pay(uint256 idSeed, uint256 renterSeed, bool wrongAmount, bool replayNonce) external {
        if (ids.length == 0) return;
        bytes32 id = ids[idSeed % ids.length];
        (uint96 price,,,,,, address token,) = tm.listings(id);
        if (token != address(usdc)) return;
        uint256 key = keys[renterSeed % 3];
        uint256 value = wrongAmount ? uint256(price) + 1 : price;
        // A replay signs the last nonce again: the token refuses it, so it moves nothing.
        bytes32 nonce = replayNonce && nonceCounter > 0 ? bytes32(nonceCounter) : bytes32(++nonceCounter);
        bytes32 runRef = bytes32(++runCounter);
        PaymentBatch.Payment memory p = PaymentBatch.Payment(
            id, svm.addr(key), value, block.timestamp - 1, block.timestamp + 60, nonce, runRef, ""
        );
        bytes32 digest = keccak256(
            abi.encodePacked(
                "\x19\x01",
                usdc.DOMAIN_SEPARATOR(),
                keccak256(abi.encode(TRANSFER_TYPEHASH, p.from, address(tm), value, p.validAfter, p.validBefore, nonce))
            )
        );
        (uint8 v, bytes32 r, bytes32 s) = svm.sign(key, digest);
        p.signature = abi.encodePacked(r, s, v);
        vm.prank(authority);
        settled += tm.settlePayments(PaymentBatch.one(p));
    }

    function exitBalance(uint256 idSeed, uint256 renterSeed) external {
        if (ids.length == 0) return;
        bytes32 id = ids[idSeed % ids.length];
        address who = svm.addr(keys[renterSeed % 3]);
        vm.prank(who);
        try tm.requestBalanceWithdrawal(id) {} catch {}
        vm.prank(who);
        try tm.withdrawUnspentBalance(id) {} catch {}
    }

    function creatorActs(uint256 idSeed, uint8 act, uint256 amount) external {
        if (ids.length == 0) return;
        bytes32 id = ids[idSeed % ids.length];
        vm.startPrank(creator);
        act = act % 4;
        if (act == 0) try tm.withdrawEarnings(id, _bound(amount, 1, tm.withdrawableEarnings(id) + 1)) {} catch {}
        else if (act == 1) try tm.setListingActive(id, amount % 2 == 0) {} catch {}
        else if (act == 2) try tm.closeListingAndWithdraw(id) {} catch {}
        else try tm.revokePerQueryAccess(id, svm.addr(keys[amount % 3])) {} catch {}
        vm.stopPrank();
    }

    function protocolActs(uint8 act, uint256 arg) external {
        vm.startPrank(authority);
        act = act % 3;
        if (act == 0) try tm.withdrawFees(arg % 2 == 0 ? address(usdc) : address(rent)) {} catch {}
        else if (act == 1) tm.setFeeBasisPoints(_bound(arg, 0, 1000));
        else tm.setTokenAllowed(arg % 2 == 0 ? address(usdc) : address(rent), arg % 3 != 0);
        vm.stopPrank();
    }

    function warp(uint256 seconds_) external {
        vm.warp(block.timestamp + _bound(seconds_, 1, 40 days));
    }
}

/// @notice The invariant per currency: for each token, what the contract holds of it equals its
/// listings' escrows, its renters' balances and its fees (the campaign sends no token to the contract
/// outside a purchase; a direct transfer would make the holding exceed the accounts by the gift).
contract TokenMarketplaceInvariantTest is TestHelpers {
    struct FuzzSelector {
        address addr;
        bytes4[] selectors;
    }

    TokenMarketplace internal tm;
    TokenHandler internal handler;
    LocalUSDC internal usdc;
    UtilityToken internal rent;
    address internal constant AUTHORITY = address(0xA0A0);

    function setUp() public {
        vm.warp(1_700_000_000);
        tm = new TokenMarketplace(AUTHORITY, address(0xFEE5));
        usdc = new LocalUSDC();
        rent = new UtilityToken();
        vm.prank(AUTHORITY);
        tm.setTokenAllowed(address(usdc), true);
        vm.prank(AUTHORITY);
        tm.setTokenAllowed(address(rent), true);
        handler = new TokenHandler(tm, usdc, rent, AUTHORITY);
        for (uint256 i = 0; i < 3; ++i) {
            usdc.mint(handler.renterAt(i), 1e18);
            rent.mint(handler.renterAt(i), 1e30);
        }
    }

    function targetContracts() public view returns (address[] memory targets) {
        targets = new address[](1);
        targets[0] = address(handler);
    }

    function targetSelectors() public view returns (FuzzSelector[] memory targets) {
        bytes4[] memory s = new bytes4[](10);
        s[0] = TokenHandler.createListing.selector;
        s[1] = TokenHandler.buy.selector;
        s[2] = TokenHandler.buy.selector;
        s[3] = TokenHandler.consume.selector;
        s[4] = TokenHandler.pay.selector;
        s[5] = TokenHandler.exitBalance.selector;
        s[6] = TokenHandler.creatorActs.selector;
        s[7] = TokenHandler.protocolActs.selector;
        s[8] = TokenHandler.warp.selector;
        s[9] = TokenHandler.pay.selector;
        targets = new FuzzSelector[](1);
        targets[0] = FuzzSelector(address(handler), s);
    }

    function invariant_eachTokenHeldEqualsItsEscrowsBalancesAndFees() public view {
        _check(address(usdc));
        _check(address(rent));
    }

    function _check(address token) internal view {
        uint256 accounted = tm.accruedFees(token);
        uint256 n = handler.idCount();
        for (uint256 i = 0; i < n; ++i) {
            bytes32 id = handler.ids(i);
            (, uint128 escrow,,,,, address listingToken,) = tm.listings(id);
            if (listingToken != token) continue;
            accounted += escrow;
            for (uint256 j = 0; j < 3; ++j) {
                (uint96 balance,,,,,) = tm.perQueryBalances(id, handler.renterAt(j));
                accounted += balance;
            }
        }
        vm.assertEq(ERC20(token).balanceOf(address(tm)), accounted, "held = escrows + balances + fees");
    }
}

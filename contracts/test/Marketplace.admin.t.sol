// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {MarketplaceTestBase} from "./utils/MarketplaceTestBase.sol";

/// @notice The constructor and the authority's protocol settings: fee, fee recipient, pause and the two-step authority transfer. Every function on its happy path, and every custom error triggered with its selector
/// (and arguments where it has them) checked.
contract MarketplaceAdminTest is MarketplaceTestBase {
    /*//////////////////////////////////////////////////////////////
                              DEPLOYMENT
    //////////////////////////////////////////////////////////////*/

    function test_constructor_setsRolesAndDefaultFee() public view {
        vm.assertEq(market.authority(), authority, "authority");
        vm.assertEq(market.feeRecipient(), feeRecipient, "fee recipient");
        vm.assertEq(market.feeBasisPoints(), 250, "default fee 2.5%");
        vm.assertFalse(market.paused(), "not paused");
    }

    function test_RevertWhen_constructorGetsZeroAuthority() public {
        vm.expectRevert(Marketplace.ZeroAddress.selector);
        new Marketplace(address(0), feeRecipient);
    }

    function test_RevertWhen_constructorGetsZeroFeeRecipient() public {
        vm.expectRevert(Marketplace.ZeroAddress.selector);
        new Marketplace(authority, address(0));
    }

    /*//////////////////////////////////////////////////////////////
                                PROTOCOL
    //////////////////////////////////////////////////////////////*/

    function test_setFeeBasisPoints_appliesToLaterPurchases() public {
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.FeeBasisPointsSet(250, 1000);
        vm.prank(authority);
        market.setFeeBasisPoints(1000);
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        vm.assertEq(market.accruedFees(), PRICE / 10, "10% fee");
    }

    function test_RevertWhen_setFeeBasisPointsAboveCap() public {
        vm.expectRevert(abi.encodeWithSelector(Marketplace.FeeTooHigh.selector, 1001, 1000));
        vm.prank(authority);
        market.setFeeBasisPoints(1001);
    }

    function test_RevertWhen_protocolSettersCalledByStranger() public {
        vm.startPrank(stranger);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        market.setFeeBasisPoints(100);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        market.setFeeRecipient(stranger);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        market.setPaused(true);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        market.transferAuthority(stranger);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        market.logRuns(keccak256("root"), 1);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        market.withdrawFees();
        vm.stopPrank();
    }

    function test_setFeeRecipient_andWithdrawFees() public {
        bytes32 id = _list(ONE_TIME);
        _buyOneTime(id, renter);
        address next = address(0xBEEF);
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.FeeRecipientSet(feeRecipient, next);
        vm.prank(authority);
        market.setFeeRecipient(next);
        vm.prank(authority);
        market.setPaused(true);
        uint256 fees = market.accruedFees();
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.FeesWithdrawn(next, fees);
        vm.prank(next);
        market.withdrawFees();
        vm.assertEq(next.balance, fees, "fees paid while paused");
        vm.assertEq(market.accruedFees(), 0, "fees cleared");
        vm.expectRevert(Marketplace.NothingToWithdraw.selector);
        vm.prank(next);
        market.withdrawFees();
    }

    function test_RevertWhen_setFeeRecipientZero() public {
        vm.expectRevert(Marketplace.ZeroAddress.selector);
        vm.prank(authority);
        market.setFeeRecipient(address(0));
    }

    function test_setPaused_emits() public {
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.PausedSet(true);
        vm.prank(authority);
        market.setPaused(true);
        vm.assertTrue(market.paused(), "paused");
    }

    function test_transferAuthority_movesTheRoleOnlyWhenAccepted() public {
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.AuthorityTransferStarted(authority, stranger);
        vm.prank(authority);
        market.transferAuthority(stranger);
        vm.assertEq(market.authority(), authority, "role not moved by the proposal");
        vm.assertEq(market.pendingAuthority(), stranger, "pending");
        vm.prank(authority);
        market.setPaused(true); // the proposer keeps the role until the acceptance
        vm.expectEmit(true, true, true, true, address(market));
        emit Marketplace.AuthorityTransferred(authority, stranger);
        vm.prank(stranger);
        market.acceptAuthority();
        vm.assertEq(market.authority(), stranger, "new authority");
        vm.assertEq(market.pendingAuthority(), address(0), "nothing pending");
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(authority);
        market.setPaused(false);
    }

    function test_RevertWhen_acceptAuthorityByAnyoneButThePendingAuthority() public {
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(stranger);
        market.acceptAuthority();
        vm.prank(authority);
        market.transferAuthority(address(0xBEEF)); // a typo
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(stranger);
        market.acceptAuthority();
        // The typo is harmless: the authority still acts and proposes the right address.
        vm.prank(authority);
        market.transferAuthority(stranger);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        vm.prank(address(0xBEEF));
        market.acceptAuthority();
        vm.prank(stranger);
        market.acceptAuthority();
        vm.assertEq(market.authority(), stranger, "the corrected proposal wins");
    }

    function test_RevertWhen_transferAuthorityToZero() public {
        vm.expectRevert(Marketplace.ZeroAddress.selector);
        vm.prank(authority);
        market.transferAuthority(address(0));
    }
}

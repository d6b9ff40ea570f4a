// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {TokenMarketplace} from "../src/TokenMarketplace.sol";
import {ERC3009} from "@openzeppelin/contracts/token/ERC20/extensions/draft-ERC3009.sol";
import {TokenTestBase, FeeOnTransferToken} from "./utils/TokenTestBase.sol";

/// @notice The token marketplace: listings in allowed tokens, the three ways to pay, the rental models'
/// money in the listing's token, per-token fees, and refused tokens.
contract TokenMarketplaceTest is TokenTestBase {
    function test_listingIdsAreDomainSeparatedFromEthIds() public {
        bytes32 seed = bytes32(uint256(1));
        bytes32 id = _list(address(usdc), ONE_TIME, PRICE);
        vm.assertEq(id, tm.listingIdOf(creator, seed), "the id of the seed");
        vm.assertTrue(id != keccak256(abi.encodePacked(creator, seed)), "never the ETH contract's id");
        (,,,, address listedBy,, address token,) = tm.listings(id);
        vm.assertEq(listedBy, creator, "creator");
        vm.assertEq(token, address(usdc), "token");
    }

    function test_onlyAllowedTokensListAndOnlyTheAuthorityAllows() public {
        FeeOnTransferToken other = new FeeOnTransferToken();
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(TokenMarketplace.TokenNotAllowed.selector, address(other)));
        tm.createListing(bytes32(0), address(other), ONE_TIME, PRICE, URI);
        vm.prank(stranger);
        vm.expectRevert(Marketplace.Unauthorized.selector);
        tm.setTokenAllowed(address(other), true);
        (, uint8 decimals, uint96 minPrice) = tm.tokenTerms(address(usdc));
        vm.assertEq(decimals, 6, "USDC decimals read");
        vm.assertEq(minPrice, 1, "0.000001 USDC");
        (,, minPrice) = tm.tokenTerms(address(rent));
        vm.assertEq(minPrice, 1e12, "0.000001 RENT");
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.PriceTooLow.selector, 1e11, 1e12));
        tm.createListing(bytes32(0), address(rent), ONE_TIME, 1e11, URI);
    }

    function test_oneTimeApproveThenPurchaseSplitsEscrowAndFeeInTheToken() public {
        bytes32 id = _list(address(usdc), ONE_TIME, PRICE);
        _approve(usdc, renter, PRICE);
        vm.prank(renter);
        tm.purchaseOneTime(id);
        uint256 fee = (PRICE * 250) / 10_000;
        vm.assertEq(_escrow(id), PRICE - fee, "escrow");
        vm.assertEq(tm.accruedFees(address(usdc)), fee, "USDC fees");
        vm.assertEq(tm.accruedFees(address(rent)), 0, "no RENT fees");
        vm.assertEq(usdc.balanceOf(address(tm)), PRICE, "held");
        vm.assertTrue(tm.isCredentialValid(id, renter), "valid");
        vm.prank(creator);
        tm.withdrawEarnings(id, PRICE - fee);
        vm.assertEq(usdc.balanceOf(creator), PRICE - fee, "creator paid in USDC");
        vm.prank(feeRecipient);
        tm.withdrawFees(address(usdc));
        vm.assertEq(usdc.balanceOf(feeRecipient), fee, "fees paid in USDC");
        vm.assertEq(usdc.balanceOf(address(tm)), 0, "nothing left");
    }

    function test_purchaseWithPermitInOneTransaction() public {
        bytes32 id = _list(address(rent), ONE_TIME, 1e18);
        TokenMarketplace.Permit memory p = _permit(rent, rent.DOMAIN_SEPARATOR(), 1e18);
        vm.prank(renter);
        tm.purchaseWithPermit(TokenMarketplace.Purchase.OneTime, id, 0, p);
        vm.assertTrue(tm.isCredentialValid(id, renter), "bought");
        vm.assertEq(rent.balanceOf(address(tm)), 1e18, "paid");
    }

    function test_aPermitSomeoneElseSubmittedFirstStillBuys() public {
        bytes32 id = _list(address(rent), ONE_TIME, 1e18);
        TokenMarketplace.Permit memory p = _permit(rent, rent.DOMAIN_SEPARATOR(), 1e18);
        rent.permit(renter, address(tm), p.value, p.deadline, p.v, p.r, p.s);
        vm.prank(renter);
        tm.purchaseWithPermit(TokenMarketplace.Purchase.OneTime, id, 0, p);
        vm.assertTrue(tm.isCredentialValid(id, renter), "bought on the allowance the permit set");
    }

    function test_permitBelowTheAmountIsRefused() public {
        bytes32 id = _list(address(rent), ONE_TIME, 1e18);
        TokenMarketplace.Permit memory p = _permit(rent, rent.DOMAIN_SEPARATOR(), 1e18 - 1);
        vm.prank(renter);
        vm.expectRevert(abi.encodeWithSelector(TokenMarketplace.AuthorizationMismatch.selector, 1e18, 1e18 - 1));
        tm.purchaseWithPermit(TokenMarketplace.Purchase.OneTime, id, 0, p);
    }

    function test_perQueryPurchaseWithReceiveWithAuthorization() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        TokenMarketplace.Authorization memory a = _authorization(5 * PRICE, keccak256("n1"));
        vm.prank(renter);
        tm.purchaseWithAuthorization(TokenMarketplace.Purchase.PerQuery, id, 5 * PRICE, a);
        vm.assertEq(_balance(id, renter), 5 * PRICE, "balance");
        vm.assertTrue(usdc.authorizationState(renter, keccak256("n1")), "nonce used");
    }

    function test_anAuthorizationIsUsableOnlyByItsSigner() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        TokenMarketplace.Authorization memory a = _authorization(5 * PRICE, keccak256("n1"));
        vm.prank(stranger);
        vm.expectRevert(ERC3009.ERC3009InvalidSignature.selector); // signed by the renter, sent by another
        tm.purchaseWithAuthorization(TokenMarketplace.Purchase.PerQuery, id, 5 * PRICE, a);
        vm.assertEq(_balance(id, stranger), 0, "nothing bought");
    }

    function test_subscriptionVestsInTheToken() public {
        bytes32 id = _list(address(usdc), SUBSCRIPTION, PRICE);
        _approve(usdc, renter, PRICE);
        vm.prank(renter);
        tm.purchaseSubscription(id, DAYS_30);
        uint256 share = PRICE - (PRICE * 250) / 10_000;
        vm.assertEq(tm.withdrawableEarnings(id), 0, "nothing vested at once");
        vm.warp(START + 31 days);
        vm.assertEq(tm.withdrawableEarnings(id), share, "all vested after its period");
        _approve(usdc, renter, PRICE);
        vm.prank(renter);
        tm.renewSubscription(id, DAYS_30);
        vm.assertTrue(tm.isCredentialValid(id, renter), "renewed");
    }

    function test_perQueryChargesExitsAndClose() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        _buyPerQuery(id, renter, 3 * PRICE);
        vm.prank(authority);
        vm.assertTrue(tm.consumeQuery(id, renter, bytes32(uint256(7)), PRICE), "charged");
        vm.prank(authority);
        vm.assertFalse(tm.consumeQuery(id, renter, bytes32(uint256(7)), PRICE), "once per run");
        vm.assertTrue(tm.isRunCharged(bytes32(uint256(7))), "marked");
        TokenMarketplace.Charge[] memory charges = new TokenMarketplace.Charge[](3);
        charges[0] = TokenMarketplace.Charge(id, renter, bytes32(uint256(8)), PRICE);
        charges[1] = TokenMarketplace.Charge(id, renter, keccak256("hashed run"), PRICE);
        charges[2] = TokenMarketplace.Charge(id, renter, bytes32(uint256(9)), PRICE);
        vm.prank(authority);
        vm.assertEq(tm.consumeQueries(charges), 2, "two charged, the third refused");
        vm.assertEq(_balance(id, renter), 0, "balance spent");
        uint256 fee = (PRICE * 250) / 10_000;
        vm.assertEq(_escrow(id), 3 * (PRICE - fee), "escrow");
        vm.assertEq(tm.accruedFees(address(usdc)), 3 * fee, "fees");
        // top-up, then leave once the listing pauses
        _approve(usdc, renter, PRICE);
        vm.prank(renter);
        tm.topUpBalance(id, PRICE);
        vm.prank(creator);
        tm.setListingActive(id, false);
        vm.prank(renter);
        tm.requestBalanceWithdrawal(id);
        vm.prank(renter);
        vm.expectRevert(abi.encodeWithSelector(Marketplace.WithdrawalNotReady.selector, START + 1 hours));
        tm.withdrawUnspentBalance(id);
        vm.warp(START + 1 hours);
        uint256 before = usdc.balanceOf(renter);
        vm.prank(renter);
        tm.withdrawUnspentBalance(id);
        vm.assertEq(usdc.balanceOf(renter) - before, PRICE, "balance back in USDC");
        vm.prank(creator);
        vm.assertEq(tm.closeListingAndWithdraw(id), 3 * (PRICE - fee), "earnings out at close");
        vm.assertEq(usdc.balanceOf(address(tm)), 3 * fee, "only fees left");
    }

    function test_aFeeOnTransferTokenIsRefused() public {
        FeeOnTransferToken taxed = new FeeOnTransferToken();
        vm.prank(authority);
        tm.setTokenAllowed(address(taxed), true);
        vm.prank(creator);
        bytes32 id = tm.createListing(bytes32(uint256(9)), address(taxed), ONE_TIME, 1e18, URI);
        taxed.mint(renter, 10e18);
        vm.prank(renter);
        taxed.approve(address(tm), 1e18);
        vm.prank(renter);
        vm.expectRevert(abi.encodeWithSelector(TokenMarketplace.TransferShortfall.selector, 1e18, 0.99e18));
        tm.purchaseOneTime(id);
        vm.assertEq(taxed.balanceOf(address(tm)), 0, "nothing kept");
    }

    function test_aTokenOffTheListTakesNoNewMoneyButItsBalancesStillCharge() public {
        bytes32 id = _list(address(usdc), PER_QUERY, PRICE);
        _buyPerQuery(id, renter, 2 * PRICE);
        vm.prank(authority);
        tm.setTokenAllowed(address(usdc), false);
        _approve(usdc, renter, PRICE);
        vm.prank(renter);
        vm.expectRevert(abi.encodeWithSelector(TokenMarketplace.TokenNotAllowed.selector, address(usdc)));
        tm.topUpBalance(id, PRICE);
        vm.prank(authority);
        vm.assertTrue(tm.consumeQuery(id, renter, bytes32(uint256(1)), PRICE), "money inside still charges");
    }

    function test_directTransfersBelongToNoAccount() public {
        bytes32 id = _list(address(usdc), ONE_TIME, PRICE);
        vm.prank(stranger);
        usdc.transfer(address(tm), 123);
        vm.assertEq(_escrow(id), 0, "no escrow");
        vm.assertEq(tm.accruedFees(address(usdc)), 0, "no fees");
        _approve(usdc, renter, PRICE);
        vm.prank(renter);
        tm.purchaseOneTime(id);
        vm.assertEq(usdc.balanceOf(address(tm)), PRICE + 123, "held: accounts plus the gift");
    }

    function test_usdcStandInReadsAsUsdc() public view {
        vm.assertEq(usdc.decimals(), 6, "decimals");
        (, string memory name, string memory version,,,,) = usdc.eip712Domain();
        vm.assertEq(keccak256(bytes(name)), keccak256("USD Coin"), "name");
        vm.assertEq(keccak256(bytes(version)), keccak256("2"), "version");
        vm.assertEq(rent.decimals(), 18, "utility decimals");
    }
}

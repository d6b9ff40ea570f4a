// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {Marketplace} from "../src/Marketplace.sol";
import {TestHelpers} from "./utils/Vm.sol";
import {MarketplaceHandler} from "./utils/MarketplaceHandler.sol";

contract CoverageHandler is MarketplaceHandler {
    constructor(Marketplace market_, address authority_, address feeRecipient_)
        MarketplaceHandler(market_, authority_, feeRecipient_)
    {}
}

/// @notice The campaign's handler reaches both outcomes (success and the model's predicted refusal) of
/// every function it drives, and the price-rise exit, on a fixed pseudo-random sequence.
contract MarketplaceHandlerCoverageTest is TestHelpers {
    CoverageHandler internal handler;

    function setUp() public {
        vm.warp(1_700_000_000);
        Marketplace market = new Marketplace(address(0xA0A0), address(0xFEE5));
        handler = new CoverageHandler(market, address(0xA0A0), address(0xFEE5));
    }

    function test_handlerReachesSuccessAndRefusalOfEveryFunction() public {
        uint256 x = 42;
        for (uint256 step = 0; step < 3000; ++step) {
            x = uint256(keccak256(abi.encode(x)));
            uint256 a = uint256(keccak256(abi.encode(x, 1)));
            uint256 b = uint256(keccak256(abi.encode(x, 2)));
            uint256 c = uint256(keccak256(abi.encode(x, 3)));
            uint256 d = uint256(keccak256(abi.encode(x, 4)));
            uint256 k = x % 28;
            if (k == 0) handler.createListing(a, uint8(b), c, d, x >> 8);
            else if (k == 1) handler.updateListing(a, b, c, d);
            else if (k == 2) handler.setListingActive(a, b, c % 3 != 0);
            else if (k == 3) handler.closeListing(a, b);
            else if (k == 4) handler.revoke(a, b, c, d % 2 == 0);
            else if (k == 5) handler.withdrawEarnings(a, b, c);
            else if (k == 6) handler.purchaseOneTime(a, b, c);
            else if (k == 7) handler.purchaseSubscription(a, b, c, d);
            else if (k == 8) handler.renewSubscription(a, b, c, d);
            else if (k == 9 || k == 20) handler.purchasePerQuery(a, b, c);
            else if (k == 10) handler.topUpBalance(a, b, c);
            else if (k == 11 || k == 21) handler.withdrawUnspentBalance(a, b);
            else if (k == 12 || k == 22) handler.consumeQuery(a, b, c, d, x >> 8);
            else if (k == 23 || k == 24) handler.consumeQueries(a, b, c, d, x >> 8);
            else if (k == 25 || k == 26) handler.requestBalanceWithdrawal(a, b);
            else if (k == 27) handler.closeListingAndWithdraw(a, b);
            else if (k == 13) handler.logRuns(a, bytes32(b), uint32(c));
            else if (k == 14) handler.withdrawFees(a);
            else if (k == 15) handler.setFeeBasisPoints(a, b);
            else if (k == 16) handler.setFeeRecipient(a, b);
            else if (k == 17) handler.setPaused(a, b % 5 == 0);
            else if (k == 18) handler.transferAuthority(a, b);
            else if (k == 19) {
                if (a % 2 == 0) handler.acceptAuthority(b);
                else if (a % 3 == 0) handler.setReceiverMode(uint8(b), c);
                else handler.warp(b % 10 days);
            }
        }
        bytes32[22] memory names = [
            bytes32("createListing"), "updateListing", "setListingActive", "closeListing", "revokeAccess",
            "revokePerQueryAccess", "withdrawEarnings", "purchaseOneTime", "purchaseSubscription",
            "renewSubscription", "purchasePerQuery", "topUpBalance", "withdrawUnspentBalance", "consumeQuery",
            "logRuns", "withdrawFees", "setFeeBasisPoints", "setFeeRecipient", "transferAuthority", "consumeQueries",
            "requestBalanceWithdrawal", "closeListingAndWithdraw"
        ];
        for (uint256 i = 0; i < names.length; ++i) {
            vm.assertTrue(handler.succeeded(names[i]) > 0, string.concat("never succeeded: ", _str(names[i])));
            vm.assertTrue(handler.refused(names[i]) > 0, string.concat("never refused: ", _str(names[i])));
        }
        vm.assertTrue(handler.succeeded("acceptAuthority") > 0, "acceptAuthority never succeeded");
        vm.assertTrue(handler.priceRiseExits() > 0, "no renter asked to leave after a price rise");
        vm.assertTrue(handler.requestedExits() > 0, "no renter took a balance back after a request");
        vm.assertTrue(handler.mixedBatches() > 0, "no batch both charged and refused runs");
    }

    function _str(bytes32 name) internal pure returns (string memory) {
        uint256 n = 0;
        while (n < 32 && name[n] != 0) ++n;
        bytes memory out = new bytes(n);
        for (uint256 i = 0; i < n; ++i) out[i] = name[i];
        return string(out);
    }
}

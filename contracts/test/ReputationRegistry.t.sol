// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IdentityRegistry} from "../src/IdentityRegistry.sol";
import {ReputationRegistry} from "../src/ReputationRegistry.sol";
import {TestHelpers} from "./utils/Vm.sol";
import {SigningVm} from "./utils/SigningVm.sol";

/// @notice The ERC-8004 Reputation Registry: giving, revoking and answering feedback, its reads and
/// summary; every custom error triggered with its arguments.
contract ReputationRegistryTest is TestHelpers {
    SigningVm internal constant svm = SigningVm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);
    IdentityRegistry internal identity;
    ReputationRegistry internal reputation;

    address internal creator = address(uint160(uint256(keccak256("creator"))));
    address internal operator = address(uint160(uint256(keccak256("operator"))));
    address internal alice = address(uint160(uint256(keccak256("alice"))));
    address internal bob = address(uint160(uint256(keccak256("bob"))));
    uint256 internal agentId;

    event NewFeedback(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        int128 value,
        uint8 valueDecimals,
        string indexed indexedTag1,
        string tag1,
        string tag2,
        string endpoint,
        string feedbackURI,
        bytes32 feedbackHash
    );
    event FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex);
    event ResponseAppended(uint256 indexed agentId, address indexed clientAddress, uint64 feedbackIndex, address indexed responder, string responseURI, bytes32 responseHash);

    function setUp() public {
        identity = new IdentityRegistry();
        reputation = new ReputationRegistry(address(identity));
        vm.prank(creator);
        agentId = identity.register("ipfs://agent");
    }

    function _give(address client, int128 value, uint8 decimals, string memory tag1) internal {
        vm.prank(client);
        reputation.giveFeedback(agentId, value, decimals, tag1, "", "https://api.example/a2a/agent", "ipfs://feedback", keccak256("file"));
    }

    function _one(address client) internal pure returns (address[] memory list) {
        list = new address[](1);
        list[0] = client;
    }

    function _two(address a, address b) internal pure returns (address[] memory list) {
        list = new address[](2);
        list[0] = a;
        list[1] = b;
    }

    function test_constructor_bindsTheIdentityRegistry() public {
        vm.assertEq(reputation.getIdentityRegistry(), address(identity), "identity registry");
        vm.expectRevert(ReputationRegistry.ZeroIdentityRegistry.selector);
        new ReputationRegistry(address(0));
    }

    function test_giveFeedback_storesAndEmits() public {
        svm.expectEmit(address(reputation));
        emit NewFeedback(agentId, alice, 1, 87, 0, "starred", "starred", "", "https://api.example/a2a/agent", "ipfs://feedback", keccak256("file"));
        _give(alice, 87, 0, "starred");
        _give(alice, 9_500, 2, "starred");
        _give(bob, 1, 0, "reachable");
        vm.assertEq(reputation.getLastIndex(agentId, alice), 2, "alice's last index");
        vm.assertEq(reputation.getLastIndex(agentId, bob), 1, "bob's last index");
        address[] memory clients = reputation.getClients(agentId);
        vm.assertEq(clients.length, 2, "each client once");
        vm.assertEq(clients[0], alice, "first client");
        (int128 value, uint8 decimals, string memory tag1, string memory tag2, bool revoked) = reputation.readFeedback(agentId, alice, 2);
        vm.assertTrue(value == 9_500, "value");
        vm.assertEq(decimals, 2, "decimals");
        vm.assertEq(keccak256(bytes(tag1)), keccak256("starred"), "tag1");
        vm.assertEq(bytes(tag2).length, 0, "tag2");
        vm.assertFalse(revoked, "not revoked");
    }

    function test_RevertWhen_tooManyDecimals() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.TooManyDecimals.selector, uint8(19)));
        reputation.giveFeedback(agentId, 1, 19, "", "", "", "", bytes32(0));
    }

    function test_RevertWhen_theValueIsOutOfRange() public {
        int128 tooBig = 1e38 + 1;
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.ValueOutOfRange.selector, tooBig));
        reputation.giveFeedback(agentId, tooBig, 0, "", "", "", "", bytes32(0));
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.ValueOutOfRange.selector, -tooBig));
        reputation.giveFeedback(agentId, -tooBig, 0, "", "", "", "", bytes32(0));
    }

    function test_RevertWhen_theOwnerOrAnOperatorGivesFeedback() public {
        vm.prank(creator);
        vm.expectRevert(ReputationRegistry.SelfFeedbackNotAllowed.selector);
        reputation.giveFeedback(agentId, 100, 0, "starred", "", "", "", bytes32(0));
        vm.prank(creator);
        identity.setApprovalForAll(operator, true);
        vm.prank(operator);
        vm.expectRevert(ReputationRegistry.SelfFeedbackNotAllowed.selector);
        reputation.giveFeedback(agentId, 100, 0, "starred", "", "", "", bytes32(0));
    }

    function test_RevertWhen_theAgentDoesNotExist() public {
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 99));
        reputation.giveFeedback(99, 100, 0, "", "", "", "", bytes32(0));
    }

    function test_revokeFeedback() public {
        _give(alice, 20, 0, "starred");
        _give(alice, 100, 0, "starred");
        svm.expectEmit(address(reputation));
        emit FeedbackRevoked(agentId, alice, 1);
        vm.prank(alice);
        reputation.revokeFeedback(agentId, 1);
        (, , , , bool revoked) = reputation.readFeedback(agentId, alice, 1);
        vm.assertTrue(revoked, "revoked");
        (uint64 count, int128 value, ) = reputation.getSummary(agentId, _one(alice), "", "");
        vm.assertEq(count, 1, "revoked feedback is not counted");
        vm.assertTrue(value == 100, "only the unrevoked value");
        vm.prank(alice);
        vm.expectRevert(ReputationRegistry.AlreadyRevoked.selector);
        reputation.revokeFeedback(agentId, 1);
    }

    function test_RevertWhen_theIndexIsZeroOrPastTheLast() public {
        _give(alice, 20, 0, "starred");
        vm.prank(alice);
        vm.expectRevert(ReputationRegistry.ZeroFeedbackIndex.selector);
        reputation.revokeFeedback(agentId, 0);
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.FeedbackIndexOutOfBounds.selector, uint64(1), uint64(0)));
        reputation.revokeFeedback(agentId, 1);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.FeedbackIndexOutOfBounds.selector, uint64(2), uint64(1)));
        reputation.readFeedback(agentId, alice, 2);
        vm.expectRevert(ReputationRegistry.ZeroFeedbackIndex.selector);
        reputation.readFeedback(agentId, alice, 0);
    }

    function test_appendResponse_andCounts() public {
        _give(alice, 20, 0, "starred");
        _give(alice, 30, 0, "starred");
        _give(bob, 40, 0, "starred");
        svm.expectEmit(address(reputation));
        emit ResponseAppended(agentId, alice, 1, creator, "ipfs://refund", bytes32(0));
        vm.prank(creator);
        reputation.appendResponse(agentId, alice, 1, "ipfs://refund", bytes32(0));
        vm.prank(creator);
        reputation.appendResponse(agentId, alice, 1, "ipfs://refund-2", bytes32(0));
        vm.prank(operator);
        reputation.appendResponse(agentId, alice, 2, "ipfs://spam", bytes32(0));
        vm.prank(operator);
        reputation.appendResponse(agentId, bob, 1, "ipfs://spam", bytes32(0));
        address[] memory none = new address[](0);
        vm.assertEq(reputation.getResponseCount(agentId, alice, 1, none), 2, "one feedback, every responder");
        vm.assertEq(reputation.getResponseCount(agentId, alice, 1, _one(operator)), 0, "one feedback, one responder");
        vm.assertEq(reputation.getResponseCount(agentId, alice, 0, none), 3, "every feedback of a client");
        vm.assertEq(reputation.getResponseCount(agentId, address(0), 0, none), 4, "every feedback of the agent");
        vm.assertEq(reputation.getResponseCount(agentId, address(0), 0, _one(operator)), 2, "every feedback, one responder");
    }

    function test_RevertWhen_aResponseHasNoUriOrNoFeedback() public {
        _give(alice, 20, 0, "starred");
        vm.expectRevert(ReputationRegistry.EmptyResponseUri.selector);
        reputation.appendResponse(agentId, alice, 1, "", bytes32(0));
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.FeedbackIndexOutOfBounds.selector, uint64(2), uint64(1)));
        reputation.appendResponse(agentId, alice, 2, "ipfs://r", bytes32(0));
        vm.expectRevert(ReputationRegistry.ZeroFeedbackIndex.selector);
        reputation.appendResponse(agentId, alice, 0, "ipfs://r", bytes32(0));
    }

    function test_getSummary_averagesAtTheCommonestDecimals() public {
        _give(alice, 80, 0, "starred");
        _give(bob, 9_000, 2, "starred");
        _give(bob, 7_000, 2, "starred");
        _give(bob, 1, 0, "reachable");
        (uint64 count, int128 value, uint8 decimals) = reputation.getSummary(agentId, _two(alice, bob), "starred", "");
        vm.assertEq(count, 3, "tag filter");
        vm.assertEq(decimals, 2, "the commonest decimals");
        vm.assertTrue(value == 8_000, "average of 80, 90, 70 at 2 decimals");
        (count, , ) = reputation.getSummary(agentId, _two(alice, bob), "", "");
        vm.assertEq(count, 4, "no filter");
        (count, value, decimals) = reputation.getSummary(agentId, _one(address(0xdead)), "", "");
        vm.assertEq(count, 0, "nothing to count");
        vm.assertTrue(value == 0 && decimals == 0, "zeros");
    }

    function test_RevertWhen_theSummaryHasNoClients() public {
        vm.expectRevert(ReputationRegistry.ClientAddressesRequired.selector);
        reputation.getSummary(agentId, new address[](0), "", "");
    }

    function test_readAllFeedback_filters() public {
        _give(alice, 80, 0, "starred");
        _give(bob, 1, 0, "reachable");
        _give(bob, 60, 0, "starred");
        vm.prank(bob);
        reputation.revokeFeedback(agentId, 2);
        (address[] memory clients, uint64[] memory indexes, int128[] memory values, , string[] memory tag1s, , bool[] memory revoked) =
            reputation.readAllFeedback(agentId, new address[](0), "", "", false);
        vm.assertEq(clients.length, 2, "unrevoked of every client");
        vm.assertEq(clients[1], bob, "bob second");
        vm.assertEq(indexes[1], 1, "bob's first");
        vm.assertTrue(values[0] == 80, "alice's value");
        vm.assertEq(keccak256(bytes(tag1s[1])), keccak256("reachable"), "tag");
        vm.assertFalse(revoked[0], "unrevoked");
        (clients, , , , , , revoked) = reputation.readAllFeedback(agentId, _one(bob), "starred", "", true);
        vm.assertEq(clients.length, 1, "bob's starred, revoked included");
        vm.assertTrue(revoked[0], "revoked flag");
    }

    /// @dev The summary of any two feedback values equals their average at 18 decimals, scaled to
    /// the decimals of the first (a tie picks the smaller decimals).
    function testFuzz_getSummary_average(int128 a, int128 b, uint8 da, uint8 db) public {
        a = int128(int256(_bound(uint256(int256(a) < 0 ? -int256(a) : int256(a)), 0, 1e30)));
        b = -int128(int256(_bound(uint256(int256(b) < 0 ? -int256(b) : int256(b)), 0, 1e30)));
        da = uint8(_bound(da, 0, 18));
        db = uint8(_bound(db, 0, 18));
        _give(alice, a, da, "starred");
        _give(bob, b, db, "starred");
        (uint64 count, int128 value, uint8 decimals) = reputation.getSummary(agentId, _two(alice, bob), "", "");
        vm.assertEq(count, 2, "count");
        uint8 expectedDecimals = da < db ? da : db;
        vm.assertEq(decimals, expectedDecimals, "tie: the smaller decimals");
        int256 sum = int256(a) * int256(10 ** uint256(18 - da)) + int256(b) * int256(10 ** uint256(18 - db));
        vm.assertTrue(int256(value) == (sum / 2) / int256(10 ** uint256(18 - expectedDecimals)), "average");
    }

    function test_getVersion() public view {
        vm.assertEq(keccak256(bytes(reputation.getVersion())), keccak256("2.0.0"), "version");
    }
}

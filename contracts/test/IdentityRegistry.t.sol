// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IdentityRegistry} from "../src/IdentityRegistry.sol";
import {TestHelpers} from "./utils/Vm.sol";
import {SigningVm, ContractWallet} from "./utils/SigningVm.sol";

/// @notice The ERC-8004 Identity Registry: registration, URIs, metadata, the agent wallet and its
/// signatures, transfers; every custom error triggered with its arguments.
contract IdentityRegistryTest is TestHelpers {
    SigningVm internal constant svm = SigningVm(0x7109709ECfa91a80626fF3989D68f67F5b1DD12D);
    IdentityRegistry internal registry;

    uint256 internal constant CREATOR_KEY = 0xC0FFEE;
    uint256 internal constant PAYOUT_KEY = 0xBEEF;
    address internal creator;
    address internal payout;
    address internal operator = address(uint160(uint256(keccak256("operator"))));
    address internal stranger = address(uint160(uint256(keccak256("stranger"))));
    string internal constant URI = "ipfs://bafkreiagentregistrationfile";
    uint256 internal constant START = 1_700_000_000;

    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
    event MetadataSet(uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue);
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);

    function setUp() public {
        vm.warp(START);
        registry = new IdentityRegistry();
        creator = svm.addr(CREATOR_KEY);
        payout = svm.addr(PAYOUT_KEY);
    }

    function _register() internal returns (uint256 agentId) {
        vm.prank(creator);
        agentId = registry.register(URI);
    }

    function _digest(uint256 agentId, address wallet, address owner, uint256 deadline) internal view returns (bytes32) {
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("ERC8004IdentityRegistry"),
                keccak256("1"),
                block.chainid,
                address(registry)
            )
        );
        bytes32 structHash = keccak256(abi.encode(registry.AGENT_WALLET_SET_TYPEHASH(), agentId, wallet, owner, deadline));
        return keccak256(abi.encodePacked("\x19\x01", domain, structHash));
    }

    function _sign(uint256 key, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = svm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    /*//////////////////////////////////////////////////////////////
                              REGISTRATION
    //////////////////////////////////////////////////////////////*/

    function test_register_mintsToTheCallerWithItsUriAndWallet() public {
        svm.expectEmit(address(registry));
        emit Registered(0, URI, creator);
        uint256 agentId = _register();
        vm.assertEq(agentId, 0, "ids start at 0");
        vm.assertEq(registry.ownerOf(agentId), creator, "owner");
        vm.assertEq(keccak256(bytes(registry.tokenURI(agentId))), keccak256(bytes(URI)), "agentURI");
        vm.assertEq(registry.getAgentWallet(agentId), creator, "the wallet starts as the owner's");
        vm.assertEq(registry.getMetadata(agentId, "agentWallet"), abi.encodePacked(creator), "agentWallet metadata");
        vm.assertEq(_register(), 1, "the next id");
    }

    function test_register_withoutUri() public {
        vm.prank(creator);
        uint256 agentId = registry.register();
        vm.assertEq(bytes(registry.tokenURI(agentId)).length, 0, "no URI yet");
        vm.prank(creator);
        registry.setAgentURI(agentId, URI);
        vm.assertEq(keccak256(bytes(registry.tokenURI(agentId))), keccak256(bytes(URI)), "set later");
    }

    function test_register_withMetadata() public {
        IdentityRegistry.MetadataEntry[] memory entries = new IdentityRegistry.MetadataEntry[](2);
        entries[0] = IdentityRegistry.MetadataEntry("listing", abi.encode(bytes32(uint256(7))));
        entries[1] = IdentityRegistry.MetadataEntry("kind", bytes("declarative"));
        vm.prank(creator);
        svm.expectEmit(address(registry));
        emit Registered(0, URI, creator);
        uint256 agentId = registry.register(URI, entries);
        vm.assertEq(registry.getMetadata(agentId, "listing"), abi.encode(bytes32(uint256(7))), "listing entry");
        vm.assertEq(registry.getMetadata(agentId, "kind"), bytes("declarative"), "kind entry");
        vm.assertEq(registry.getMetadata(agentId, "absent"), bytes(""), "unset key");
    }

    function test_RevertWhen_registerWithTheReservedKey() public {
        IdentityRegistry.MetadataEntry[] memory entries = new IdentityRegistry.MetadataEntry[](1);
        entries[0] = IdentityRegistry.MetadataEntry("agentWallet", abi.encodePacked(stranger));
        vm.prank(creator);
        vm.expectRevert(IdentityRegistry.ReservedMetadataKey.selector);
        registry.register(URI, entries);
    }

    /*//////////////////////////////////////////////////////////////
                               URI, METADATA
    //////////////////////////////////////////////////////////////*/

    function test_setAgentURI_byTheOwnerAndApprovedOperators() public {
        uint256 agentId = _register();
        svm.expectEmit(address(registry));
        emit URIUpdated(agentId, "ipfs://two", creator);
        vm.prank(creator);
        registry.setAgentURI(agentId, "ipfs://two");
        vm.prank(creator);
        registry.setApprovalForAll(operator, true);
        vm.prank(operator);
        registry.setAgentURI(agentId, "ipfs://three");
        vm.prank(creator);
        registry.approve(stranger, agentId);
        vm.prank(stranger);
        registry.setAgentURI(agentId, "ipfs://four");
        vm.assertEq(keccak256(bytes(registry.tokenURI(agentId))), keccak256("ipfs://four"), "latest URI");
        vm.assertTrue(registry.isAuthorizedOrOwner(operator, agentId), "operator authorized");
        vm.assertTrue(registry.isAuthorizedOrOwner(creator, agentId), "owner authorized");
    }

    function test_RevertWhen_aStrangerSetsTheUri() public {
        uint256 agentId = _register();
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.NotAuthorized.selector, stranger, agentId));
        registry.setAgentURI(agentId, "ipfs://hijack");
        vm.assertFalse(registry.isAuthorizedOrOwner(stranger, agentId), "stranger not authorized");
    }

    function test_RevertWhen_theAgentDoesNotExist() public {
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 42));
        registry.setAgentURI(42, URI);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 42));
        registry.isAuthorizedOrOwner(creator, 42);
    }

    function test_setMetadata() public {
        uint256 agentId = _register();
        svm.expectEmit(address(registry));
        emit MetadataSet(agentId, "k", "k", bytes("v"));
        vm.prank(creator);
        registry.setMetadata(agentId, "k", bytes("v"));
        vm.assertEq(registry.getMetadata(agentId, "k"), bytes("v"), "value");
    }

    function test_RevertWhen_setMetadataOfTheReservedKey() public {
        uint256 agentId = _register();
        vm.prank(creator);
        vm.expectRevert(IdentityRegistry.ReservedMetadataKey.selector);
        registry.setMetadata(agentId, "agentWallet", abi.encodePacked(stranger));
    }

    function test_RevertWhen_aStrangerSetsMetadata() public {
        uint256 agentId = _register();
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.NotAuthorized.selector, stranger, agentId));
        registry.setMetadata(agentId, "k", bytes("v"));
    }

    /*//////////////////////////////////////////////////////////////
                              AGENT WALLET
    //////////////////////////////////////////////////////////////*/

    function test_setAgentWallet_withTheWalletsEip712Signature() public {
        uint256 agentId = _register();
        uint256 deadline = block.timestamp + 60;
        bytes memory signature = _sign(PAYOUT_KEY, _digest(agentId, payout, creator, deadline));
        svm.expectEmit(address(registry));
        emit MetadataSet(agentId, "agentWallet", "agentWallet", abi.encodePacked(payout));
        vm.prank(creator);
        registry.setAgentWallet(agentId, payout, deadline, signature);
        vm.assertEq(registry.getAgentWallet(agentId), payout, "wallet set");
    }

    function test_setAgentWallet_aContractWalletByErc1271() public {
        uint256 agentId = _register();
        uint256 deadline = block.timestamp;
        // The contract's address is needed in the digest: deploy, then check against its own digest.
        bytes memory signature = hex"c0de";
        address predicted = _nextContractAddress();
        ContractWallet wallet = new ContractWallet(_digest(agentId, predicted, creator, deadline), signature);
        vm.assertEq(address(wallet), predicted, "deployed where predicted");
        vm.prank(creator);
        registry.setAgentWallet(agentId, address(wallet), deadline, signature);
        vm.assertEq(registry.getAgentWallet(agentId), address(wallet), "contract wallet set");
        vm.prank(creator);
        vm.expectRevert(IdentityRegistry.InvalidWalletSignature.selector);
        registry.setAgentWallet(agentId, address(wallet), deadline, hex"bad0");
    }

    function test_RevertWhen_theWalletIsZero() public {
        uint256 agentId = _register();
        vm.prank(creator);
        vm.expectRevert(IdentityRegistry.ZeroWallet.selector);
        registry.setAgentWallet(agentId, address(0), block.timestamp, "");
    }

    function test_RevertWhen_theSignatureExpired() public {
        uint256 agentId = _register();
        uint256 deadline = block.timestamp - 1;
        bytes memory signature = _sign(PAYOUT_KEY, _digest(agentId, payout, creator, deadline));
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.SignatureExpired.selector, deadline));
        registry.setAgentWallet(agentId, payout, deadline, signature);
    }

    function test_RevertWhen_theDeadlineIsTooFar() public {
        uint256 agentId = _register();
        uint256 deadline = block.timestamp + registry.MAX_DEADLINE_DELAY() + 1;
        bytes memory signature = _sign(PAYOUT_KEY, _digest(agentId, payout, creator, deadline));
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.DeadlineTooFar.selector, deadline));
        registry.setAgentWallet(agentId, payout, deadline, signature);
    }

    function test_RevertWhen_anotherKeySigned() public {
        uint256 agentId = _register();
        uint256 deadline = block.timestamp + 60;
        bytes memory signature = _sign(CREATOR_KEY, _digest(agentId, payout, creator, deadline));
        vm.prank(creator);
        vm.expectRevert(IdentityRegistry.InvalidWalletSignature.selector);
        registry.setAgentWallet(agentId, payout, deadline, signature);
    }

    function test_RevertWhen_aStrangerSetsTheWallet() public {
        uint256 agentId = _register();
        uint256 deadline = block.timestamp + 60;
        bytes memory signature = _sign(PAYOUT_KEY, _digest(agentId, payout, creator, deadline));
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.NotAuthorized.selector, stranger, agentId));
        registry.setAgentWallet(agentId, payout, deadline, signature);
    }

    function test_unsetAgentWallet() public {
        uint256 agentId = _register();
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.NotAuthorized.selector, stranger, agentId));
        registry.unsetAgentWallet(agentId);
        vm.prank(creator);
        registry.unsetAgentWallet(agentId);
        vm.assertEq(registry.getAgentWallet(agentId), address(0), "cleared");
    }

    function test_transfer_clearsTheWallet() public {
        uint256 agentId = _register();
        vm.prank(creator);
        registry.transferFrom(creator, stranger, agentId);
        vm.assertEq(registry.ownerOf(agentId), stranger, "new owner");
        vm.assertEq(registry.getAgentWallet(agentId), address(0), "wallet cleared on transfer");
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.NotAuthorized.selector, creator, agentId));
        registry.setAgentURI(agentId, "ipfs://old-owner");
    }

    function test_getVersion() public view {
        vm.assertEq(keccak256(bytes(registry.getVersion())), keccak256("2.0.0"), "version");
    }

    /// @dev A signature over one agent, wallet, owner or deadline never sets another's.
    function testFuzz_setAgentWallet_signatureBindsEveryField(uint256 walletKey, uint256 delay, uint8 field) public {
        walletKey = _bound(walletKey, 1, 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140);
        delay = _bound(delay, 0, registry.MAX_DEADLINE_DELAY());
        uint256 agentId = _register();
        address wallet = svm.addr(walletKey);
        uint256 deadline = block.timestamp + delay;
        bytes memory good = _sign(walletKey, _digest(agentId, wallet, creator, deadline));
        field = uint8(_bound(field, 0, 2));
        bytes memory bad = field == 0
            ? _sign(walletKey, _digest(agentId + 1, wallet, creator, deadline))
            : field == 1 ? _sign(walletKey, _digest(agentId, wallet, stranger, deadline)) : _sign(walletKey, _digest(agentId, wallet, creator, deadline + 1));
        vm.prank(creator);
        vm.expectRevert(IdentityRegistry.InvalidWalletSignature.selector);
        registry.setAgentWallet(agentId, wallet, deadline, bad);
        vm.prank(creator);
        registry.setAgentWallet(agentId, wallet, deadline, good);
        vm.assertEq(registry.getAgentWallet(agentId), wallet, "the right signature sets it");
    }

    /// @dev The address of the next contract this test contract creates (RLP of its address and nonce).
    function _nextContractAddress() internal view returns (address) {
        // This contract deployed the registry (nonce 1 → 2); nothing else yet.
        uint256 nonce = 2;
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xd6), bytes1(0x94), address(this), bytes1(uint8(nonce)))))));
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721URIStorage} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721URIStorage.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// @title IdentityRegistry
/// @author Agent rental service
/// @notice ERC-8004 "Trustless Agents" Identity Registry: every agent is an ERC-721 token (agentId =
/// tokenId) whose token URI (agentURI) resolves to the agent's registration file, with optional
/// on-chain metadata and the reserved `agentWallet` key, set only with the wallet's own signature.
/// @dev The interface, events and EIP-712 domain are those of the ERC's reference registry
/// (erc-8004/erc-8004-contracts, IdentityRegistryUpgradeable 2.0.0), so tools written for the canonical
/// deployments work against this one; it is deployed plainly (no proxy) on the local chain, and a real
/// network uses the canonical deployment instead. Refusals are custom errors rather than strings.
contract IdentityRegistry is ERC721URIStorage, EIP712 {
    /*//////////////////////////////////////////////////////////////
                                 TYPES
    //////////////////////////////////////////////////////////////*/

    /// @notice One on-chain metadata entry given to register.
    struct MetadataEntry {
        string metadataKey;
        bytes metadataValue;
    }

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The caller is neither the agent's owner nor an operator approved for it.
    error NotAuthorized(address caller, uint256 agentId);
    /// @notice `agentWallet` is set only by setAgentWallet, never by setMetadata or register.
    error ReservedMetadataKey();
    /// @notice setAgentWallet was given the zero address.
    error ZeroWallet();
    /// @notice The signature's deadline has passed.
    error SignatureExpired(uint256 deadline);
    /// @notice The signature's deadline is more than MAX_DEADLINE_DELAY ahead.
    error DeadlineTooFar(uint256 deadline);
    /// @notice The new wallet did not sign the AgentWalletSet message (neither ECDSA nor ERC-1271).
    error InvalidWalletSignature();

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice A new agent was minted to `owner` with `agentURI` (empty when given later).
    /// @param agentId The new agent.
    /// @param agentURI Its registration file's URI.
    /// @param owner Its owner.
    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
    /// @notice An on-chain metadata entry was written (including the reserved `agentWallet`).
    /// @param agentId The agent.
    /// @param indexedMetadataKey The key, indexed (its hash).
    /// @param metadataKey The key.
    /// @param metadataValue The value.
    event MetadataSet(uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue);
    /// @notice The agent's URI changed.
    /// @param agentId The agent.
    /// @param newURI The new URI.
    /// @param updatedBy The owner or operator that changed it.
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);

    /*//////////////////////////////////////////////////////////////
                               CONSTANTS
    //////////////////////////////////////////////////////////////*/

    /// @notice The EIP-712 type hash of what the new wallet signs to become an agent's `agentWallet`.
    bytes32 public constant AGENT_WALLET_SET_TYPEHASH = keccak256( // solhint-disable-line gas-small-strings
        "AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)");
    /// @notice How far ahead a wallet signature's deadline may be.
    uint256 public constant MAX_DEADLINE_DELAY = 5 minutes;
    string private constant AGENT_WALLET_KEY = "agentWallet";
    bytes32 private constant AGENT_WALLET_KEY_HASH = keccak256("agentWallet");

    /*//////////////////////////////////////////////////////////////
                                STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @dev The next agentId (ids start at 0, as the reference registry's do).
    uint256 private _nextId;
    /// @dev agentId => metadata key => value (including `agentWallet`).
    mapping(uint256 agentId => mapping(string key => bytes value)) private _metadata;

    /// @notice The ERC-721 name and symbol and the EIP-712 domain of the reference registry.
    constructor() ERC721("AgentIdentity", "AGENT") EIP712("ERC8004IdentityRegistry", "1") {}

    /*//////////////////////////////////////////////////////////////
                              REGISTRATION
    //////////////////////////////////////////////////////////////*/

    /// @notice Registers an agent with no URI yet (set it later with setAgentURI).
    /// @return agentId The new agent's id.
    function register() external returns (uint256 agentId) {
        agentId = _register("");
    }

    /// @notice Registers an agent whose registration file is at `agentURI`.
    /// @param agentURI The registration file's URI.
    /// @return agentId The new agent's id.
    function register(string calldata agentURI) external returns (uint256 agentId) {
        agentId = _register(agentURI);
    }

    /// @notice Registers an agent with its URI and extra on-chain metadata.
    /// @dev Reverts ReservedMetadataKey when an entry names `agentWallet`.
    /// @param agentURI The registration file's URI.
    /// @param metadata Extra entries, written in order (a later entry with the same key wins).
    /// @return agentId The new agent's id.
    function register(string calldata agentURI, MetadataEntry[] calldata metadata) external returns (uint256 agentId) {
        uint256 length = metadata.length;
        for (uint256 i = 0; i < length; ++i) {
            if (keccak256(bytes(metadata[i].metadataKey)) == AGENT_WALLET_KEY_HASH) revert ReservedMetadataKey();
        }
        agentId = _register(agentURI);
        for (uint256 i = 0; i < length; ++i) {
            _metadata[agentId][metadata[i].metadataKey] = metadata[i].metadataValue;
            emit MetadataSet(agentId, metadata[i].metadataKey, metadata[i].metadataKey, metadata[i].metadataValue);
        }
    }

    /*//////////////////////////////////////////////////////////////
                             OWNER ACTIONS
    //////////////////////////////////////////////////////////////*/

    /// @notice Points the agent at a new registration file.
    /// @dev Owner or approved operator only (NotAuthorized); a missing agent reverts ERC721NonexistentToken.
    /// @param agentId The agent.
    /// @param newURI The new URI.
    function setAgentURI(uint256 agentId, string calldata newURI) external {
        _checkAuthorized(agentId);
        _setTokenURI(agentId, newURI);
        emit URIUpdated(agentId, newURI, msg.sender);
    }

    /// @notice Writes an on-chain metadata entry of the agent.
    /// @dev Owner or approved operator only; `agentWallet` is refused (ReservedMetadataKey).
    /// @param agentId The agent.
    /// @param metadataKey The key.
    /// @param metadataValue The value.
    function setMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue) external {
        _checkAuthorized(agentId);
        if (keccak256(bytes(metadataKey)) == AGENT_WALLET_KEY_HASH) revert ReservedMetadataKey();
        _metadata[agentId][metadataKey] = metadataValue;
        emit MetadataSet(agentId, metadataKey, metadataKey, metadataValue);
    }

    /// @notice Sets the wallet where the agent receives payments, proven by that wallet's signature of
    /// AgentWalletSet(agentId, newWallet, owner, deadline) under this registry's EIP-712 domain: an
    /// ECDSA signature of an EOA, or ERC-1271 for a contract wallet.
    /// @dev Owner or approved operator only. Reverts ZeroWallet, SignatureExpired (deadline passed),
    /// DeadlineTooFar (deadline beyond now + MAX_DEADLINE_DELAY), InvalidWalletSignature.
    /// @param agentId The agent.
    /// @param newWallet The wallet.
    /// @param deadline The last second the signature is good for.
    /// @param signature The wallet's signature.
    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature) external {
        address owner = _checkAuthorized(agentId);
        if (newWallet == address(0)) revert ZeroWallet();
        // solhint-disable-next-line not-rely-on-time
        if (block.timestamp > deadline) revert SignatureExpired(deadline);
        // solhint-disable-next-line not-rely-on-time
        if (deadline > block.timestamp + MAX_DEADLINE_DELAY) revert DeadlineTooFar(deadline);
        bytes32 digest = _hashTypedDataV4(keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, agentId, newWallet, owner, deadline)));
        // ECDSA first (EOAs, including EIP-7702 delegated ones, which have code), then ERC-1271.
        (address recovered, ECDSA.RecoverError err, ) = ECDSA.tryRecover(digest, signature);
        if (err != ECDSA.RecoverError.NoError || recovered != newWallet) {
            if (!SignatureChecker.isValidERC1271SignatureNow(newWallet, digest, signature)) revert InvalidWalletSignature();
        }
        _setAgentWallet(agentId, abi.encodePacked(newWallet));
    }

    /// @notice Clears the agent's wallet.
    /// @dev Owner or approved operator only.
    /// @param agentId The agent.
    function unsetAgentWallet(uint256 agentId) external {
        _checkAuthorized(agentId);
        _setAgentWallet(agentId, "");
    }

    /*//////////////////////////////////////////////////////////////
                                 VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @notice An on-chain metadata entry (empty when unset).
    /// @param agentId The agent.
    /// @param metadataKey The key.
    /// @return value The value.
    function getMetadata(uint256 agentId, string calldata metadataKey) external view returns (bytes memory value) {
        return _metadata[agentId][metadataKey];
    }

    /// @notice The agent's wallet (the zero address when unset or cleared by a transfer).
    /// @param agentId The agent.
    /// @return wallet The wallet.
    function getAgentWallet(uint256 agentId) external view returns (address wallet) {
        return address(bytes20(_metadata[agentId][AGENT_WALLET_KEY]));
    }

    /// @notice Whether `spender` is the agent's owner or an operator approved for it; the Reputation
    /// Registry refuses feedback from such an address. Reverts ERC721NonexistentToken for a missing agent.
    /// @param spender The address.
    /// @param agentId The agent.
    /// @return authorized True for the owner and approved operators.
    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool authorized) {
        return _isAuthorized(_requireOwned(agentId), spender, agentId);
    }

    /// @notice The version of the ERC-8004 interface this registry follows.
    /// @return version "2.0.0", as the reference registry reports.
    function getVersion() external pure returns (string memory version) {
        return "2.0.0";
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    function _register(string memory agentURI) private returns (uint256 agentId) {
        agentId = _nextId;
        ++_nextId;
        // The wallet starts as the owner's, written before the mint's receiver hook can run.
        _metadata[agentId][AGENT_WALLET_KEY] = abi.encodePacked(msg.sender);
        _safeMint(msg.sender, agentId);
        if (bytes(agentURI).length != 0) _setTokenURI(agentId, agentURI);
        emit Registered(agentId, agentURI, msg.sender);
        emit MetadataSet(agentId, AGENT_WALLET_KEY, AGENT_WALLET_KEY, abi.encodePacked(msg.sender));
    }

    /// @dev The owner, after checking the caller is the owner or an approved operator.
    function _checkAuthorized(uint256 agentId) private view returns (address owner) {
        owner = _requireOwned(agentId);
        if (!_isAuthorized(owner, msg.sender, agentId)) revert NotAuthorized(msg.sender, agentId);
    }

    function _setAgentWallet(uint256 agentId, bytes memory value) private {
        _metadata[agentId][AGENT_WALLET_KEY] = value;
        emit MetadataSet(agentId, AGENT_WALLET_KEY, AGENT_WALLET_KEY, value);
    }

    /// @dev A transfer (not a mint or burn) clears the wallet: the new owner proves a wallet afresh.
    function _update(address to, uint256 tokenId, address auth) internal override returns (address) {
        address from = _ownerOf(tokenId);
        if (from != address(0) && to != address(0)) _setAgentWallet(tokenId, "");
        return super._update(to, tokenId, auth);
    }
}

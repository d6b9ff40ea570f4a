// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// @title IIdentityRegistry
/// @author Agent rental service
/// @notice The one question the Reputation Registry asks the Identity Registry.
interface IIdentityRegistry {
    /// @notice Whether `spender` is the agent's owner or an approved operator; reverts for a missing agent.
    /// @param spender The address asked about.
    /// @param agentId The agent.
    /// @return authorized True for the owner and approved operators.
    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool authorized);
}

/// @title ReputationRegistry
/// @author Agent rental service
/// @notice ERC-8004 "Trustless Agents" Reputation Registry: any client but the agent's owner and
/// operators posts feedback (a signed fixed-point value with 0-18 decimals, two tags, an endpoint and
/// an off-chain file with its hash), may revoke it, and anyone may append responses. Value, decimals,
/// tags and the revoked flag are stored; the endpoint, file URI and hash are only emitted.
/// @dev The interface and events are those of the ERC's reference registry (erc-8004/erc-8004-contracts,
/// ReputationRegistryUpgradeable 2.0.0); refusals are custom errors. This registry does not judge
/// feedback: which feedback counts toward a listing's rating (only a paying renter's, one per run) is
/// decided off-chain from the file's run receipt, which anyone can check against the marketplace.
contract ReputationRegistry {
    /*//////////////////////////////////////////////////////////////
                                 TYPES
    //////////////////////////////////////////////////////////////*/

    /// @notice One stored feedback. value, decimals and the flag share a slot.
    struct Feedback {
        int128 value;
        uint8 valueDecimals;
        bool isRevoked;
        string tag1;
        string tag2;
    }

    /// @dev readAllFeedback's answer, built in memory (its seven arrays do not fit the stack at once).
    struct FeedbackList {
        address[] clients;
        uint64[] feedbackIndexes;
        int128[] values;
        uint8[] valueDecimals;
        string[] tag1s;
        string[] tag2s;
        bool[] revokedStatuses;
    }

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The constructor was given the zero address.
    error ZeroIdentityRegistry();
    /// @notice valueDecimals above 18.
    error TooManyDecimals(uint8 valueDecimals);
    /// @notice |value| above 1e38.
    error ValueOutOfRange(int128 value);
    /// @notice The agent's owner and its operators may not give it feedback.
    error SelfFeedbackNotAllowed();
    /// @notice Feedback indexes start at 1.
    error ZeroFeedbackIndex();
    /// @notice No feedback at this index from this client.
    error FeedbackIndexOutOfBounds(uint64 feedbackIndex, uint64 lastIndex);
    /// @notice The feedback is already revoked.
    error AlreadyRevoked();
    /// @notice appendResponse needs a response URI.
    error EmptyResponseUri();
    /// @notice getSummary needs a non-empty client list (an unfiltered summary invites Sybil feedback).
    error ClientAddressesRequired();

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice Feedback number `feedbackIndex` of `clientAddress` for `agentId`.
    /// @param agentId The agent.
    /// @param clientAddress The client that gave it.
    /// @param feedbackIndex The client's feedback index for the agent, from 1.
    /// @param value The signed fixed-point value.
    /// @param valueDecimals Its decimals.
    /// @param indexedTag1 tag1, indexed (its hash).
    /// @param tag1 The first tag.
    /// @param tag2 The second tag.
    /// @param endpoint The endpoint the feedback is about.
    /// @param feedbackURI The off-chain feedback file.
    /// @param feedbackHash keccak256 of the file's bytes.
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
    /// @notice The client revoked its feedback.
    /// @param agentId The agent.
    /// @param clientAddress The client.
    /// @param feedbackIndex The revoked feedback's index.
    event FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex);
    /// @notice `responder` appended a response to a feedback.
    /// @param agentId The agent.
    /// @param clientAddress The client whose feedback was answered.
    /// @param feedbackIndex The feedback's index.
    /// @param responder Who answered.
    /// @param responseURI The response file.
    /// @param responseHash keccak256 of the response file.
    event ResponseAppended(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        address indexed responder,
        string responseURI,
        bytes32 responseHash
    );

    /*//////////////////////////////////////////////////////////////
                               CONSTANTS
    //////////////////////////////////////////////////////////////*/

    /// @notice The largest |value| accepted.
    int128 public constant MAX_ABS_VALUE = 1e38;
    /// @notice The most decimals a value may have.
    uint8 public constant MAX_DECIMALS = 18;

    /*//////////////////////////////////////////////////////////////
                                STORAGE
    //////////////////////////////////////////////////////////////*/

    IIdentityRegistry private immutable _IDENTITY;

    /// @dev agentId => client => feedbackIndex (from 1) => feedback.
    mapping(uint256 agentId => mapping(address client => mapping(uint64 index => Feedback))) private _feedback;
    /// @dev agentId => client => the client's last feedback index.
    mapping(uint256 agentId => mapping(address client => uint64 lastIndex)) private _lastIndex;
    /// @dev agentId => client => feedbackIndex => responder => responses appended.
    mapping(uint256 agentId => mapping(address client => mapping(uint64 index => mapping(address responder => uint64 count)))) private _responseCount;
    /// @dev agentId => client => feedbackIndex => every responder, once.
    mapping(uint256 agentId => mapping(address client => mapping(uint64 index => address[] responders))) private _responders;
    /// @dev agentId => every client that gave feedback, once.
    mapping(uint256 agentId => address[] clients) private _clients;
    mapping(uint256 agentId => mapping(address client => bool known)) private _clientKnown;

    /// @notice Binds the registry to its Identity Registry, once.
    /// @param identityRegistry_ The Identity Registry whose agents this registry rates.
    constructor(address identityRegistry_) {
        if (identityRegistry_ == address(0)) revert ZeroIdentityRegistry();
        _IDENTITY = IIdentityRegistry(identityRegistry_);
    }

    /*//////////////////////////////////////////////////////////////
                             CLIENT ACTIONS
    //////////////////////////////////////////////////////////////*/

    /// @notice Gives feedback to an agent.
    /// @dev Reverts TooManyDecimals, ValueOutOfRange, SelfFeedbackNotAllowed (the owner or an operator),
    /// and ERC721NonexistentToken (from the Identity Registry) for a missing agent.
    /// @param agentId The agent.
    /// @param value The signed fixed-point value.
    /// @param valueDecimals Its decimals, 0 to 18.
    /// @param tag1 An optional tag (for example "starred").
    /// @param tag2 An optional second tag.
    /// @param endpoint The endpoint the feedback is about (optional).
    /// @param feedbackURI The off-chain feedback file (optional).
    /// @param feedbackHash keccak256 of the file's bytes (optional for content-addressed URIs).
    function giveFeedback(
        uint256 agentId,
        int128 value,
        uint8 valueDecimals,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) external {
        if (valueDecimals > MAX_DECIMALS) revert TooManyDecimals(valueDecimals);
        if (value > MAX_ABS_VALUE || value < -MAX_ABS_VALUE) revert ValueOutOfRange(value);
        if (_IDENTITY.isAuthorizedOrOwner(msg.sender, agentId)) revert SelfFeedbackNotAllowed();

        uint64 index = _store(agentId, value, valueDecimals, tag1, tag2);
        _emitNewFeedback(agentId, index, value, valueDecimals, tag1, tag2, endpoint, feedbackURI, feedbackHash);
    }

    /// @notice Revokes the caller's own feedback.
    /// @dev Reverts ZeroFeedbackIndex, FeedbackIndexOutOfBounds, AlreadyRevoked.
    /// @param agentId The agent.
    /// @param feedbackIndex The caller's feedback index.
    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external {
        _checkIndex(agentId, msg.sender, feedbackIndex);
        Feedback storage feedback = _feedback[agentId][msg.sender][feedbackIndex];
        if (feedback.isRevoked) revert AlreadyRevoked();
        feedback.isRevoked = true;
        emit FeedbackRevoked(agentId, msg.sender, feedbackIndex);
    }

    /// @notice Appends a response (a refund shown, a spam tag...) to a feedback; anyone may.
    /// @dev Reverts EmptyResponseUri, ZeroFeedbackIndex, FeedbackIndexOutOfBounds.
    /// @param agentId The agent.
    /// @param clientAddress The client whose feedback is answered.
    /// @param feedbackIndex The feedback's index.
    /// @param responseURI The response file.
    /// @param responseHash keccak256 of the response file (optional for content-addressed URIs).
    function appendResponse(uint256 agentId, address clientAddress, uint64 feedbackIndex, string calldata responseURI, bytes32 responseHash) external {
        if (bytes(responseURI).length == 0) revert EmptyResponseUri();
        _checkIndex(agentId, clientAddress, feedbackIndex);
        mapping(address responder => uint64 count) storage counts = _responseCount[agentId][clientAddress][feedbackIndex];
        if (counts[msg.sender] == 0) _responders[agentId][clientAddress][feedbackIndex].push(msg.sender);
        ++counts[msg.sender];
        emit ResponseAppended(agentId, clientAddress, feedbackIndex, msg.sender, responseURI, responseHash);
    }

    /*//////////////////////////////////////////////////////////////
                                 VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @notice The Identity Registry this registry rates agents of.
    /// @return identityRegistry Its address.
    function getIdentityRegistry() external view returns (address identityRegistry) {
        return address(_IDENTITY);
    }

    /// @notice The client's last feedback index for the agent (0 before any).
    /// @param agentId The agent.
    /// @param clientAddress The client.
    /// @return lastIndex The index.
    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64 lastIndex) {
        return _lastIndex[agentId][clientAddress];
    }

    /// @notice Every client that gave the agent feedback, in the order of their first.
    /// @param agentId The agent.
    /// @return clients The clients.
    function getClients(uint256 agentId) external view returns (address[] memory clients) {
        return _clients[agentId];
    }

    /// @notice One feedback.
    /// @dev Reverts ZeroFeedbackIndex, FeedbackIndexOutOfBounds.
    /// @param agentId The agent.
    /// @param clientAddress The client.
    /// @param feedbackIndex The index.
    /// @return value The value.
    /// @return valueDecimals Its decimals.
    /// @return tag1 The first tag.
    /// @return tag2 The second tag.
    /// @return isRevoked Whether the client revoked it.
    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (int128 value, uint8 valueDecimals, string memory tag1, string memory tag2, bool isRevoked)
    {
        _checkIndex(agentId, clientAddress, feedbackIndex);
        Feedback storage f = _feedback[agentId][clientAddress][feedbackIndex];
        return (f.value, f.valueDecimals, f.tag1, f.tag2, f.isRevoked);
    }

    /// @notice The count and average of the listed clients' unrevoked feedback, filtered by tags (an
    /// empty tag matches any). The average is computed at 18 decimals and given at the decimals most of
    /// the counted feedback used (the smallest such on a tie).
    /// @dev Reverts ClientAddressesRequired for an empty list.
    /// @param agentId The agent.
    /// @param clientAddresses The clients to count (required).
    /// @param tag1 Filter on tag1, or "".
    /// @param tag2 Filter on tag2, or "".
    /// @return count The feedback counted.
    /// @return summaryValue The average.
    /// @return summaryValueDecimals Its decimals.
    function getSummary(uint256 agentId, address[] calldata clientAddresses, string calldata tag1, string calldata tag2)
        external
        view
        returns (uint64 count, int128 summaryValue, uint8 summaryValueDecimals)
    {
        if (clientAddresses.length == 0) revert ClientAddressesRequired();
        int256 sum;
        uint64[19] memory decimalCounts;
        for (uint256 i = 0; i < clientAddresses.length; ++i) {
            (int256 clientSum, uint64 clientCount) = _sumOf(agentId, clientAddresses[i], _tagHash(tag1), _tagHash(tag2), decimalCounts);
            sum += clientSum;
            count += clientCount;
        }
        if (count == 0) return (0, 0, 0);
        uint64 most;
        for (uint8 d = 0; d <= MAX_DECIMALS; ++d) {
            if (decimalCounts[d] > most) {
                most = decimalCounts[d];
                summaryValueDecimals = d;
            }
        }
        // |average| <= 1e38 * 1e18 fits int256; scaled back to `summaryValueDecimals` it fits int128.
        summaryValue = int128((sum / int256(uint256(count))) / int256(10 ** uint256(MAX_DECIMALS - summaryValueDecimals)));
    }

    // Memory parameters (the ABI is the same): with calldata ones the answer's arrays do not fit the stack.
    // solhint-disable gas-calldata-parameters
    /// @notice Every matching feedback of the listed clients (all clients when the list is empty).
    /// @param agentId The agent.
    /// @param clientAddresses The clients, or [] for all.
    /// @param tag1 Filter on tag1, or "".
    /// @param tag2 Filter on tag2, or "".
    /// @param includeRevoked Whether to include revoked feedback.
    /// @return clients Each feedback's client.
    /// @return feedbackIndexes Each feedback's index.
    /// @return values Each value.
    /// @return valueDecimals Each value's decimals.
    /// @return tag1s Each tag1.
    /// @return tag2s Each tag2.
    /// @return revokedStatuses Each revoked flag.
    function readAllFeedback(uint256 agentId, address[] memory clientAddresses, string memory tag1, string memory tag2, bool includeRevoked)
        external
        view
        returns (
            address[] memory clients,
            uint64[] memory feedbackIndexes,
            int128[] memory values,
            uint8[] memory valueDecimals,
            string[] memory tag1s,
            string[] memory tag2s,
            bool[] memory revokedStatuses
        )
    {
        if (clientAddresses.length == 0) clientAddresses = _clients[agentId];
        FeedbackList memory list = _readAll(agentId, clientAddresses, _tagHashOf(tag1), _tagHashOf(tag2), includeRevoked);
        clients = list.clients;
        feedbackIndexes = list.feedbackIndexes;
        values = list.values;
        valueDecimals = list.valueDecimals;
        tag1s = list.tag1s;
        tag2s = list.tag2s;
        revokedStatuses = list.revokedStatuses;
    }

    // solhint-enable gas-calldata-parameters

    /// @notice How many responses were appended: to one feedback; to every feedback of a client
    /// (feedbackIndex 0); or to every feedback of the agent (clientAddress zero). An empty responder
    /// list counts every responder.
    /// @param agentId The agent.
    /// @param clientAddress The client, or the zero address for all.
    /// @param feedbackIndex The index, or 0 for all of the client's.
    /// @param responders The responders to count, or [] for all.
    /// @return count The responses.
    function getResponseCount(uint256 agentId, address clientAddress, uint64 feedbackIndex, address[] calldata responders)
        external
        view
        returns (uint64 count)
    {
        if (clientAddress == address(0)) {
            address[] storage all = _clients[agentId];
            for (uint256 i = 0; i < all.length; ++i) count += _countAll(agentId, all[i], responders);
        } else if (feedbackIndex == 0) {
            count = _countAll(agentId, clientAddress, responders);
        } else {
            count = _countResponses(agentId, clientAddress, feedbackIndex, responders);
        }
    }

    /// @notice The version of the ERC-8004 interface this registry follows.
    /// @return version "2.0.0", as the reference registry reports.
    function getVersion() external pure returns (string memory version) {
        return "2.0.0";
    }

    /*//////////////////////////////////////////////////////////////
                                INTERNAL
    //////////////////////////////////////////////////////////////*/

    function _store(uint256 agentId, int128 value, uint8 valueDecimals, string calldata tag1, string calldata tag2) private returns (uint64 index) {
        index = ++_lastIndex[agentId][msg.sender];
        _feedback[agentId][msg.sender][index] = Feedback({value: value, valueDecimals: valueDecimals, isRevoked: false, tag1: tag1, tag2: tag2});
        if (!_clientKnown[agentId][msg.sender]) {
            _clientKnown[agentId][msg.sender] = true;
            _clients[agentId].push(msg.sender);
        }
    }

    /// @dev Apart from giveFeedback, with the strings in memory: the event's eleven fields do not fit
    /// the stack beside eight calldata parameters (without switching the whole build to via-IR).
    function _emitNewFeedback(
        uint256 agentId,
        uint64 index,
        int128 value,
        uint8 valueDecimals,
        string memory tag1,
        string memory tag2,
        string memory endpoint,
        string memory feedbackURI,
        bytes32 feedbackHash
    ) private {
        emit NewFeedback(agentId, msg.sender, index, value, valueDecimals, tag1, tag1, tag2, endpoint, feedbackURI, feedbackHash);
    }

    function _checkIndex(uint256 agentId, address clientAddress, uint64 feedbackIndex) private view {
        if (feedbackIndex == 0) revert ZeroFeedbackIndex();
        uint64 last = _lastIndex[agentId][clientAddress];
        if (feedbackIndex > last) revert FeedbackIndexOutOfBounds(feedbackIndex, last);
    }

    function _tagHashOf(string memory tag) private pure returns (bytes32) {
        return bytes(tag).length == 0 ? bytes32(0) : keccak256(bytes(tag));
    }

    function _readAll(uint256 agentId, address[] memory clientList, bytes32 tag1, bytes32 tag2, bool includeRevoked)
        private
        view
        returns (FeedbackList memory list)
    {
        uint256 total;
        for (uint256 i = 0; i < clientList.length; ++i) {
            uint64 last = _lastIndex[agentId][clientList[i]];
            for (uint64 j = 1; j <= last; ++j) {
                Feedback storage f = _feedback[agentId][clientList[i]][j];
                if ((includeRevoked || !f.isRevoked) && _matches(f, tag1, tag2)) ++total;
            }
        }
        list = FeedbackList(new address[](total), new uint64[](total), new int128[](total), new uint8[](total), new string[](total), new string[](total), new bool[](total));
        uint256 k;
        for (uint256 i = 0; i < clientList.length; ++i) {
            uint64 last = _lastIndex[agentId][clientList[i]];
            for (uint64 j = 1; j <= last; ++j) {
                Feedback storage f = _feedback[agentId][clientList[i]][j];
                if (!((includeRevoked || !f.isRevoked) && _matches(f, tag1, tag2))) continue;
                _put(list, k, clientList[i], j, f);
                ++k;
            }
        }
    }

    /// @dev A tag filter as a hash; zero for the empty tag, which matches any.
    function _tagHash(string calldata tag) private pure returns (bytes32) {
        return bytes(tag).length == 0 ? bytes32(0) : keccak256(bytes(tag));
    }

    function _put(FeedbackList memory list, uint256 k, address client, uint64 index, Feedback storage f) private view {
        list.clients[k] = client;
        list.feedbackIndexes[k] = index;
        list.values[k] = f.value;
        list.valueDecimals[k] = f.valueDecimals;
        list.tag1s[k] = f.tag1;
        list.tag2s[k] = f.tag2;
        list.revokedStatuses[k] = f.isRevoked;
    }

    /// @dev One client's unrevoked matching feedback, summed at 18 decimals; counts each one's decimals.
    function _sumOf(uint256 agentId, address client, bytes32 tag1, bytes32 tag2, uint64[19] memory decimalCounts)
        private
        view
        returns (int256 sum, uint64 count)
    {
        uint64 last = _lastIndex[agentId][client];
        for (uint64 j = 1; j <= last; ++j) {
            Feedback storage f = _feedback[agentId][client][j];
            if (f.isRevoked || !_matches(f, tag1, tag2)) continue;
            sum += int256(f.value) * int256(10 ** uint256(MAX_DECIMALS - f.valueDecimals));
            ++decimalCounts[f.valueDecimals];
            ++count;
        }
    }

    function _matches(Feedback storage f, bytes32 tag1, bytes32 tag2) private view returns (bool) {
        if (tag1 != bytes32(0) && tag1 != keccak256(bytes(f.tag1))) return false;
        if (tag2 != bytes32(0) && tag2 != keccak256(bytes(f.tag2))) return false;
        return true;
    }

    function _countAll(uint256 agentId, address clientAddress, address[] calldata responders) private view returns (uint64 count) {
        uint64 last = _lastIndex[agentId][clientAddress];
        for (uint64 j = 1; j <= last; ++j) count += _countResponses(agentId, clientAddress, j, responders);
    }

    function _countResponses(uint256 agentId, address clientAddress, uint64 feedbackIndex, address[] calldata responders)
        private
        view
        returns (uint64 count)
    {
        mapping(address responder => uint64 n) storage counts = _responseCount[agentId][clientAddress][feedbackIndex];
        if (responders.length == 0) {
            address[] storage all = _responders[agentId][clientAddress][feedbackIndex];
            for (uint256 k = 0; k < all.length; ++k) count += counts[all[k]];
        } else {
            for (uint256 k = 0; k < responders.length; ++k) count += counts[responders[k]];
        }
    }
}

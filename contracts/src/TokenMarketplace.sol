// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC3009} from "@openzeppelin/contracts/interfaces/draft-IERC3009.sol";
import {Marketplace} from "./Marketplace.sol";
import {ChargeCapRules} from "./ChargeCapRules.sol";

// One storage declaration per kind of record, as in Marketplace (docs/reference/contract.md).
// solhint-disable max-states-count

/// @title TokenMarketplace
/// @author Agent rental service
/// @notice The marketplace for listings priced in an ERC-20 token, beside the ETH Marketplace: the same
/// authority model, the same three rental models (one_time, subscription with each payment vesting,
/// per_query with prepaid balances, exits and idempotent per-run charges), each listing in one token
/// from the allowlist the authority keeps. Adds x402 settlement: a batch of EIP-3009 transfers, each
/// paying one run of a per_query listing.
/// @dev Money model, per token: every unit of a token the contract accounts for is a listing's escrow,
/// a renter's unspent balance or unclaimed protocol fees in that token, and leaves only through a pull
/// withdrawal. Amounts never cross tokens: a listing's escrow, its renters' balances and the fees its
/// charges take are all in the listing's token, and fees are kept per token. A token whose transfer
/// delivers less than asked (fee-on-transfer, rebasing down) is refused at the transfer. Tokens sent to
/// the contract outside a purchase belong to no account and stay where they are.
/// Listing ids are keccak256(abi.encodePacked(LISTING_ID_DOMAIN, creator, seed)): never equal to an ETH
/// listing's id (keccak256(abi.encodePacked(creator, seed))), so an id names one contract's listing.
contract TokenMarketplace {
    using SafeERC20 for IERC20;

    /*//////////////////////////////////////////////////////////////
                                 TYPES
    //////////////////////////////////////////////////////////////*/

    /// @notice A token listing. Slot 0 holds what a purchase reads and writes (price, escrow, model,
    /// status), as in Marketplace; slot 2 the token.
    struct Listing {
        // slot 0 (240 bits)
        uint96 price;
        uint128 escrow;
        Marketplace.AccessType accessType;
        Marketplace.ListingStatus status;
        // slot 1 (200 bits)
        address creator;
        uint40 createdAt;
        // slot 2
        address token;
        // slot 3+
        string metadataUri;
    }

    /// @notice What the allowlist holds for a token: whether listings and payments may use it, and the
    /// smallest price a listing in it may ask (0.000001 of a whole token: 10^(decimals - 6), at least 1).
    struct TokenTerms {
        bool allowed;
        uint8 decimals;
        uint96 minPrice;
    }

    /// @notice An EIP-2612 permit the renter signed for this contract (spender), for at least the amount due.
    // Calldata only: the field order is the ABI, so packing does not apply.
    // solhint-disable-next-line gas-struct-packing
    struct Permit {
        uint256 value;
        uint256 deadline;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    /// @notice An EIP-3009 ReceiveWithAuthorization the renter (the caller) signed, to this contract, for
    /// exactly the amount due.
    // Calldata only: the field order is the ABI, so packing does not apply.
    // solhint-disable-next-line gas-struct-packing
    struct Authorization {
        uint256 value;
        uint256 validAfter;
        uint256 validBefore;
        bytes32 nonce;
        uint8 v;
        bytes32 r;
        bytes32 s;
    }

    /// @notice One run's charge in a consumeQueries batch, as in Marketplace.
    // Calldata only: the field order is the ABI the settler encodes, so packing does not apply.
    // solhint-disable-next-line gas-struct-packing
    struct Charge {
        bytes32 listingId;
        address buyer;
        bytes32 runRef;
        uint256 maxPrice;
    }

    /// @dev What a charge or settlement call holds in memory and writes once at its end (as Marketplace's
    /// Tab), plus the token of the current listing: its fees and the units received in it this call.
    // Memory only: every field takes a word there whatever its type, so packing does not apply.
    // solhint-disable-next-line gas-struct-packing
    struct Tab {
        bytes32 listingId;
        uint256 price;
        Marketplace.ListingStatus status;
        Marketplace.AccessType accessType;
        uint256 escrowAdded;
        address buyer;
        bool recordLoaded;
        uint40 purchasedAt;
        bool isRevoked;
        uint256 depositPrice;
        uint256 balance;
        bool balanceChanged;
        uint256 feeBasisPoints;
        uint256 feesAdded;
        uint256 marksWord;
        uint256 marks;
        bool marksLoaded;
        bool marksChanged;
        address token;
        bool tokenLoaded;
        bool tokenAllowed;
        uint256 heldBefore;
        uint256 received;
        bool capped;
        bool capChanged;
        uint256 capAmount;
        uint256 capSpent;
        uint256 capNumber;
    }

    /// @notice What a purchase does (one internal path for the three ways of paying).
    enum Purchase {
        OneTime,
        Subscription,
        Renewal,
        PerQuery,
        TopUp
    }

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/
    // The errors Marketplace declares are raised here under the same names and arguments (so the same
    // selectors), through Marketplace's declarations. These are the token contract's own:

    /// @notice The token is not on the allowlist (or was taken off it).
    /// @param token The token.
    error TokenNotAllowed(address token);
    /// @notice A transfer into the contract delivered less than asked (a fee-on-transfer or rebasing token).
    /// @param expected The units asked for.
    /// @param received The units that arrived.
    error TransferShortfall(uint256 expected, uint256 received);
    /// @notice The token's decimals cannot be read, or are above 36.
    /// @param token The token.
    error UnsupportedToken(address token);
    /// @notice An x402 payment's transferWithAuthorization failed: a bad signature, a used or cancelled
    /// nonce, the time window, or the payer's balance (PaymentRefused reason only).
    error AuthorizationFailed();
    /// @notice A settlePayments batch is not a sequence of whole groups (a header cut short, a count of
    /// zero, payments past the batch's end); nothing of it is settled.
    /// @param offset Where in the batch the malformed group starts.
    error MalformedBatch(uint256 offset);
    /// @notice A signed authorization or permit is for another amount than the one due, or a 3009
    /// purchase was sent by another wallet than its signer.
    /// @param expected The units due.
    /// @param signed The units signed.
    error AuthorizationMismatch(uint256 expected, uint256 signed);

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/
    // Purchases, charges, exits, withdrawals and listing changes emit Marketplace's events (same names,
    // arguments and topics; amounts in the listing's token). These are the token contract's own:

    /// @notice A token listing was created (status active).
    /// @param listingId keccak256(abi.encodePacked(LISTING_ID_DOMAIN, creator, seed)).
    /// @param creator The creator.
    /// @param token The token the listing is priced and paid in.
    /// @param seed The creator-chosen seed.
    /// @param accessType The rental model.
    /// @param price The price, in the token's units.
    /// @param metadataUri The manifest URI.
    event TokenListingCreated(
        bytes32 indexed listingId,
        address indexed creator,
        address indexed token,
        bytes32 seed,
        Marketplace.AccessType accessType,
        uint256 price,
        string metadataUri
    );
    /// @notice The authority put a token on the allowlist or took it off.
    /// @param token The token.
    /// @param allowed Whether new listings, purchases and payments may use it.
    /// @param minPrice The smallest listing price in it.
    event TokenAllowedSet(address indexed token, bool allowed, uint256 minPrice);
    /// @notice Accrued protocol fees in one token were paid out.
    /// @param token The token.
    /// @param recipient The fee recipient.
    /// @param amount The units paid.
    event TokenFeesWithdrawn(address indexed token, address indexed recipient, uint256 amount);
    /// @notice x402 payments of one group of a settlePayments batch settled: each moved `amount` from its
    /// payer, grew the listing's escrow by `amount - fee` and the token's fees by `fee`, and paid its run.
    /// One event per group, counting its payments and naming none, for gas (decisions 0256, 0274): the
    /// group's payments are the batch's (the transaction's input), less those its PaymentRefused events
    /// named before this event; each payment's transfer is in the token's own Transfer and AuthorizationUsed.
    /// @param listingId The listing.
    /// @param amount The units each payment moved (the listing's price).
    /// @param fee The protocol fee taken from each.
    /// @param count How many payments of the group settled.
    event PaymentsSettled(bytes32 indexed listingId, uint256 amount, uint256 fee, uint256 count);
    /// @notice An x402 payment of a settlePayments batch was refused; nothing moved, the run is not
    /// charged, the rest of the batch went on.
    /// @param listingId The listing.
    /// @param payer The wallet that signed the authorization.
    /// @param runRef The run.
    /// @param reason The selector of the custom error that refused it (AuthorizationFailed,
    /// IncorrectPayment, TokenNotAllowed, ListingNotFound, ListingNotActive,
    /// InvalidAccessType).
    event PaymentRefused(bytes32 indexed listingId, address indexed payer, bytes32 indexed runRef, bytes4 reason);

    /*//////////////////////////////////////////////////////////////
                               CONSTANTS
    //////////////////////////////////////////////////////////////*/

    /// @notice The fee cap: 10%.
    uint256 public constant MAX_FEE_BASIS_POINTS = 1000;
    /// @dev The fee at deployment: 2.5%.
    uint256 internal constant DEFAULT_FEE_BASIS_POINTS = 250;
    /// @dev Basis points in 100%.
    uint256 internal constant BASIS_POINTS = 10_000;
    /// @dev The maximum metadata URI length in bytes.
    uint256 internal constant MAX_METADATA_URI_LENGTH = 200;
    /// @dev The subscription price period: a subscription `price` buys 30 days.
    uint256 internal constant SUBSCRIPTION_PERIOD = 30 days;
    /// @dev Run references below this value are dense (a bitmap word per 256), as in Marketplace.
    uint256 internal constant DENSE_RUN_REFS = 1 << 64;
    /// @dev How far ahead a renewal may pay (as Marketplace).
    uint256 internal constant MAX_PREPAID = 395 days;
    /// @dev The latest expiry a subscription may have (as Marketplace).
    uint256 internal constant MAX_EXPIRY = type(uint40).max;
    /// @dev The unit subscription earnings vest in.
    uint256 internal constant VESTING_DAY = 1 days;
    /// @notice How long after requestBalanceWithdrawal the unspent balance may be withdrawn (as Marketplace).
    uint256 public constant BALANCE_WITHDRAWAL_DELAY = 1 hours;
    /// @notice The largest per-query balance (the record's uint96).
    uint256 public constant MAX_BALANCE = type(uint96).max;
    /// @notice What a token listing's id hashes before the creator and seed, so it never equals an ETH id.
    bytes32 public constant LISTING_ID_DOMAIN = keccak256("agent-rental.token-listing");
    /// @dev What _charge returns for a run it charged (no custom error has this selector).
    bytes4 private constant CHARGED = 0xffffffff;
    /// @dev A Tab's fee rate before the first charge reads it (no fee rate has this value).
    uint256 private constant FEE_NOT_READ = type(uint256).max;
    /// @dev A settlePayments group's header: the listing id (32 bytes), the value each payment signed (32),
    /// the number of payments (2).
    uint256 private constant GROUP_HEADER_BYTES = 66;
    /// @dev A settlePayments payment: payer (20 bytes), validAfter (5), validBefore (5), nonce (32), runRef
    /// (8: a dense reference), r (32), s (32), v (1).
    uint256 private constant PAYMENT_BYTES = 135;

    /*//////////////////////////////////////////////////////////////
                                STORAGE
    //////////////////////////////////////////////////////////////*/

    /// @notice The protocol fee in basis points (<= 1000), for every token.
    uint16 public feeBasisPoints;
    /// @notice Whether the protocol is paused (no purchases, renewals or new listings; withdrawals work).
    bool public paused;
    /// @notice The protocol authority.
    address public authority;
    /// @notice The successor the authority proposed; zero when no transfer is pending.
    address public pendingAuthority;
    /// @notice Where protocol fees are paid.
    address public feeRecipient;

    /// @notice Protocol fees accrued and not yet withdrawn, per token.
    mapping(address token => uint256 amount) public accruedFees;
    /// @notice The allowlist.
    mapping(address token => TokenTerms terms) public tokenTerms;
    /// @notice Listings by id.
    mapping(bytes32 listingId => Listing listing) public listings;
    /// @notice one_time and subscription credentials by listing id and buyer.
    mapping(bytes32 listingId => mapping(address buyer => Marketplace.AccessCredential credential)) public credentials;
    /// @dev per_query balances by listing id and buyer (read through `perQueryBalances`).
    mapping(bytes32 listingId => mapping(address buyer => Marketplace.PerQueryBalance record)) private _perQueryBalances;
    /// @dev Whether a run reference of DENSE_RUN_REFS or above was charged already.
    mapping(bytes32 runRef => bool consumed) private _hashedRunMarks;
    /// @notice The charged marks of dense run references: bit `runRef & 255` of word `runRef >> 8`.
    mapping(uint256 wordIndex => uint256 bits) public chargedRuns;
    /// @notice How each subscription listing's earnings vest (see Marketplace.Vesting).
    mapping(bytes32 listingId => Marketplace.Vesting vesting) public vestings;
    /// @dev The changes of a listing's vesting by day number.
    mapping(bytes32 listingId => mapping(uint256 day => Marketplace.VestingDay change)) internal vestingDays;
    /// @dev Which days of a listing hold a VestingDay.
    mapping(bytes32 listingId => mapping(uint256 wordIndex => uint256 bits)) internal vestingDayBits;
    /// @notice When a renter asked to withdraw the unspent balance.
    mapping(bytes32 listingId => mapping(address buyer => uint256 requestedAt)) public withdrawalRequestedAt;
    /// @dev Renters' charge caps by listing id and buyer (read through `chargeCaps`).
    mapping(bytes32 listingId => mapping(address buyer => Marketplace.ChargeCap cap)) private _chargeCaps;

    bool private transient _locked;

    /*//////////////////////////////////////////////////////////////
                               MODIFIERS
    //////////////////////////////////////////////////////////////*/

    modifier nonReentrant() {
        if (_locked) revert Marketplace.Reentrancy();
        _locked = true;
        _;
        _locked = false;
    }

    modifier onlyAuthority() {
        if (msg.sender != authority) revert Marketplace.Unauthorized();
        _;
    }

    /*//////////////////////////////////////////////////////////////
                              CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @notice Deploys with the fee at 2.5%, the protocol unpaused and no token allowed.
    /// @param authority_ The protocol authority.
    /// @param feeRecipient_ The receiver of protocol fees.
    constructor(address authority_, address feeRecipient_) {
        if (authority_ == address(0) || feeRecipient_ == address(0)) revert Marketplace.ZeroAddress();
        authority = authority_;
        feeRecipient = feeRecipient_;
        feeBasisPoints = uint16(DEFAULT_FEE_BASIS_POINTS);
        emit Marketplace.AuthorityTransferred(address(0), authority_);
        emit Marketplace.FeeRecipientSet(address(0), feeRecipient_);
        emit Marketplace.FeeBasisPointsSet(0, DEFAULT_FEE_BASIS_POINTS);
    }

    /*//////////////////////////////////////////////////////////////
                            CREATOR ACTIONS
    //////////////////////////////////////////////////////////////*/

    /// @notice Creates a listing owned by the caller, priced and paid in `token`, status active.
    /// @dev Reverts ProtocolPaused, TokenNotAllowed, MetadataUriEmpty, MetadataUriTooLong, PriceTooLow
    /// (below the token's minPrice), ListingAlreadyExists.
    /// @param seed A creator-chosen seed; the id is listingIdOf(msg.sender, seed).
    /// @param token An allowed token; fixed for the listing's life.
    /// @param accessType The rental model, fixed for the listing's life.
    /// @param price one_time: the price; subscription: per 30 days; per_query: per run; in token units.
    /// @param metadataUri URI of the agent manifest, 1 to 200 bytes.
    /// @return listingId The new listing's id.
    function createListing(
        bytes32 seed,
        address token,
        Marketplace.AccessType accessType,
        uint96 price,
        string calldata metadataUri
    ) external returns (bytes32 listingId) {
        if (paused) revert Marketplace.ProtocolPaused();
        TokenTerms memory terms = tokenTerms[token];
        if (!terms.allowed) revert TokenNotAllowed(token);
        _checkListingTerms(price, terms.minPrice, metadataUri);
        listingId = listingIdOf(msg.sender, seed);
        Listing storage listing = listings[listingId];
        if (listing.status != Marketplace.ListingStatus.None) revert Marketplace.ListingAlreadyExists();
        listing.price = price;
        listing.accessType = accessType;
        listing.status = Marketplace.ListingStatus.Active;
        listing.creator = msg.sender;
        listing.createdAt = uint40(block.timestamp);
        listing.token = token;
        listing.metadataUri = metadataUri;
        emit TokenListingCreated(listingId, msg.sender, token, seed, accessType, price, metadataUri);
    }

    /// @notice Replaces a listing's price and metadata URI (as Marketplace.updateListing).
    /// @dev Creator only; reverts ListingNotFound, Unauthorized, ListingNotActive (closed),
    /// MetadataUriEmpty, MetadataUriTooLong, PriceTooLow.
    /// @param listingId The listing.
    /// @param price The new price.
    /// @param metadataUri The new manifest URI.
    function updateListing(bytes32 listingId, uint96 price, string calldata metadataUri) external {
        Listing storage listing = _openListingOfCreator(listingId);
        _checkListingTerms(price, tokenTerms[listing.token].minPrice, metadataUri);
        listing.price = price;
        listing.metadataUri = metadataUri;
        emit Marketplace.ListingUpdated(listingId, price, metadataUri);
    }

    /// @notice Pauses or resumes a listing (as Marketplace.setListingActive).
    /// @dev Creator only; reverts ListingNotFound, Unauthorized, ListingNotActive (closed).
    /// @param listingId The listing.
    /// @param active Whether the listing accepts new rentals.
    function setListingActive(bytes32 listingId, bool active) external {
        Listing storage listing = _openListingOfCreator(listingId);
        listing.status = active ? Marketplace.ListingStatus.Active : Marketplace.ListingStatus.Paused;
        emit Marketplace.ListingActiveSet(listingId, active);
    }

    /// @notice Closes a listing for good once its escrow is empty (as Marketplace.closeListing).
    /// @dev Creator only; reverts ListingNotFound, Unauthorized, ListingNotActive, EscrowNotEmpty.
    /// @param listingId The listing.
    function closeListing(bytes32 listingId) external {
        Listing storage listing = _openListingOfCreator(listingId);
        if (listing.escrow != 0) revert Marketplace.EscrowNotEmpty();
        listing.status = Marketplace.ListingStatus.Closed;
        emit Marketplace.ListingClosed(listingId);
    }

    /// @notice Withdraws the whole escrow to the creator and closes the listing (as
    /// Marketplace.closeListingAndWithdraw).
    /// @dev Creator only; reverts ListingNotFound, Unauthorized, ListingNotActive, EscrowNotEmpty
    /// (unvested subscription earnings), Reentrancy, or the token's own transfer error.
    /// @param listingId The listing.
    /// @return amount The units withdrawn.
    function closeListingAndWithdraw(bytes32 listingId) external nonReentrant returns (uint256 amount) {
        Listing storage listing = _openListingOfCreator(listingId);
        amount = listing.escrow;
        if (
            amount != 0 && listing.accessType == Marketplace.AccessType.Subscription && _syncVesting(listingId) != 0
        ) {
            revert Marketplace.EscrowNotEmpty();
        }
        listing.escrow = 0;
        listing.status = Marketplace.ListingStatus.Closed;
        if (amount != 0) emit Marketplace.EarningsWithdrawn(listingId, msg.sender, amount);
        emit Marketplace.ListingClosed(listingId);
        if (amount != 0) IERC20(listing.token).safeTransfer(msg.sender, amount);
    }

    /// @notice Revokes a renter's one_time or subscription credential (as Marketplace.revokeAccess).
    /// @dev Creator only; reverts ListingNotFound, Unauthorized, ListingNotActive, InvalidAccessType,
    /// CredentialNotFound, CredentialRevoked.
    /// @param listingId The listing.
    /// @param buyer The renter.
    function revokeAccess(bytes32 listingId, address buyer) external {
        Listing storage listing = _openListingOfCreator(listingId);
        if (listing.accessType == Marketplace.AccessType.PerQuery) revert Marketplace.InvalidAccessType();
        Marketplace.AccessCredential storage credential = credentials[listingId][buyer];
        if (credential.buyer == address(0)) revert Marketplace.CredentialNotFound();
        if (credential.isRevoked) revert Marketplace.CredentialRevoked();
        credential.isRevoked = true;
        emit Marketplace.AccessRevoked(listingId, buyer, credential.accessType);
    }

    /// @notice Revokes a renter's per_query access (as Marketplace.revokePerQueryAccess).
    /// @dev Creator only; reverts ListingNotFound, Unauthorized, ListingNotActive, InvalidAccessType,
    /// CredentialNotFound, CredentialRevoked.
    /// @param listingId The listing.
    /// @param buyer The renter.
    function revokePerQueryAccess(bytes32 listingId, address buyer) external {
        Listing storage listing = _openListingOfCreator(listingId);
        if (listing.accessType != Marketplace.AccessType.PerQuery) revert Marketplace.InvalidAccessType();
        Marketplace.PerQueryBalance storage record = _perQueryBalances[listingId][buyer];
        if (record.purchasedAt == 0) revert Marketplace.CredentialNotFound();
        if (record.isRevoked) revert Marketplace.CredentialRevoked();
        record.isRevoked = true;
        emit Marketplace.AccessRevoked(listingId, buyer, Marketplace.AccessType.PerQuery);
    }

    /// @notice Withdraws `amount` of a listing's vested escrow, in its token (as Marketplace.withdrawEarnings).
    /// @dev Creator only; reverts ListingNotFound, Unauthorized, NothingToWithdraw,
    /// WithdrawalExceedsBalance, Reentrancy.
    /// @param listingId The listing.
    /// @param amount The units to withdraw, at most withdrawableEarnings(listingId).
    function withdrawEarnings(bytes32 listingId, uint256 amount) external nonReentrant {
        Listing storage listing = listings[listingId];
        if (listing.status == Marketplace.ListingStatus.None) revert Marketplace.ListingNotFound();
        if (listing.creator != msg.sender) revert Marketplace.Unauthorized();
        uint256 escrow = listing.escrow;
        uint256 available =
            listing.accessType == Marketplace.AccessType.Subscription ? escrow - _syncVesting(listingId) : escrow;
        if (available == 0 || amount == 0) revert Marketplace.NothingToWithdraw();
        if (amount > available) revert Marketplace.WithdrawalExceedsBalance(amount, available);
        listing.escrow = uint128(escrow - amount);
        emit Marketplace.EarningsWithdrawn(listingId, msg.sender, amount);
        IERC20(listing.token).safeTransfer(msg.sender, amount);
    }

    /*//////////////////////////////////////////////////////////////
                            RENTER ACTIONS
    //////////////////////////////////////////////////////////////*/
    // Each purchase comes three ways: after an ERC-20 approve (the functions named as Marketplace's), or
    // in one transaction with an EIP-2612 permit (purchaseWithPermit) or an EIP-3009
    // ReceiveWithAuthorization the caller signed (purchaseWithAuthorization). The rules are Marketplace's;
    // amounts are in the listing's token.

    /// @notice Buys a one_time credential, paying the listing price from an allowance.
    /// @dev Reverts as Marketplace.purchaseOneTime (no IncorrectPayment), and TokenNotAllowed, TransferShortfall.
    /// @param listingId The listing.
    function purchaseOneTime(bytes32 listingId) external nonReentrant {
        (address token, uint256 due) = _buy(Purchase.OneTime, listingId, 0);
        _pullFrom(token, due);
    }

    /// @notice Buys a subscription of 30, 90 or 365 days; pays subscriptionPrice(listingId, durationSeconds).
    /// @dev Reverts as Marketplace.purchaseSubscription (no IncorrectPayment), and TokenNotAllowed, TransferShortfall.
    /// @param listingId The listing.
    /// @param durationSeconds 2592000, 7776000 or 31536000.
    function purchaseSubscription(bytes32 listingId, uint256 durationSeconds) external nonReentrant {
        (address token, uint256 due) = _buy(Purchase.Subscription, listingId, durationSeconds);
        _pullFrom(token, due);
    }

    /// @notice Renews a subscription (as Marketplace.renewSubscription); pays subscriptionPrice(...).
    /// @param listingId The listing.
    /// @param durationSeconds 2592000, 7776000 or 31536000.
    function renewSubscription(bytes32 listingId, uint256 durationSeconds) external nonReentrant {
        (address token, uint256 due) = _buy(Purchase.Renewal, listingId, durationSeconds);
        _pullFrom(token, due);
    }

    /// @notice Opens a per_query rental with a prepaid balance of `deposit` (as Marketplace.purchasePerQuery).
    /// @dev Reverts as Marketplace.purchasePerQuery, and TokenNotAllowed, TransferShortfall.
    /// @param listingId The listing.
    /// @param deposit The units deposited, at least one run at the listing price.
    function purchasePerQuery(bytes32 listingId, uint256 deposit) external nonReentrant {
        (address token, uint256 due) = _buy(Purchase.PerQuery, listingId, deposit);
        _pullFrom(token, due);
    }

    /// @notice Adds `amount` to a per_query balance (as Marketplace.topUpBalance).
    /// @dev Reverts as Marketplace.topUpBalance, and TokenNotAllowed, TransferShortfall.
    /// @param listingId The listing.
    /// @param amount The units added, at least one run at the listing price.
    function topUpBalance(bytes32 listingId, uint256 amount) external nonReentrant {
        (address token, uint256 due) = _buy(Purchase.TopUp, listingId, amount);
        _pullFrom(token, due);
    }

    /// @notice Any purchase, paid in the same transaction through an EIP-2612 permit the caller signed
    /// for this contract: `kind` OneTime (`arg` ignored), Subscription or Renewal (`arg` the duration in
    /// seconds), PerQuery or TopUp (`arg` the deposit). A permit that fails (used already by someone who
    /// saw it first) is no error while the allowance covers the amount due.
    /// @dev Reverts as the purchase named by `kind`, and AuthorizationMismatch (permit value below the
    /// amount due), AuthorizationFailed (the permit failed and the allowance does not cover it).
    /// @param kind The purchase.
    /// @param listingId The listing.
    /// @param arg The duration (subscriptions) or deposit (per_query); 0 for one_time.
    /// @param permit The caller's permit for this contract, for at least the amount due.
    function purchaseWithPermit(Purchase kind, bytes32 listingId, uint256 arg, Permit calldata permit)
        external
        nonReentrant
    {
        (address token, uint256 due) = _buy(kind, listingId, arg);
        _pullWithPermit(token, due, permit);
    }

    /// @notice Any purchase (as purchaseWithPermit), paid by an EIP-3009 ReceiveWithAuthorization the
    /// caller signed, to this contract, for exactly the amount due. Only the signer may send it.
    /// @dev Reverts as the purchase named by `kind`, AuthorizationMismatch (value not the amount due), or
    /// the token's own error for a bad signature, nonce or time window.
    /// @param kind The purchase.
    /// @param listingId The listing.
    /// @param arg The duration (subscriptions) or deposit (per_query); 0 for one_time.
    /// @param auth The caller's authorization.
    function purchaseWithAuthorization(Purchase kind, bytes32 listingId, uint256 arg, Authorization calldata auth)
        external
        nonReentrant
    {
        (address token, uint256 due) = _buy(kind, listingId, arg);
        _pullWithAuthorization(token, due, auth);
    }

    /// @notice Asks to take back the unspent per_query balance (as Marketplace.requestBalanceWithdrawal).
    /// @dev Reverts ListingNotFound, InvalidAccessType, CredentialNotFound, NothingToWithdraw,
    /// WithdrawalNotReady, Unauthorized.
    /// @param listingId The listing.
    function requestBalanceWithdrawal(bytes32 listingId) external {
        (Listing storage listing, Marketplace.PerQueryBalance storage record, uint256 balance) = _ownBalance(listingId);
        if (record.withdrawalRequested) {
            revert Marketplace.WithdrawalNotReady(withdrawalRequestedAt[listingId][msg.sender] + BALANCE_WITHDRAWAL_DELAY);
        }
        if (!_mayLeave(listingId, listing, record, balance)) revert Marketplace.Unauthorized();
        record.withdrawalRequested = true;
        withdrawalRequestedAt[listingId][msg.sender] = block.timestamp;
        emit Marketplace.BalanceWithdrawalRequested(
            listingId, msg.sender, balance, block.timestamp + BALANCE_WITHDRAWAL_DELAY
        );
    }

    /// @notice Takes back an unspent per_query balance, in full, in the listing's token (as
    /// Marketplace.withdrawUnspentBalance).
    /// @dev Reverts ListingNotFound, InvalidAccessType, CredentialNotFound, NothingToWithdraw,
    /// Unauthorized, WithdrawalNotReady, Reentrancy.
    /// @param listingId The listing.
    function withdrawUnspentBalance(bytes32 listingId) external nonReentrant {
        (Listing storage listing, Marketplace.PerQueryBalance storage record, uint256 amount) = _ownBalance(listingId);
        if (listing.status != Marketplace.ListingStatus.Closed && !record.isRevoked) {
            if (!_mayLeave(listingId, listing, record, amount)) revert Marketplace.Unauthorized();
            if (!record.withdrawalRequested) revert Marketplace.WithdrawalNotReady(0);
            uint256 withdrawableAt = withdrawalRequestedAt[listingId][msg.sender] + BALANCE_WITHDRAWAL_DELAY;
            if (block.timestamp < withdrawableAt) revert Marketplace.WithdrawalNotReady(withdrawableAt);
        }
        record.balance = 0;
        record.withdrawalRequested = false;
        emit Marketplace.UnspentBalanceWithdrawn(listingId, msg.sender, amount);
        IERC20(listing.token).safeTransfer(msg.sender, amount);
    }

    /// @notice Caps what the authority may charge from the caller's per_query balance on `listingId` per
    /// period (as Marketplace.setChargeCap; `amount` in the listing's token).
    /// @dev Reverts ListingNotFound, InvalidAccessType, CredentialNotFound, InvalidChargeCap.
    /// @param listingId The listing.
    /// @param amount The most charged per period (token units).
    /// @param period The period in seconds.
    function setChargeCap(bytes32 listingId, uint256 amount, uint256 period) external {
        Listing storage listing = listings[listingId];
        if (listing.status == Marketplace.ListingStatus.None) revert Marketplace.ListingNotFound();
        if (listing.accessType != Marketplace.AccessType.PerQuery) revert Marketplace.InvalidAccessType();
        Marketplace.PerQueryBalance storage record = _perQueryBalances[listingId][msg.sender];
        if (record.purchasedAt == 0) revert Marketplace.CredentialNotFound();
        ChargeCapRules.set(record, _chargeCaps[listingId][msg.sender], amount, period);
        emit Marketplace.ChargeCapSet(listingId, msg.sender, amount, period);
    }

    /*//////////////////////////////////////////////////////////////
                           AUTHORITY ACTIONS
    //////////////////////////////////////////////////////////////*/

    /// @notice Charges one run to a per_query balance, exactly as Marketplace.consumeQuery does, in the
    /// listing's token. Idempotent per run; works on a paused listing and for a token taken off the
    /// allowlist (the money is inside already), not on a closed listing.
    /// @dev Authority only; reverts Unauthorized, PriceTooLow (maxPrice zero), ListingNotFound,
    /// ListingNotActive, InvalidAccessType, CredentialNotFound, CredentialRevoked, InsufficientBalance.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @param runRef The run id the charge belongs to.
    /// @param maxPrice The listing price the run was admitted at.
    /// @return charged True if this call charged the run, false if `runRef` was charged before.
    function consumeQuery(bytes32 listingId, address buyer, bytes32 runRef, uint256 maxPrice)
        external
        onlyAuthority
        nonReentrant
        returns (bool charged)
    {
        Tab memory tab = _openTab();
        (bytes4 outcome, uint256 arg0, uint256 arg1) = _charge(tab, listingId, buyer, runRef, maxPrice);
        if (outcome == CHARGED) {
            _settleTab(tab);
            return true;
        }
        if (outcome != bytes4(0)) _revertWith(outcome, arg0, arg1);
    }

    /// @notice Charges a batch of runs, each exactly as consumeQuery would (as Marketplace.consumeQueries):
    /// QueryConsumed per charge, QueryRefused per refusal, a run charged before skipped silently.
    /// @dev Authority only; reverts Unauthorized, Reentrancy.
    /// @param charges The runs to charge, in order.
    /// @return chargedCount How many runs this call charged.
    function consumeQueries(Charge[] calldata charges) external onlyAuthority nonReentrant returns (uint256 chargedCount) {
        Tab memory tab = _openTab();
        uint256 length = charges.length;
        for (uint256 i = 0; i < length; ++i) {
            Charge calldata c = charges[i];
            (bytes4 outcome,,) = _charge(tab, c.listingId, c.buyer, c.runRef, c.maxPrice);
            if (outcome == CHARGED) ++chargedCount;
            else if (outcome != bytes4(0)) emit Marketplace.QueryRefused(c.listingId, c.buyer, c.runRef, outcome);
        }
        _settleTab(tab);
    }

    /// @notice Settles a batch of x402 payments. Each moves `value` from its payer to this contract through
    /// the listing's token's transferWithAuthorization (EIP-3009, signed by the payer to this contract),
    /// credits the listing's escrow with value - fee and the token's fees with the fee. The token's nonce
    /// is what keeps a payment from settling twice: a payment settles once, whoever submits it again, and
    /// its `runRef` names the run it paid for (it is not marked charged: isRunCharged and the charge
    /// functions concern per-task balances; decision 0274). A payment whose listing is missing, closed or
    /// not per_query, whose token is not allowed, whose value is not the listing's price, or whose transfer
    /// fails (a used nonce included) is refused with PaymentRefused and moves nothing; the batch goes on.
    /// Each group's settled payments are counted together in one PaymentsSettled, after its refusals.
    /// A paused listing or protocol still settles (the runs were admitted before).
    /// @dev Authority only; reverts Unauthorized, Reentrancy, MalformedBatch (the batch is not whole
    /// groups), TransferShortfall (a token delivered less than the batch's transfers asked: the whole batch
    /// is undone; take such a token off the allowlist).
    /// The batch is packed, not ABI-encoded (calldata is most of a payment's gas beside the token's own
    /// work; decision 0256): a sequence of groups, each a header of listingId (32 bytes), value (32, the
    /// amount every payment of the group signed) and count (2, at least 1), then `count` payments of 135
    /// bytes: payer (20), validAfter (5), validBefore (5), nonce (32), runRef (8: x402 runs have dense
    /// references, below 2^64; read only into PaymentRefused), r (32), s (32), v (1).
    /// All big-endian; src/chain/settle-payments.ts's settlePaymentsData writes it.
    /// @param batch The groups, in order.
    /// @return settledCount How many payments settled.
    function settlePayments(bytes calldata batch)
        external
        onlyAuthority
        nonReentrant
        returns (uint256 settledCount)
    {
        Tab memory tab = _openTab();
        uint256 length = batch.length;
        uint256 offset = 0;
        while (offset < length) {
            if (length - offset < GROUP_HEADER_BYTES) revert MalformedBatch(offset);
            bytes32 listingId;
            uint256 value;
            uint256 count;
            uint256 first;
            // solhint-disable-next-line no-inline-assembly
            assembly ("memory-safe") {
                let header := add(batch.offset, offset)
                listingId := calldataload(header)
                value := calldataload(add(header, 32))
                count := shr(240, calldataload(add(header, 64)))
                first := add(header, GROUP_HEADER_BYTES)
            }
            uint256 size = count * PAYMENT_BYTES;
            if (count == 0 || length - offset - GROUP_HEADER_BYTES < size) revert MalformedBatch(offset);
            settledCount += _settleGroup(tab, listingId, value, first, first + size);
            offset += GROUP_HEADER_BYTES + size;
        }
        _settleTab(tab);
    }

    /// @notice Pays the accrued protocol fees in `token` to the fee recipient. Works while paused.
    /// @dev Fee recipient or authority only; reverts Unauthorized, NothingToWithdraw, Reentrancy.
    /// @param token The token.
    function withdrawFees(address token) external nonReentrant {
        address recipient = feeRecipient;
        if (msg.sender != recipient && msg.sender != authority) revert Marketplace.Unauthorized();
        uint256 amount = accruedFees[token];
        if (amount == 0) revert Marketplace.NothingToWithdraw();
        accruedFees[token] = 0;
        emit TokenFeesWithdrawn(token, recipient, amount);
        IERC20(token).safeTransfer(recipient, amount);
    }

    /// @notice Puts a token on the allowlist or takes it off. Off the list, a token takes no new listing,
    /// purchase, top-up or x402 payment; what is inside already (escrows, balances, fees) still charges
    /// and withdraws. Allow only plain ERC-20s: no fee on transfer, no rebasing, no hooks.
    /// @dev Authority only; reverts Unauthorized, ZeroAddress, UnsupportedToken (decimals unreadable or
    /// above 36).
    /// @param token The token.
    /// @param allowed Whether it is allowed.
    function setTokenAllowed(address token, bool allowed) external onlyAuthority {
        if (token == address(0)) revert Marketplace.ZeroAddress();
        TokenTerms storage terms = tokenTerms[token];
        if (allowed && terms.decimals == 0 && terms.minPrice == 0) {
            uint8 decimals;
            try IERC20Metadata(token).decimals() returns (uint8 d) {
                decimals = d;
            } catch {
                revert UnsupportedToken(token);
            }
            if (decimals > 36) revert UnsupportedToken(token);
            terms.decimals = decimals;
            terms.minPrice = uint96(decimals > 6 ? 10 ** (decimals - 6) : 1);
        }
        terms.allowed = allowed;
        emit TokenAllowedSet(token, allowed, terms.minPrice);
    }

    /// @notice Sets the protocol fee for later purchases, charges and payments, in every token.
    /// @dev Authority only; reverts Unauthorized, FeeTooHigh.
    /// @param newFeeBasisPoints The fee in basis points, at most 1000.
    function setFeeBasisPoints(uint256 newFeeBasisPoints) external onlyAuthority {
        if (newFeeBasisPoints > MAX_FEE_BASIS_POINTS) {
            revert Marketplace.FeeTooHigh(newFeeBasisPoints, MAX_FEE_BASIS_POINTS);
        }
        emit Marketplace.FeeBasisPointsSet(feeBasisPoints, newFeeBasisPoints);
        feeBasisPoints = uint16(newFeeBasisPoints);
    }

    /// @notice Sets the fee recipient.
    /// @dev Authority only; reverts Unauthorized, ZeroAddress.
    /// @param newFeeRecipient The new recipient.
    function setFeeRecipient(address newFeeRecipient) external onlyAuthority {
        if (newFeeRecipient == address(0)) revert Marketplace.ZeroAddress();
        emit Marketplace.FeeRecipientSet(feeRecipient, newFeeRecipient);
        feeRecipient = newFeeRecipient;
    }

    /// @notice Pauses or unpauses the protocol (as Marketplace.setPaused).
    /// @dev Authority only; reverts Unauthorized.
    /// @param newPaused The new state.
    function setPaused(bool newPaused) external onlyAuthority {
        paused = newPaused;
        emit Marketplace.PausedSet(newPaused);
    }

    /// @notice Proposes a successor for the authority role (as Marketplace.transferAuthority).
    /// @dev Authority only; reverts Unauthorized, ZeroAddress.
    /// @param newAuthority The proposed authority.
    function transferAuthority(address newAuthority) external onlyAuthority {
        if (newAuthority == address(0)) revert Marketplace.ZeroAddress();
        pendingAuthority = newAuthority;
        emit Marketplace.AuthorityTransferStarted(authority, newAuthority);
    }

    /// @notice Completes an authority transfer.
    /// @dev Pending authority only; reverts Unauthorized.
    function acceptAuthority() external {
        address newAuthority = pendingAuthority;
        if (msg.sender != newAuthority) revert Marketplace.Unauthorized();
        emit Marketplace.AuthorityTransferred(authority, newAuthority);
        authority = newAuthority;
        pendingAuthority = address(0);
    }

    /*//////////////////////////////////////////////////////////////
                                 VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @notice The spec's validity rule, as Marketplace.isCredentialValid.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @return valid Whether the renter may run the agent now.
    function isCredentialValid(bytes32 listingId, address buyer) external view returns (bool valid) {
        return credentialStatus(listingId, buyer) == Marketplace.CredentialStatus.Active;
    }

    /// @notice The renter's access as the API names it, as Marketplace.credentialStatus.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @return status The status.
    function credentialStatus(bytes32 listingId, address buyer) public view returns (Marketplace.CredentialStatus status) {
        Listing storage listing = listings[listingId];
        Marketplace.ListingStatus listingStatus = listing.status;
        if (listingStatus == Marketplace.ListingStatus.None) return Marketplace.CredentialStatus.NotFound;
        if (listing.accessType == Marketplace.AccessType.PerQuery) {
            Marketplace.PerQueryBalance storage record = _perQueryBalances[listingId][buyer];
            if (record.purchasedAt == 0) return Marketplace.CredentialStatus.NotFound;
            if (listingStatus == Marketplace.ListingStatus.Closed) return Marketplace.CredentialStatus.ListingClosed;
            if (record.isRevoked) return Marketplace.CredentialStatus.Revoked;
            if (record.withdrawalRequested || record.balance < listing.price) return Marketplace.CredentialStatus.LowBalance;
            return Marketplace.CredentialStatus.Active;
        }
        Marketplace.AccessCredential storage credential = credentials[listingId][buyer];
        if (credential.buyer == address(0)) return Marketplace.CredentialStatus.NotFound;
        if (listingStatus == Marketplace.ListingStatus.Closed) return Marketplace.CredentialStatus.ListingClosed;
        if (credential.isRevoked) return Marketplace.CredentialStatus.Revoked;
        if (credential.accessType == Marketplace.AccessType.Subscription && block.timestamp >= credential.expiresAt) {
            return Marketplace.CredentialStatus.Expired;
        }
        return Marketplace.CredentialStatus.Active;
    }

    /// @notice Everything the API reports about a renter's access, as Marketplace.credentialOf, plus the
    /// listing's token.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @return status As `credentialStatus`.
    /// @return accessType The listing's rental model.
    /// @return purchasedAt When the credential was bought (0 if none).
    /// @return expiresAt A subscription's expiry (0 otherwise).
    /// @return balance A per_query balance (0 otherwise), in token units.
    /// @return isRevoked Whether the creator revoked it.
    /// @return token The listing's token (zero when no listing exists).
    function credentialOf(bytes32 listingId, address buyer)
        external
        view
        returns (
            Marketplace.CredentialStatus status,
            Marketplace.AccessType accessType,
            uint40 purchasedAt,
            uint40 expiresAt,
            uint128 balance,
            bool isRevoked,
            address token
        )
    {
        status = credentialStatus(listingId, buyer);
        Listing storage listing = listings[listingId];
        accessType = listing.accessType;
        token = listing.token;
        if (accessType == Marketplace.AccessType.PerQuery) {
            Marketplace.PerQueryBalance storage record = _perQueryBalances[listingId][buyer];
            return (status, accessType, record.purchasedAt, 0, record.balance, record.isRevoked, token);
        }
        Marketplace.AccessCredential storage credential = credentials[listingId][buyer];
        return (status, accessType, credential.purchasedAt, credential.expiresAt, 0, credential.isRevoked, token);
    }

    /// @notice A per_query rental's record, by listing id and buyer (as Marketplace.perQueryBalances).
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @return balance The prepaid balance.
    /// @return purchasedAt When the rental was bought (0: none).
    /// @return isRevoked Whether the creator revoked it.
    /// @return depositPrice The listing price when the renter last deposited.
    /// @return withdrawalRequested Whether the renter asked to take the balance back.
    /// @return chargeCapped Whether the renter set a charge cap on the listing.
    function perQueryBalances(bytes32 listingId, address buyer)
        external
        view
        returns (
            uint96 balance,
            uint40 purchasedAt,
            bool isRevoked,
            uint96 depositPrice,
            bool withdrawalRequested,
            bool chargeCapped
        )
    {
        Marketplace.PerQueryBalance storage record = _perQueryBalances[listingId][buyer];
        depositPrice = uint96(ChargeCapRules.depositPrice(record, _chargeCaps[listingId][buyer]));
        return (record.balance, record.purchasedAt, record.isRevoked, depositPrice, record.withdrawalRequested, record.chargeCapped);
    }

    /// @notice A renter's charge cap on a listing (as Marketplace.chargeCaps; all zero when none).
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @return amount The most charged per period.
    /// @return period The period in seconds.
    /// @return periodStart The stored period's start.
    /// @return baseline The balance plus what the stored period has charged.
    function chargeCaps(bytes32 listingId, address buyer)
        external
        view
        returns (uint88 amount, uint24 period, uint40 periodStart, uint104 baseline)
    {
        return ChargeCapRules.report(_perQueryBalances[listingId][buyer], _chargeCaps[listingId][buyer]);
    }

    /// @notice Whether a run reference was charged, by consumeQuery, consumeQueries or settlePayments.
    /// @param runRef The run reference.
    /// @return charged True once a charge or payment of `runRef` landed.
    function isRunCharged(bytes32 runRef) external view returns (bool charged) {
        uint256 ref = uint256(runRef);
        if (ref >= DENSE_RUN_REFS) return _hashedRunMarks[runRef];
        return chargedRuns[ref >> 8] & (1 << (ref & 255)) != 0;
    }

    /// @notice The units a subscription purchase or renewal of `durationSeconds` costs at the current price.
    /// @dev Reverts ListingNotFound, InvalidAccessType, InvalidDuration.
    /// @param listingId The listing.
    /// @param durationSeconds 2592000, 7776000 or 31536000.
    /// @return cost price * durationSeconds / 30 days, rounded down.
    function subscriptionPrice(bytes32 listingId, uint256 durationSeconds) external view returns (uint256 cost) {
        Listing storage listing = listings[listingId];
        if (listing.status == Marketplace.ListingStatus.None) revert Marketplace.ListingNotFound();
        if (listing.accessType != Marketplace.AccessType.Subscription) revert Marketplace.InvalidAccessType();
        return _subscriptionCost(listing.price, durationSeconds);
    }

    /// @notice What the creator may withdraw from a listing's escrow now (as Marketplace).
    /// @param listingId The listing.
    /// @return amount The units withdrawEarnings would accept.
    function withdrawableEarnings(bytes32 listingId) external view returns (uint256 amount) {
        Listing storage listing = listings[listingId];
        amount = listing.escrow;
        if (listing.accessType == Marketplace.AccessType.Subscription) {
            (Marketplace.Vesting memory v,) = _vestingNow(listingId);
            amount -= v.unvested;
        }
    }

    /// @notice A subscription listing's escrow not vested yet, now.
    /// @param listingId The listing.
    /// @return amount The units of its escrow that withdrawals must leave.
    function unvestedEarnings(bytes32 listingId) external view returns (uint256 amount) {
        (Marketplace.Vesting memory v,) = _vestingNow(listingId);
        return v.unvested;
    }

    /// @notice A token listing's id: keccak256(abi.encodePacked(LISTING_ID_DOMAIN, creator, seed)).
    /// @param creator The creator.
    /// @param seed The seed.
    /// @return listingId The id.
    function listingIdOf(address creator, bytes32 seed) public pure returns (bytes32 listingId) {
        return keccak256(abi.encodePacked(LISTING_ID_DOMAIN, creator, seed));
    }

    /*//////////////////////////////////////////////////////////////
                               INTERNALS
    //////////////////////////////////////////////////////////////*/

    /// @dev A purchase's effects, the rules of Marketplace's purchase functions, for the caller: checks,
    /// the credential or balance written, escrow, fee and vesting, the event. Returns the token and the
    /// amount the caller then pays in (interactions last; the call is nonReentrant).
    function _buy(Purchase kind, bytes32 listingId, uint256 arg) private returns (address token, uint256 amount) {
        Listing storage listing;
        if (kind == Purchase.TopUp) {
            listing = _topUpListing(listingId);
        } else {
            Marketplace.AccessType accessType = kind == Purchase.OneTime
                ? Marketplace.AccessType.OneTime
                : kind == Purchase.PerQuery ? Marketplace.AccessType.PerQuery : Marketplace.AccessType.Subscription;
            listing = _purchasableListing(listingId, accessType);
        }
        token = listing.token;
        if (!tokenTerms[token].allowed) revert TokenNotAllowed(token);
        if (kind == Purchase.PerQuery || kind == Purchase.TopUp) {
            amount = arg;
            _deposit(listing, listingId, kind == Purchase.TopUp, amount);
        } else if (kind == Purchase.OneTime) {
            Marketplace.AccessCredential storage credential = credentials[listingId][msg.sender];
            _checkNoCredential(credential);
            amount = listing.price;
            credential.buyer = msg.sender;
            credential.purchasedAt = uint40(block.timestamp);
            credential.accessType = Marketplace.AccessType.OneTime;
            emit Marketplace.OneTimePurchased(listingId, msg.sender, amount, _collect(listing, amount));
        } else {
            amount = _subscriptionCost(listing.price, arg);
            _subscribe(listing, listingId, kind == Purchase.Renewal, arg, amount);
        }
    }

    /// @dev A subscription purchase (`renewal` false) or renewal's effects, as Marketplace's.
    function _subscribe(Listing storage listing, bytes32 listingId, bool renewal, uint256 durationSeconds, uint256 cost)
        private
    {
        Marketplace.AccessCredential storage credential = credentials[listingId][msg.sender];
        uint256 paidFrom = block.timestamp;
        uint256 maxExpiresAt = MAX_EXPIRY;
        if (renewal) {
            if (credential.buyer == address(0)) revert Marketplace.CredentialNotFound();
            if (credential.isRevoked) revert Marketplace.CredentialRevoked();
            uint256 currentExpiry = credential.expiresAt;
            if (currentExpiry > block.timestamp) paidFrom = currentExpiry;
            if (block.timestamp + MAX_PREPAID < MAX_EXPIRY) maxExpiresAt = block.timestamp + MAX_PREPAID;
        } else {
            _checkNoCredential(credential);
        }
        uint256 expiresAt = paidFrom + durationSeconds;
        if (expiresAt > maxExpiresAt) revert Marketplace.ExpiryTooLate(expiresAt, maxExpiresAt);
        if (!renewal) {
            credential.buyer = msg.sender;
            credential.purchasedAt = uint40(block.timestamp);
            credential.accessType = Marketplace.AccessType.Subscription;
        }
        credential.expiresAt = uint40(expiresAt);
        uint256 fee = _collect(listing, cost);
        _vest(listingId, cost - fee, paidFrom, expiresAt);
        if (renewal) emit Marketplace.SubscriptionRenewed(listingId, msg.sender, durationSeconds, cost, fee, expiresAt);
        else emit Marketplace.SubscriptionPurchased(listingId, msg.sender, durationSeconds, cost, fee, expiresAt);
    }

    /// @dev A per_query purchase (`topUp` false) or top-up's effects, as Marketplace's.
    function _deposit(Listing storage listing, bytes32 listingId, bool topUp, uint256 amount) private {
        Marketplace.PerQueryBalance storage record = _perQueryBalances[listingId][msg.sender];
        if (topUp) {
            if (record.purchasedAt == 0) revert Marketplace.CredentialNotFound();
            if (record.isRevoked) revert Marketplace.CredentialRevoked();
        } else if (record.purchasedAt != 0) {
            if (record.isRevoked) revert Marketplace.CredentialRevoked();
            revert Marketplace.CredentialAlreadyExists();
        }
        uint256 price = listing.price;
        if (amount < price) revert Marketplace.DepositTooLow(amount, price);
        uint256 newBalance = record.balance + amount;
        if (newBalance > MAX_BALANCE) revert Marketplace.BalanceTooLarge(newBalance, MAX_BALANCE);
        record.balance = uint96(newBalance);
        // A capped renter's deposit price is in the cap's slot (ChargeCapRules); a purchase has no cap.
        if (record.chargeCapped) _chargeCaps[listingId][msg.sender].depositPrice = uint96(price);
        else record.depositPrice = uint96(price);
        if (topUp) {
            record.withdrawalRequested = false;
            emit Marketplace.BalanceToppedUp(listingId, msg.sender, amount, newBalance);
        } else {
            record.purchasedAt = uint40(block.timestamp);
            emit Marketplace.PerQueryPurchased(listingId, msg.sender, amount);
        }
    }

    /// @dev Takes `amount` of `token` from the caller's allowance, checking what arrived.
    function _pullFrom(address token, uint256 amount) private {
        uint256 held = IERC20(token).balanceOf(address(this));
        IERC20(token).safeTransferFrom(msg.sender, address(this), amount);
        _checkReceived(token, held, amount);
    }

    /// @dev Applies the caller's EIP-2612 permit, then takes `amount`. A permit that fails (one a watcher
    /// submitted first, say) is no error while the allowance it would have set covers the amount.
    function _pullWithPermit(address token, uint256 amount, Permit calldata permit) private {
        if (permit.value < amount) revert AuthorizationMismatch(amount, permit.value);
        /* solhint-disable no-empty-blocks */
        try IERC20Permit(token).permit(
            msg.sender, address(this), permit.value, permit.deadline, permit.v, permit.r, permit.s
        ) {} catch {
            if (IERC20(token).allowance(msg.sender, address(this)) < amount) revert AuthorizationFailed();
        }
        /* solhint-enable no-empty-blocks */
        _pullFrom(token, amount);
    }

    /// @dev Takes `amount` by the caller's EIP-3009 ReceiveWithAuthorization. Only the signer's own call
    /// uses it (the payer is msg.sender), so nobody else can spend the authorization on another purchase.
    function _pullWithAuthorization(address token, uint256 amount, Authorization calldata auth) private {
        if (auth.value != amount) revert AuthorizationMismatch(amount, auth.value);
        uint256 held = IERC20(token).balanceOf(address(this));
        IERC3009(token).receiveWithAuthorization(
            msg.sender, address(this), amount, auth.validAfter, auth.validBefore, auth.nonce, auth.v, auth.r, auth.s
        );
        _checkReceived(token, held, amount);
    }

    /// @dev Refuses a transfer in that delivered other than `expected` (fee-on-transfer, rebasing).
    function _checkReceived(address token, uint256 heldBefore, uint256 expected) private view {
        uint256 held = IERC20(token).balanceOf(address(this));
        uint256 received = held > heldBefore ? held - heldBefore : 0;
        if (received != expected) revert TransferShortfall(expected, received);
    }

    /// @dev The checks every purchase shares, cheapest first.
    function _purchasableListing(bytes32 listingId, Marketplace.AccessType accessType)
        private
        view
        returns (Listing storage listing)
    {
        if (paused) revert Marketplace.ProtocolPaused();
        listing = listings[listingId];
        Marketplace.ListingStatus status = listing.status;
        if (status == Marketplace.ListingStatus.None) revert Marketplace.ListingNotFound();
        if (status != Marketplace.ListingStatus.Active) revert Marketplace.ListingNotActive();
        if (listing.accessType != accessType) revert Marketplace.InvalidAccessType();
    }

    /// @dev A top-up's listing: exists, not closed, per_query (pauses do not stop top-ups).
    function _topUpListing(bytes32 listingId) private view returns (Listing storage listing) {
        listing = listings[listingId];
        Marketplace.ListingStatus status = listing.status;
        if (status == Marketplace.ListingStatus.None) revert Marketplace.ListingNotFound();
        if (status == Marketplace.ListingStatus.Closed) revert Marketplace.ListingNotActive();
        if (listing.accessType != Marketplace.AccessType.PerQuery) revert Marketplace.InvalidAccessType();
    }

    /// @dev A listing the caller created and has not closed.
    function _openListingOfCreator(bytes32 listingId) private view returns (Listing storage listing) {
        listing = listings[listingId];
        Marketplace.ListingStatus status = listing.status;
        if (status == Marketplace.ListingStatus.None) revert Marketplace.ListingNotFound();
        if (listing.creator != msg.sender) revert Marketplace.Unauthorized();
        if (status == Marketplace.ListingStatus.Closed) revert Marketplace.ListingNotActive();
    }

    function _checkListingTerms(uint256 price, uint256 minPrice, string calldata metadataUri) private pure {
        uint256 length = bytes(metadataUri).length;
        if (length == 0) revert Marketplace.MetadataUriEmpty();
        if (length > MAX_METADATA_URI_LENGTH) revert Marketplace.MetadataUriTooLong(length, MAX_METADATA_URI_LENGTH);
        if (price < minPrice) revert Marketplace.PriceTooLow(price, minPrice);
    }

    function _checkNoCredential(Marketplace.AccessCredential storage credential) private view {
        if (credential.buyer != address(0)) {
            if (credential.isRevoked) revert Marketplace.CredentialRevoked();
            revert Marketplace.CredentialAlreadyExists();
        }
    }

    function _subscriptionCost(uint256 price, uint256 durationSeconds) private pure returns (uint256) {
        if (durationSeconds != 30 days && durationSeconds != 90 days && durationSeconds != 365 days) {
            revert Marketplace.InvalidDuration(durationSeconds);
        }
        return (price * durationSeconds) / SUBSCRIPTION_PERIOD;
    }

    /// @dev Splits `amount` into the protocol fee (in the listing's token) and the listing's escrow.
    function _collect(Listing storage listing, uint256 amount) private returns (uint256 fee) {
        fee = (amount * feeBasisPoints) / BASIS_POINTS;
        accruedFees[listing.token] += fee;
        // Cannot overflow: the escrow is bounded by the token units the contract holds for it.
        listing.escrow += uint128(amount - fee);
    }

    /// @dev A listing's vesting as of now: every VestingDay after `updatedAt` and not after now is applied
    /// in day order (found through vestingDayBits), the rate running between them, then to now. Returns
    /// whether a day was applied, so a caller that writes stores the result only then. The days it reads
    /// are bounded: every VestingDay lies within MAX_PREPAID + VESTING_DAY of the write that made it, and
    /// the walk stops once nothing is vesting, so at most about 400 days (two or three words of bits).
    function _vestingNow(bytes32 listingId) private view returns (Marketplace.Vesting memory v, bool applied) {
        v = vestings[listingId];
        uint256 t = v.updatedAt;
        uint256 unvested = v.unvested;
        uint256 rate = v.rate;
        uint256 first = t / VESTING_DAY + 1; // the first day that begins after updatedAt
        uint256 last = block.timestamp / VESTING_DAY; // the last day that has begun
        for (uint256 word = first >> 8; word <= last >> 8 && (unvested != 0 || rate != 0); ++word) {
            uint256 bits = vestingDayBits[listingId][word];
            if (word == first >> 8) bits &= type(uint256).max << (first & 255);
            if (word == last >> 8) bits &= type(uint256).max >> (255 - (last & 255));
            while (bits != 0) {
                uint256 day = (word << 8) | _lowestBit(bits);
                bits &= bits - 1;
                uint256 boundary = day * VESTING_DAY;
                unvested -= rate * (boundary - t);
                t = boundary;
                Marketplace.VestingDay storage change = vestingDays[listingId][day];
                rate = uint256(int256(rate) + change.rateChange);
                unvested -= change.remainder;
                applied = true;
            }
        }
        unvested -= rate * (block.timestamp - t);
        // Cannot truncate: both only fell from the stored values.
        v = Marketplace.Vesting(uint128(unvested), uint88(rate), uint40(block.timestamp));
    }

    /// @dev The listing's unvested escrow now, storing its vesting when a day was applied.
    function _syncVesting(bytes32 listingId) private returns (uint256 unvested) {
        (Marketplace.Vesting memory v, bool applied) = _vestingNow(listingId);
        if (applied) vestings[listingId] = v;
        return v.unvested;
    }

    /// @dev Adds a subscription payment's escrow share `amount`, paid for [paidFrom, paidUntil), to the
    /// listing's vesting (see Vesting): it vests from now, or from the first day boundary at or after
    /// paidFrom when that is later, to the first day boundary at or after paidUntil. Rounding the period
    /// out and the rate down only ever vests later than the paid time elapses, never earlier.
    function _vest(bytes32 listingId, uint256 amount, uint256 paidFrom, uint256 paidUntil) private {
        (Marketplace.Vesting memory v,) = _vestingNow(listingId);
        uint256 endDay = (paidUntil + VESTING_DAY - 1) / VESTING_DAY;
        uint256 start = paidFrom > block.timestamp ? ((paidFrom + VESTING_DAY - 1) / VESTING_DAY) * VESTING_DAY : block.timestamp;
        uint256 span = endDay * VESTING_DAY - start;
        uint256 rate = amount / span;
        // Cannot truncate: amount is below 2^100 (a price below 2^96 times at most 365/30), so rate is
        // below 2^79 (span is at least 29 days), and both sums stay below the ETH the contract holds.
        if (start == block.timestamp) v.rate += uint88(rate);
        else _vestingDay(listingId, start / VESTING_DAY, int128(int256(rate)), 0);
        _vestingDay(listingId, endDay, -int128(int256(rate)), amount - rate * span);
        v.unvested += uint128(amount);
        vestings[listingId] = v;
    }

    function _vestingDay(bytes32 listingId, uint256 day, int128 rateChange, uint256 remainder) private {
        Marketplace.VestingDay storage change = vestingDays[listingId][day];
        change.rateChange += rateChange;
        // Cannot truncate: a remainder is below the span, 2^26 seconds.
        change.remainder += uint128(remainder);
        vestingDayBits[listingId][day >> 8] |= 1 << (day & 255);
    }

    /// @dev The index of the lowest set bit of `x` (nonzero). A binary search: eight comparisons. Solady's
    /// LibBit.ffs does this with a de Bruijn table; the contract takes no library for one function.
    function _lowestBit(uint256 x) private pure returns (uint256 index) {
        x &= ~x + 1;
        if (x >> 128 != 0) (x, index) = (x >> 128, index + 128);
        if (x >> 64 != 0) (x, index) = (x >> 64, index + 64);
        if (x >> 32 != 0) (x, index) = (x >> 32, index + 32);
        if (x >> 16 != 0) (x, index) = (x >> 16, index + 16);
        if (x >> 8 != 0) (x, index) = (x >> 8, index + 8);
        if (x >> 4 != 0) (x, index) = (x >> 4, index + 4);
        if (x >> 2 != 0) (x, index) = (x >> 2, index + 2);
        if (x >> 1 != 0) ++index;
    }

    /// @dev The caller's per_query record on `listingId` and its balance, checked as both exits check it.
    function _ownBalance(bytes32 listingId)
        private
        view
        returns (Listing storage listing, Marketplace.PerQueryBalance storage record, uint256 balance)
    {
        listing = listings[listingId];
        if (listing.status == Marketplace.ListingStatus.None) revert Marketplace.ListingNotFound();
        if (listing.accessType != Marketplace.AccessType.PerQuery) revert Marketplace.InvalidAccessType();
        record = _perQueryBalances[listingId][msg.sender];
        if (record.purchasedAt == 0) revert Marketplace.CredentialNotFound();
        balance = record.balance;
        if (balance == 0) revert Marketplace.NothingToWithdraw();
    }

    /// @dev Whether a renter may leave with the balance (as Marketplace._mayLeave).
    function _mayLeave(bytes32 listingId, Listing storage listing, Marketplace.PerQueryBalance storage record, uint256 balance)
        private
        view
        returns (bool)
    {
        uint256 price = listing.price;
        return listing.status != Marketplace.ListingStatus.Active || record.isRevoked
            || price > ChargeCapRules.depositPrice(record, _chargeCaps[listingId][msg.sender]) || balance < price;
    }

    /// @dev One run's charge, the one path of consumeQuery and consumeQueries (as Marketplace._charge; the
    /// smallest admitted price is 1 unit, the tokens' minimum prices differ).
    function _charge(Tab memory tab, bytes32 listingId, address buyer, bytes32 runRef, uint256 maxPrice)
        private
        returns (bytes4 outcome, uint256 arg0, uint256 arg1)
    {
        if (_isCharged(tab, runRef)) return (bytes4(0), 0, 0);
        if (maxPrice == 0) return (Marketplace.PriceTooLow.selector, 0, 1);
        _tabListing(tab, listingId);
        if (tab.status == Marketplace.ListingStatus.None) return (Marketplace.ListingNotFound.selector, 0, 0);
        if (tab.status == Marketplace.ListingStatus.Closed) return (Marketplace.ListingNotActive.selector, 0, 0);
        if (tab.accessType != Marketplace.AccessType.PerQuery) return (Marketplace.InvalidAccessType.selector, 0, 0);
        _tabRecord(tab, buyer);
        if (tab.purchasedAt == 0) return (Marketplace.CredentialNotFound.selector, 0, 0);
        if (tab.isRevoked) return (Marketplace.CredentialRevoked.selector, 0, 0);
        uint256 price = tab.price;
        if (price > maxPrice) price = maxPrice;
        if (price > tab.depositPrice) price = tab.depositPrice;
        uint256 balance = tab.balance;
        if (balance < price) return (Marketplace.InsufficientBalance.selector, balance, price);
        if (tab.capped) {
            if (ChargeCapRules.refuses(tab.capAmount, tab.capSpent, price)) {
                return (Marketplace.ChargeCapExceeded.selector, tab.capSpent, tab.capAmount);
            }
            tab.capSpent += price;
            tab.capChanged = true;
        }
        _markCharged(tab, runRef);
        balance -= price;
        tab.balance = balance;
        tab.balanceChanged = true;
        uint256 fee = _tabFee(tab, price, 1);
        emit Marketplace.QueryConsumed(listingId, buyer, runRef, price, fee, balance);
        return (CHARGED, 0, 0);
    }

    /// @dev Settles the payments of one settlePayments group, at calldata [cursor, end) (135 bytes each),
    /// in order, in assembly (this loop is the marketplace's share of a payment's gas): with a group
    /// refusal, each payment is refused with it; else each payment's transfer is called and a failure
    /// refused AuthorizationFailed. The settled ones are counted in the group's PaymentsSettled, emitted
    /// after the loop. Returns how many settled.
    // One loop over the group's payments, in assembly for gas (decision 0256): split, it would pay for the calls.
    // solhint-disable-next-line function-max-lines
    function _settleGroup(Tab memory tab, bytes32 listingId, uint256 value, uint256 cursor, uint256 end)
        private
        returns (uint256 settled)
    {
        bytes4 refusal = _groupRefusal(tab, listingId, value);
        address token = tab.token;
        bytes4 selector = IERC3009.transferWithAuthorization.selector;
        bytes32 refusedTopic = PaymentRefused.selector;
        bytes4 failed = AuthorizationFailed.selector;
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            switch refusal
            case 0 {
                // The token call, built past the free memory pointer (scratch, never allocated): the
                // selector, then from, to, value, validAfter, validBefore, nonce, v, r, s.
                let transferCall := mload(0x40)
                mstore(transferCall, selector)
                mstore(add(transferCall, 0x24), address())
                mstore(add(transferCall, 0x44), value)
                for {} lt(cursor, end) { cursor := add(cursor, PAYMENT_BYTES) } {
                    let head := calldataload(cursor)
                    mstore(add(transferCall, 0x04), shr(96, head))
                    mstore(add(transferCall, 0x64), and(shr(56, head), 0xffffffffff))
                    mstore(add(transferCall, 0x84), and(shr(16, head), 0xffffffffff))
                    mstore(add(transferCall, 0xa4), calldataload(add(cursor, 30)))
                    mstore(add(transferCall, 0xc4), byte(0, calldataload(add(cursor, 134))))
                    mstore(add(transferCall, 0xe4), calldataload(add(cursor, 70)))
                    mstore(add(transferCall, 0x104), calldataload(add(cursor, 102)))
                    let ok := call(gas(), token, 0, transferCall, 0x124, 0, 0)
                    settled := add(settled, ok)
                    if iszero(ok) {
                        mstore(0, failed)
                        log4(0, 0x20, refusedTopic, listingId, shr(96, head), shr(192, calldataload(add(cursor, 62))))
                    }
                }
            }
            default {
                mstore(0, refusal)
                for {} lt(cursor, end) { cursor := add(cursor, PAYMENT_BYTES) } {
                    log4(0, 0x20, refusedTopic, listingId, shr(96, calldataload(cursor)), shr(192, calldataload(add(cursor, 62))))
                }
            }
        }
        if (settled != 0) {
            tab.received += value * settled;
            emit PaymentsSettled(listingId, value, _tabFee(tab, value, settled), settled);
        }
    }

    /// @dev Why every payment of a group is refused, or zero: the group's listing (loaded into the tab,
    /// with its token) must exist, be open and per_query, its token allowed, and `value` its price.
    function _groupRefusal(Tab memory tab, bytes32 listingId, uint256 value) private returns (bytes4) {
        _tabListing(tab, listingId);
        if (tab.status == Marketplace.ListingStatus.None) return Marketplace.ListingNotFound.selector;
        if (tab.status == Marketplace.ListingStatus.Closed) return Marketplace.ListingNotActive.selector;
        if (tab.accessType != Marketplace.AccessType.PerQuery) return Marketplace.InvalidAccessType.selector;
        if (!tab.tokenLoaded) {
            tab.tokenLoaded = true;
            tab.tokenAllowed = tokenTerms[tab.token].allowed;
            if (tab.tokenAllowed) tab.heldBefore = IERC20(tab.token).balanceOf(address(this));
        }
        if (!tab.tokenAllowed) return TokenNotAllowed.selector;
        if (value != tab.price) return Marketplace.IncorrectPayment.selector;
        return bytes4(0);
    }

    /// @dev Splits `count` charges or payments of `amount` each into the tab's fees and escrow; returns the
    /// fee of one.
    function _tabFee(Tab memory tab, uint256 amount, uint256 count) private view returns (uint256 fee) {
        // The fee rate is read at the first charge of the call, not before.
        if (tab.feeBasisPoints == FEE_NOT_READ) tab.feeBasisPoints = feeBasisPoints;
        fee = (amount * tab.feeBasisPoints) / BASIS_POINTS;
        tab.feesAdded += fee * count;
        tab.escrowAdded += (amount - fee) * count;
    }

    function _openTab() private pure returns (Tab memory tab) {
        tab.feeBasisPoints = FEE_NOT_READ;
    }

    /// @dev Makes `listingId` the tab's listing: the previous one's added escrow is written first, and
    /// when the token changes, the previous token's fees and received units are settled.
    function _tabListing(Tab memory tab, bytes32 listingId) private {
        if (tab.listingId == listingId && tab.status != Marketplace.ListingStatus.None) return;
        _settleRecord(tab);
        _settleEscrow(tab);
        Listing storage listing = listings[listingId];
        tab.listingId = listingId;
        tab.price = listing.price;
        tab.status = listing.status;
        tab.accessType = listing.accessType;
        address token = listing.token;
        if (token != tab.token) {
            _settleToken(tab);
            tab.token = token;
        }
    }

    /// @dev Makes `buyer`'s record on the tab's listing the tab's record.
    function _tabRecord(Tab memory tab, address buyer) private {
        if (tab.recordLoaded && tab.buyer == buyer) return;
        _settleRecord(tab);
        Marketplace.PerQueryBalance storage record = _perQueryBalances[tab.listingId][buyer];
        tab.buyer = buyer;
        tab.recordLoaded = true;
        tab.purchasedAt = record.purchasedAt;
        tab.isRevoked = record.isRevoked;
        tab.depositPrice = record.depositPrice;
        tab.balance = record.balance;
        tab.capped = record.chargeCapped;
        if (tab.capped) {
            (tab.capAmount, tab.depositPrice, tab.capSpent, tab.capNumber, tab.capChanged) =
                ChargeCapRules.load(_chargeCaps[tab.listingId][buyer], tab.depositPrice);
        }
    }

    function _settleRecord(Tab memory tab) private {
        if (tab.balanceChanged || tab.capChanged) {
            Marketplace.PerQueryBalance storage record = _perQueryBalances[tab.listingId][tab.buyer];
            record.balance = uint96(tab.balance);
            if (tab.capChanged) record.depositPrice = ChargeCapRules.pack(tab.capSpent, tab.capNumber);
            tab.balanceChanged = false;
            tab.capChanged = false;
        }
        tab.recordLoaded = false;
    }

    function _settleEscrow(Tab memory tab) private {
        if (tab.escrowAdded != 0) {
            // Cannot overflow: escrow is bounded by the token units the contract holds for it.
            listings[tab.listingId].escrow += uint128(tab.escrowAdded);
            tab.escrowAdded = 0;
        }
    }

    /// @dev Writes the tab's token's fees and checks the units its payments brought in arrived.
    function _settleToken(Tab memory tab) private {
        if (tab.feesAdded != 0) {
            accruedFees[tab.token] += tab.feesAdded;
            tab.feesAdded = 0;
        }
        if (tab.received != 0) {
            _checkReceived(tab.token, tab.heldBefore, tab.received);
            tab.received = 0;
        }
        tab.tokenLoaded = false;
    }

    /// @dev Writes what the tab holds: the run marks, the last record's balance, the last listing's
    /// escrow, the last token's fees.
    function _settleTab(Tab memory tab) private {
        _settleMarks(tab);
        _settleRecord(tab);
        _settleEscrow(tab);
        _settleToken(tab);
    }

    /// @dev Whether `runRef` was charged, in a charge or payment (as Marketplace._isCharged).
    function _isCharged(Tab memory tab, bytes32 runRef) private returns (bool) {
        uint256 ref = uint256(runRef);
        if (ref >= DENSE_RUN_REFS) return _hashedRunMarks[runRef];
        uint256 word = ref >> 8;
        if (!tab.marksLoaded || tab.marksWord != word) {
            _settleMarks(tab);
            tab.marksWord = word;
            tab.marks = chargedRuns[word];
            tab.marksLoaded = true;
        }
        return tab.marks & (1 << (ref & 255)) != 0;
    }

    /// @dev Marks `runRef` charged (as Marketplace._markCharged).
    function _markCharged(Tab memory tab, bytes32 runRef) private {
        uint256 ref = uint256(runRef);
        if (ref >= DENSE_RUN_REFS) {
            _hashedRunMarks[runRef] = true;
        } else {
            tab.marks |= 1 << (ref & 255);
            tab.marksChanged = true;
        }
    }

    function _settleMarks(Tab memory tab) private {
        if (tab.marksChanged) {
            chargedRuns[tab.marksWord] = tab.marks;
            tab.marksChanged = false;
        }
    }

    /// @dev Reverts with the custom error `_charge` refused a run with, and its arguments.
    function _revertWith(bytes4 refusal, uint256 arg0, uint256 arg1) private pure {
        if (refusal == Marketplace.InsufficientBalance.selector) revert Marketplace.InsufficientBalance(arg0, arg1);
        if (refusal == Marketplace.PriceTooLow.selector) revert Marketplace.PriceTooLow(arg0, arg1);
        if (refusal == Marketplace.ListingNotFound.selector) revert Marketplace.ListingNotFound();
        if (refusal == Marketplace.ListingNotActive.selector) revert Marketplace.ListingNotActive();
        if (refusal == Marketplace.InvalidAccessType.selector) revert Marketplace.InvalidAccessType();
        if (refusal == Marketplace.CredentialNotFound.selector) revert Marketplace.CredentialNotFound();
        if (refusal == Marketplace.ChargeCapExceeded.selector) revert Marketplace.ChargeCapExceeded(arg0, arg1);
        revert Marketplace.CredentialRevoked();
    }
}

// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import {ChargeCapRules} from "./ChargeCapRules.sol";

// 18 storage declarations, each one kind of record the marketplace keeps (docs/reference/contract.md,
// "Storage"); splitting them across contracts would add a call to every purchase and charge.
// solhint-disable max-states-count

/// @title Marketplace
/// @author Agent rental service
/// @notice Listings, rentals, escrow, fees, credentials and the run log of the agent marketplace.
/// Creators list agents; renters buy one-time, subscription or per-query (per-task) access with ETH;
/// the protocol authority settles per-query runs and logs run receipts as Merkle roots.
/// @dev Money model, in one sentence: every wei the contract holds is either a listing's escrow
/// (creator earnings), a renter's unspent per-query balance, or unclaimed protocol fees, and leaves only
/// through a pull withdrawal (withdrawEarnings, withdrawUnspentBalance, withdrawFees).
/// Prices per model: one_time pays `price` once; subscription pays `price` per 30 days, scaled by the
/// duration bought (`price * durationSeconds / 30 days`, rounded down); per_query debits `price` per
/// run through consumeQuery or consumeQueries, never more than the price the run was admitted at nor
/// the price the renter deposited at. Each subscription payment vests in escrow over its own paid
/// period; the creator withdraws only what has vested. The protocol fee (`amount * feeBasisPoints / 10_000`, rounded down) is
/// taken at purchase for one_time and subscription, and at each consumption for per_query: a
/// per-query deposit is the renter's money until a run consumes it.
contract Marketplace {
    /*//////////////////////////////////////////////////////////////
                                 TYPES
    //////////////////////////////////////////////////////////////*/

    /// @notice The three rental models, in the spec's order: one_time, subscription, per_query.
    enum AccessType {
        OneTime,
        Subscription,
        PerQuery
    }

    /// @notice Lifecycle of a listing. `None` means no listing exists at the id; `Closed` is final.
    enum ListingStatus {
        None,
        Active,
        Paused,
        Closed
    }

    /// @notice The state of a renter's access as the API reports it (`credentialStatus`).
    enum CredentialStatus {
        NotFound,
        Active,
        Expired,
        LowBalance,
        Revoked,
        ListingClosed
    }

    /// @notice A listing. Slot 0 holds everything a purchase reads and writes (price, escrow, model,
    /// status), so a purchase touches one listing slot.
    struct Listing {
        // slot 0 (240 bits)
        uint96 price;
        uint128 escrow;
        AccessType accessType;
        ListingStatus status;
        // slot 1 (200 bits)
        address creator;
        uint40 createdAt;
        // slot 2+
        string metadataUri;
    }

    /// @notice The fields of a run receipt in the run log (see runReceiptLeaf).
    // Never stored (calldata only); the field order is the leaf's encoding, so packing does not apply.
    // solhint-disable-next-line gas-struct-packing
    struct RunReceipt {
        bytes32 runId;
        bytes32 listingId;
        address renter;
        uint8 status;
        uint256 costWei;
        uint64 durationMs;
    }

    /// @notice One run's charge in a consumeQueries batch: the arguments consumeQuery takes.
    // Calldata only: the field order is the ABI the settler encodes, so packing does not apply.
    // solhint-disable-next-line gas-struct-packing
    struct Charge {
        bytes32 listingId;
        address buyer;
        bytes32 runRef;
        uint256 maxPrice;
    }

    /// @dev What a charge call holds in memory and writes once at its end (_settleTab): the listing and
    /// the renter's record the last charge read, the escrow and fees added since. A batch of one
    /// renter's runs thus reads and writes each slot once, not once per run.
    // Memory only: every field takes a word there whatever its type, so packing does not apply.
    // solhint-disable-next-line gas-struct-packing
    struct Tab {
        bytes32 listingId;
        uint256 price;
        ListingStatus status;
        AccessType accessType;
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
        bool capped;
        bool capChanged;
        uint256 capAmount;
        uint256 capSpent;
        uint256 capNumber;
    }

    /// @notice A one_time or subscription rental credential; exactly one storage slot.
    /// `buyer` is nonzero iff the credential exists. `expiresAt` is 0 for one_time; a subscription is
    /// valid while `block.timestamp < expiresAt`.
    // 160 + 40 + 40 + 8 + 8 = 256 bits: one slot. solhint's packing heuristic counts enums as full words.
    // solhint-disable-next-line gas-struct-packing
    struct AccessCredential {
        address buyer;
        uint40 purchasedAt;
        uint40 expiresAt;
        AccessType accessType;
        bool isRevoked;
    }

    /// @notice A per_query rental: the prepaid balance; exactly one storage slot.
    /// `purchasedAt` is nonzero iff the rental exists. `depositPrice` is the listing price when the
    /// renter last deposited (purchase or top-up): the price the renter agreed to, the most any run is
    /// charged (a price above it also lets the renter leave). `withdrawalRequested`: the renter asked to
    /// take the balance back (requestBalanceWithdrawal, at `withdrawalRequestedAt`); a top-up cancels it.
    /// `chargeCapped`: the renter set a charge cap on the listing (`chargeCaps`), read only when set; while
    /// it is set, `depositPrice` is in the cap's slot and this field holds the current period's charges and
    /// number instead (ChargeCapRules), so a charge under a cap writes only this slot.
    // 96 + 40 + 8 + 96 + 8 + 8 = 256 bits: one slot. A balance never passes MAX_BALANCE (BalanceTooLarge).
    struct PerQueryBalance {
        uint96 balance;
        uint40 purchasedAt;
        bool isRevoked;
        uint96 depositPrice;
        bool withdrawalRequested;
        bool chargeCapped;
    }

    /// @notice A renter's cap on what may be charged from its per-task balance on one listing per period:
    /// at most `amount` in each period of `period` seconds, the periods following one another from
    /// `periodStart` (when the cap was set, moved on by whole periods every 256 periods). `depositPrice` is
    /// the renter's deposit price while the cap is set; the current period's charges and number are in
    /// the renter's record (ChargeCapRules), so a charge reads this slot and writes nothing here.
    // 88 + 24 + 40 + 96 = 248 bits: one slot.
    struct ChargeCap {
        uint88 amount;
        uint24 period;
        uint40 periodStart;
        uint96 depositPrice;
    }

    /// @notice A subscription listing's vesting. Each payment's escrow share `a` vests linearly over its
    /// own paid period, rounded out to whole days (VESTING_DAY): from the payment (or, for a renewal of
    /// a running subscription, from the first day boundary at or after the current expiry) to the first
    /// day boundary at or after its expiry, `d` seconds, at `floor(a / d)` wei per second, the rest
    /// (`a mod d` wei and less) vesting at its end. This slot is the sum over the payments not yet fully
    /// vested, as of `updatedAt`: `unvested` wei, falling by `rate` wei per second until the next day
    /// at which a payment starts or ends vesting (a VestingDay, marked in `vestingDayBits`).
    /// Exact integers: the sum equals the payments' shares computed one by one, never less.
    struct Vesting {
        uint128 unvested;
        uint88 rate;
        uint40 updatedAt;
    }

    /// @notice What changes in a listing's vesting at the start of one day (at `day * VESTING_DAY`):
    /// payments that start vesting add their rate, payments that end remove it and their remainder.
    struct VestingDay {
        int128 rateChange;
        uint128 remainder;
    }

    /*//////////////////////////////////////////////////////////////
                                 ERRORS
    //////////////////////////////////////////////////////////////*/

    /// @notice The listing is paused (or closed) and refuses this operation.
    error ListingNotActive();
    /// @notice No listing exists at this id.
    error ListingNotFound();
    /// @notice A listing with this creator and seed exists already.
    error ListingAlreadyExists();
    /// @notice The wallet holds no credential for the listing.
    error CredentialNotFound();
    /// @notice The wallet already holds a credential for the listing.
    error CredentialAlreadyExists();
    /// @notice The per-query balance cannot cover one run at the listing price.
    /// @param balance The renter's balance.
    /// @param price The listing price per run.
    error InsufficientBalance(uint256 balance, uint256 price);
    /// @notice The caller may not perform this operation.
    error Unauthorized();
    /// @notice The operation does not match the listing's rental model.
    error InvalidAccessType();
    /// @notice The creator revoked this credential.
    error CredentialRevoked();
    /// @notice The withdrawal exceeds the listing's escrow.
    /// @param amount The amount asked for.
    /// @param available The escrow available.
    error WithdrawalExceedsBalance(uint256 amount, uint256 available);
    /// @notice The fee exceeds the 10% (1000 basis points) maximum.
    /// @param feeBasisPoints The fee asked for.
    /// @param maxFeeBasisPoints The cap.
    error FeeTooHigh(uint256 feeBasisPoints, uint256 maxFeeBasisPoints);
    /// @notice The price is below 0.000001 ETH.
    /// @param price The price given.
    /// @param minPrice The minimum price.
    error PriceTooLow(uint256 price, uint256 minPrice);
    /// @notice The metadata URI is longer than 200 bytes.
    /// @param length The URI length in bytes.
    /// @param maxLength The maximum length.
    error MetadataUriTooLong(uint256 length, uint256 maxLength);
    /// @notice The metadata URI is empty.
    error MetadataUriEmpty();
    /// @notice The subscription duration is not 2592000, 7776000 or 31536000 seconds.
    /// @param durationSeconds The duration given.
    error InvalidDuration(uint256 durationSeconds);
    /// @notice The deposit does not cover one run at the listing price.
    /// @param deposit The ETH sent.
    /// @param price The listing price per run.
    error DepositTooLow(uint256 deposit, uint256 price);
    /// @notice The protocol is paused: no purchases and no new listings.
    error ProtocolPaused();
    /// @notice The listing cannot close while its escrow holds funds.
    error EscrowNotEmpty();
    /// @notice There is nothing to withdraw.
    error NothingToWithdraw();
    /// @notice The ETH sent differs from the price due.
    /// @param expected The price due.
    /// @param sent The ETH sent.
    error IncorrectPayment(uint256 expected, uint256 sent);
    /// @notice An ETH transfer out of the contract failed.
    error TransferFailed();
    /// @notice A zero address was given where a real one is required.
    error ZeroAddress();
    /// @notice A reentrant call was blocked.
    error Reentrancy();
    /// @notice The renewal would pay more than MAX_PREPAID ahead: its expiry would pass now + 395 days;
    /// or a purchase's or renewal's expiry would pass MAX_EXPIRY (2^40 - 1), the most its fields hold.
    /// @param expiresAt The expiry the renewal would reach.
    /// @param maxExpiresAt The latest expiry a payment now may reach.
    error ExpiryTooLate(uint256 expiresAt, uint256 maxExpiresAt);
    /// @notice The per-query balance would pass MAX_BALANCE (2^96 - 1 wei).
    /// @param balance The balance the deposit would reach.
    /// @param maxBalance The largest balance a rental holds.
    error BalanceTooLarge(uint256 balance, uint256 maxBalance);
    /// @notice The unspent balance cannot be withdrawn yet: runs admitted before the renter's request
    /// may still settle. Request first (requestBalanceWithdrawal), then withdraw from `withdrawableAt`.
    /// @param withdrawableAt When the requested withdrawal may be made; 0 when none was requested.
    error WithdrawalNotReady(uint256 withdrawableAt);
    /// @notice A run batch needs a nonzero Merkle root and at least one run.
    error EmptyRunBatch();
    /// @notice The charge would take the renter's charge cap on the listing past its amount this period.
    /// @param charged What the current period has charged already.
    /// @param cap The cap's amount per period.
    error ChargeCapExceeded(uint256 charged, uint256 cap);
    /// @notice A charge cap's amount is above 2^88 - 1, or its period outside one hour..180 days (0 and 0
    /// remove the cap).
    /// @param amount The amount given.
    /// @param period The period given, in seconds.
    error InvalidChargeCap(uint256 amount, uint256 period);

    /*//////////////////////////////////////////////////////////////
                                 EVENTS
    //////////////////////////////////////////////////////////////*/

    /// @notice A listing was created (status active).
    /// @param listingId keccak256(abi.encodePacked(creator, seed)).
    /// @param creator The creator.
    /// @param seed The creator-chosen seed.
    /// @param accessType The rental model.
    /// @param price The price (meaning per model: see the contract notice).
    /// @param metadataUri The manifest URI.
    event ListingCreated(
        bytes32 indexed listingId,
        address indexed creator,
        bytes32 seed,
        AccessType accessType,
        uint256 price,
        string metadataUri
    );
    /// @notice A listing's price and metadata URI were replaced.
    /// @param listingId The listing.
    /// @param price The new price.
    /// @param metadataUri The new URI.
    event ListingUpdated(bytes32 indexed listingId, uint256 price, string metadataUri);
    /// @notice A listing was paused (`active` false) or resumed (`active` true).
    /// @param listingId The listing.
    /// @param active Whether new rentals are accepted.
    event ListingActiveSet(bytes32 indexed listingId, bool active);
    /// @notice A listing was closed for good; every credential on it is invalid from now on.
    /// @param listingId The listing.
    event ListingClosed(bytes32 indexed listingId);
    /// @notice A one_time credential was bought. Escrow grows by `price - fee`.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @param price The ETH paid.
    /// @param fee The protocol fee taken from it.
    event OneTimePurchased(bytes32 indexed listingId, address indexed buyer, uint256 price, uint256 fee);
    /// @notice A subscription was bought. Escrow grows by `paid - fee`.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @param durationSeconds The duration bought.
    /// @param paid The ETH paid.
    /// @param fee The protocol fee taken from it.
    /// @param expiresAt The new expiry (unix seconds; valid while now < expiresAt).
    event SubscriptionPurchased(
        bytes32 indexed listingId,
        address indexed buyer,
        uint256 durationSeconds,
        uint256 paid,
        uint256 fee,
        uint256 expiresAt
    );
    /// @notice A subscription was renewed. Escrow grows by `paid - fee`.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @param durationSeconds The duration added.
    /// @param paid The ETH paid.
    /// @param fee The protocol fee taken from it.
    /// @param expiresAt The new expiry.
    event SubscriptionRenewed(
        bytes32 indexed listingId,
        address indexed buyer,
        uint256 durationSeconds,
        uint256 paid,
        uint256 fee,
        uint256 expiresAt
    );
    /// @notice A per_query rental was bought; the balance equals the deposit. No fee yet.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @param deposit The ETH deposited (the new balance).
    event PerQueryPurchased(bytes32 indexed listingId, address indexed buyer, uint256 deposit);
    /// @notice A per_query balance was topped up.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @param amount The ETH added.
    /// @param newBalance The balance after the top-up.
    event BalanceToppedUp(bytes32 indexed listingId, address indexed buyer, uint256 amount, uint256 newBalance);
    /// @notice One run was charged to a per_query balance. Escrow grows by `price - fee`.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @param runRef The run the charge belongs to (charged at most once).
    /// @param price The amount debited.
    /// @param fee The protocol fee taken from it.
    /// @param newBalance The balance after the debit.
    event QueryConsumed(
        bytes32 indexed listingId,
        address indexed buyer,
        bytes32 indexed runRef,
        uint256 price,
        uint256 fee,
        uint256 newBalance
    );
    /// @notice A charge of a consumeQueries batch was refused; the rest of the batch went on. Nothing was
    /// debited and the run is not marked charged (a later batch may charge it).
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @param runRef The run whose charge was refused.
    /// @param reason The selector of the custom error consumeQuery would have reverted with
    /// (e.g. `InsufficientBalance.selector`).
    event QueryRefused(bytes32 indexed listingId, address indexed buyer, bytes32 indexed runRef, bytes4 reason);
    /// @notice The creator revoked a renter's access.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @param accessType The rental model of the revoked credential.
    event AccessRevoked(bytes32 indexed listingId, address indexed buyer, AccessType accessType);
    /// @notice A renter set (or, with amount and period 0, removed) its charge cap on a listing; a new
    /// period begins now.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @param amount The most charged per period.
    /// @param period The period in seconds (0: no cap).
    event ChargeCapSet(bytes32 indexed listingId, address indexed buyer, uint256 amount, uint256 period);
    /// @notice A renter asked to take back the unspent per_query balance. No new run is admitted on it
    /// (the credential reads LowBalance); runs admitted before may still be charged until the withdrawal.
    /// A top-up cancels the request.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @param balance The balance when asked.
    /// @param withdrawableAt When withdrawUnspentBalance may take it (now + BALANCE_WITHDRAWAL_DELAY).
    event BalanceWithdrawalRequested(bytes32 indexed listingId, address indexed buyer, uint256 balance, uint256 withdrawableAt);
    /// @notice A renter took back an unspent per_query balance (balance is now 0).
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @param amount The ETH returned.
    event UnspentBalanceWithdrawn(bytes32 indexed listingId, address indexed buyer, uint256 amount);
    /// @notice A creator withdrew earnings from a listing's escrow.
    /// @param listingId The listing.
    /// @param creator The creator (receiver).
    /// @param amount The ETH withdrawn.
    event EarningsWithdrawn(bytes32 indexed listingId, address indexed creator, uint256 amount);
    /// @notice Accrued protocol fees were paid out.
    /// @param recipient The fee recipient.
    /// @param amount The ETH paid.
    event FeesWithdrawn(address indexed recipient, uint256 amount);
    /// @notice The protocol fee changed.
    /// @param previousFeeBasisPoints The old fee.
    /// @param feeBasisPoints The new fee.
    event FeeBasisPointsSet(uint256 previousFeeBasisPoints, uint256 feeBasisPoints);
    /// @notice The fee recipient changed.
    /// @param previousRecipient The old recipient.
    /// @param recipient The new recipient.
    event FeeRecipientSet(address indexed previousRecipient, address indexed recipient);
    /// @notice The protocol was paused or unpaused.
    /// @param paused The new state.
    event PausedSet(bool paused);
    /// @notice The protocol authority changed (the pending authority accepted).
    /// @param previousAuthority The old authority.
    /// @param authority The new authority.
    event AuthorityTransferred(address indexed previousAuthority, address indexed authority);
    /// @notice The authority proposed a successor, who becomes authority by calling acceptAuthority.
    /// @param authority The current authority.
    /// @param pendingAuthority The proposed successor.
    event AuthorityTransferStarted(address indexed authority, address indexed pendingAuthority);
    /// @notice A batch of run receipts was logged as a Merkle root.
    /// @param batchIndex The batch index (0, 1, 2, ...).
    /// @param root The Merkle root (sorted-pair keccak256) of the receipt leaves.
    /// @param count The number of runs in the batch.
    event RunsLogged(uint256 indexed batchIndex, bytes32 root, uint32 count);

    /*//////////////////////////////////////////////////////////////
                               CONSTANTS
    //////////////////////////////////////////////////////////////*/

    /// @notice The fee cap: 10%.
    uint256 public constant MAX_FEE_BASIS_POINTS = 1000;
    /// @notice The fee at deployment: 2.5%.
    uint256 public constant DEFAULT_FEE_BASIS_POINTS = 250;
    /// @notice Basis points in 100%.
    uint256 public constant BASIS_POINTS = 10_000;
    /// @notice The minimum listing price: 0.000001 ETH.
    uint256 public constant MIN_PRICE = 1e12;
    /// @notice The maximum metadata URI length in bytes.
    uint256 public constant MAX_METADATA_URI_LENGTH = 200;
    /// @notice The subscription price period: a subscription `price` buys 30 days.
    uint256 public constant SUBSCRIPTION_PERIOD = 30 days;
    /// @notice Run references below this value are dense: marked in the `chargedRuns` bitmap (256 runs
    /// per storage word); larger ones (hashes) are marked one slot each. isRunCharged reads both.
    uint256 public constant DENSE_RUN_REFS = 1 << 64;
    /// @notice How far ahead a renewal may pay: its expiry at most now + 395 days (the longest period,
    /// 365 days, plus the shortest, 30), so one renter can keep a listing's escrow from emptying, and
    /// the listing from closing, for at most that long.
    uint256 public constant MAX_PREPAID = 395 days;
    /// @notice The latest expiry a subscription may have: the largest value its uint40 fields hold. A
    /// purchase or renewal that would pass it is refused (ExpiryTooLate), never stored wrapped.
    uint256 public constant MAX_EXPIRY = type(uint40).max;
    /// @notice The unit subscription earnings vest in: a payment's period is rounded out to whole days.
    uint256 public constant VESTING_DAY = 1 days;
    /// @notice How long after requestBalanceWithdrawal the unspent balance may be withdrawn: longer than
    /// the longest run (300 s) plus the service's settlement window (600 s), with room for a slow chain.
    uint256 public constant BALANCE_WITHDRAWAL_DELAY = 1 hours;
    /// @notice The largest per-query balance (the record's uint96).
    uint256 public constant MAX_BALANCE = type(uint96).max;
    /// @dev The fields of a PerQueryBalance's one word (Solidity packs from the low bits, in order):
    /// balance 0-95, purchasedAt 96-135, isRevoked 136-143, depositPrice 144-239, withdrawalRequested
    /// 240-247, chargeCapped 248-255.
    uint256 private constant RECORD_BALANCE = type(uint96).max;
    uint256 private constant RECORD_PURCHASED_AT = uint256(type(uint40).max) << 96;
    uint256 private constant RECORD_IS_REVOKED = uint256(0xff) << 136;
    uint256 private constant RECORD_DEPOSIT_PRICE_SHIFT = 144;
    uint256 private constant RECORD_DEPOSIT_PRICE = uint256(type(uint96).max) << 144;
    uint256 private constant RECORD_CHARGE_CAPPED = uint256(0xff) << 248;
    /// @dev What _charge returns for a run it charged (no custom error has this selector).
    bytes4 private constant CHARGED = 0xffffffff;
    /// @dev A Tab's fee rate before the first charge reads it (no fee rate has this value).
    uint256 private constant FEE_NOT_READ = type(uint256).max;

    /*//////////////////////////////////////////////////////////////
                                STORAGE
    //////////////////////////////////////////////////////////////*/

    // One slot, read by every purchase and written by every fee-bearing one: fees, fee rate, pause
    // flag and the run-log counter share it so a purchase pays for one protocol slot, not three.
    /// @notice Protocol fees accrued and not yet withdrawn.
    uint128 public accruedFees;
    /// @notice The protocol fee in basis points (<= 1000).
    uint16 public feeBasisPoints;
    /// @notice Whether the protocol is paused (no purchases, renewals or new listings; withdrawals work).
    bool public paused;
    /// @notice The number of run batches logged.
    uint64 public runBatchCount;

    /// @notice The protocol authority: settles per-query runs, logs runs, sets protocol parameters.
    address public authority;
    /// @notice The successor the authority proposed; zero when no transfer is pending.
    address public pendingAuthority;
    /// @notice Where protocol fees are paid.
    address public feeRecipient;

    /// @notice Listings by id.
    mapping(bytes32 listingId => Listing listing) public listings;
    /// @notice one_time and subscription credentials by listing id and buyer.
    mapping(bytes32 listingId => mapping(address buyer => AccessCredential credential)) public credentials;
    /// @dev per_query balances by listing id and buyer (read through `perQueryBalances`).
    mapping(bytes32 listingId => mapping(address buyer => PerQueryBalance record)) private _perQueryBalances;
    /// @dev Whether a run reference of DENSE_RUN_REFS or above was charged already. Private: the public
    /// reads (consumedRuns, isRunCharged) answer for every reference, dense or not.
    mapping(bytes32 runRef => bool consumed) private _hashedRunMarks;
    /// @notice The charged marks of dense run references (below DENSE_RUN_REFS): bit `runRef & 255` of
    /// word `runRef >> 8`. A batch of references handed out in an aligned block of 256 touches one word.
    mapping(uint256 wordIndex => uint256 bits) public chargedRuns;
    /// @notice The Merkle root of each logged run batch.
    mapping(uint256 batchIndex => bytes32 root) public runBatchRoots;
    /// @notice How each subscription listing's earnings vest, as of its last update (see Vesting).
    mapping(bytes32 listingId => Vesting vesting) public vestings;
    /// @notice The changes of a listing's vesting by day number (`day * VESTING_DAY` is when they apply).
    mapping(bytes32 listingId => mapping(uint256 day => VestingDay change)) public vestingDays;
    /// @notice Which days of a listing hold a VestingDay: bit `day & 255` of word `day >> 8`, so the days
    /// that have passed since the last update are found without reading the empty ones.
    mapping(bytes32 listingId => mapping(uint256 wordIndex => uint256 bits)) public vestingDayBits;
    /// @notice When a renter asked to withdraw the unspent balance (valid while the record's
    /// `withdrawalRequested` is set).
    mapping(bytes32 listingId => mapping(address buyer => uint256 requestedAt)) public withdrawalRequestedAt;
    /// @dev Renters' charge caps by listing id and buyer (meaningful while the record's `chargeCapped`; read
    /// through `chargeCaps`).
    mapping(bytes32 listingId => mapping(address buyer => ChargeCap cap)) private _chargeCaps;

    bool private transient _locked;

    /*//////////////////////////////////////////////////////////////
                               MODIFIERS
    //////////////////////////////////////////////////////////////*/

    modifier nonReentrant() {
        if (_locked) revert Reentrancy();
        _locked = true;
        _;
        _locked = false;
    }

    modifier onlyAuthority() {
        if (msg.sender != authority) revert Unauthorized();
        _;
    }

    /*//////////////////////////////////////////////////////////////
                              CONSTRUCTOR
    //////////////////////////////////////////////////////////////*/

    /// @notice Deploys with the fee at 2.5% and the protocol unpaused.
    /// @param authority_ The protocol authority.
    /// @param feeRecipient_ The receiver of protocol fees.
    constructor(address authority_, address feeRecipient_) {
        if (authority_ == address(0) || feeRecipient_ == address(0)) revert ZeroAddress();
        authority = authority_;
        feeRecipient = feeRecipient_;
        feeBasisPoints = uint16(DEFAULT_FEE_BASIS_POINTS);
        emit AuthorityTransferred(address(0), authority_);
        emit FeeRecipientSet(address(0), feeRecipient_);
        emit FeeBasisPointsSet(0, DEFAULT_FEE_BASIS_POINTS);
    }

    /*//////////////////////////////////////////////////////////////
                            CREATOR ACTIONS
    //////////////////////////////////////////////////////////////*/

    /// @notice Creates a listing owned by the caller, status active.
    /// @dev Reverts ProtocolPaused, MetadataUriEmpty, MetadataUriTooLong, PriceTooLow, ListingAlreadyExists.
    /// The id is permanent: a closed listing's seed cannot be reused.
    /// @param seed A creator-chosen 32-byte seed; the id is keccak256(abi.encodePacked(msg.sender, seed)).
    /// @param accessType The rental model, fixed for the listing's life.
    /// @param price one_time: the price; subscription: the price per 30 days; per_query: the price per run.
    /// At least MIN_PRICE wei.
    /// @param metadataUri URI of the agent manifest, 1 to 200 bytes.
    /// @return listingId The new listing's id.
    function createListing(bytes32 seed, AccessType accessType, uint96 price, string calldata metadataUri)
        external
        returns (bytes32 listingId)
    {
        if (paused) revert ProtocolPaused();
        _checkListingTerms(price, metadataUri);
        listingId = listingIdOf(msg.sender, seed);
        Listing storage listing = listings[listingId];
        if (listing.status != ListingStatus.None) revert ListingAlreadyExists();
        listing.price = price;
        listing.accessType = accessType;
        listing.status = ListingStatus.Active;
        listing.creator = msg.sender;
        listing.createdAt = uint40(block.timestamp);
        listing.metadataUri = metadataUri;
        emit ListingCreated(listingId, msg.sender, seed, accessType, price, metadataUri);
    }

    /// @notice Replaces a listing's price and metadata URI. Existing rentals keep what they paid for;
    /// the new price applies to later purchases, renewals and per-query runs.
    /// @dev Creator only; reverts ListingNotFound, Unauthorized, ListingNotActive (closed),
    /// MetadataUriEmpty, MetadataUriTooLong, PriceTooLow.
    /// @param listingId The listing.
    /// @param price The new price (same meaning as in createListing).
    /// @param metadataUri The new manifest URI.
    function updateListing(bytes32 listingId, uint96 price, string calldata metadataUri) external {
        Listing storage listing = _openListingOfCreator(listingId);
        _checkListingTerms(price, metadataUri);
        listing.price = price;
        listing.metadataUri = metadataUri;
        emit ListingUpdated(listingId, price, metadataUri);
    }

    /// @notice Pauses (`active` false) or resumes (`active` true) a listing. A paused listing refuses
    /// new rentals and renewals; existing credentials stay valid, per-query balances can be topped up
    /// and runs still settle.
    /// @dev Creator only; reverts ListingNotFound, Unauthorized, ListingNotActive (closed).
    /// @param listingId The listing.
    /// @param active Whether the listing accepts new rentals.
    function setListingActive(bytes32 listingId, bool active) external {
        Listing storage listing = _openListingOfCreator(listingId);
        listing.status = active ? ListingStatus.Active : ListingStatus.Paused;
        emit ListingActiveSet(listingId, active);
    }

    /// @notice Closes a listing for good, from any state (active or paused), once its escrow holds no
    /// funds: withdraw the earnings first, or use closeListingAndWithdraw to do both in one transaction.
    /// Every credential on the listing becomes invalid; a per-task run settling after the close is
    /// refused (the closing creator forgoes it). Unspent per-query balances stay the renters', withdrawable
    /// at once. A subscription listing's escrow empties only once every paid period has vested.
    /// @dev Creator only; reverts ListingNotFound, Unauthorized, ListingNotActive (closed already),
    /// EscrowNotEmpty (the escrow holds funds).
    /// @param listingId The listing.
    function closeListing(bytes32 listingId) external {
        Listing storage listing = _openListingOfCreator(listingId);
        if (listing.escrow != 0) revert EscrowNotEmpty();
        listing.status = ListingStatus.Closed;
        emit ListingClosed(listingId);
    }

    /// @notice Withdraws the whole escrow to the creator and closes the listing, in one transaction, so no
    /// charge or purchase landing between a withdrawal and a close can make the close fail. Closes a
    /// listing with an empty escrow as closeListing does.
    /// @dev Creator only; reverts ListingNotFound, Unauthorized, ListingNotActive (closed already),
    /// EscrowNotEmpty (a subscription listing holds earnings not yet vested), TransferFailed, Reentrancy.
    /// Emits EarningsWithdrawn (when the escrow held funds) and ListingClosed.
    /// @param listingId The listing.
    /// @return amount The wei withdrawn.
    function closeListingAndWithdraw(bytes32 listingId) external nonReentrant returns (uint256 amount) {
        Listing storage listing = _openListingOfCreator(listingId);
        amount = listing.escrow;
        if (amount != 0 && listing.accessType == AccessType.Subscription && _syncVesting(listingId) != 0) {
            revert EscrowNotEmpty();
        }
        listing.escrow = 0;
        listing.status = ListingStatus.Closed;
        if (amount != 0) emit EarningsWithdrawn(listingId, msg.sender, amount);
        emit ListingClosed(listingId);
        if (amount != 0) _send(msg.sender, amount);
    }

    /// @notice Revokes a renter's one_time or subscription credential. No refund: the rental was final.
    /// @dev Creator only; reverts ListingNotFound, Unauthorized, ListingNotActive (closed),
    /// InvalidAccessType (per_query listing: use revokePerQueryAccess), CredentialNotFound, CredentialRevoked.
    /// @param listingId The listing.
    /// @param buyer The renter.
    function revokeAccess(bytes32 listingId, address buyer) external {
        Listing storage listing = _openListingOfCreator(listingId);
        if (listing.accessType == AccessType.PerQuery) revert InvalidAccessType();
        AccessCredential storage credential = credentials[listingId][buyer];
        if (credential.buyer == address(0)) revert CredentialNotFound();
        if (credential.isRevoked) revert CredentialRevoked();
        credential.isRevoked = true;
        emit AccessRevoked(listingId, buyer, credential.accessType);
    }

    /// @notice Revokes a renter's per_query access. The unspent balance stays the renter's and can be
    /// taken back with withdrawUnspentBalance.
    /// @dev Creator only; reverts ListingNotFound, Unauthorized, ListingNotActive (closed),
    /// InvalidAccessType (not per_query), CredentialNotFound, CredentialRevoked.
    /// @param listingId The listing.
    /// @param buyer The renter.
    function revokePerQueryAccess(bytes32 listingId, address buyer) external {
        Listing storage listing = _openListingOfCreator(listingId);
        if (listing.accessType != AccessType.PerQuery) revert InvalidAccessType();
        PerQueryBalance storage record = _perQueryBalances[listingId][buyer];
        if (record.purchasedAt == 0) revert CredentialNotFound();
        if (record.isRevoked) revert CredentialRevoked();
        record.isRevoked = true;
        emit AccessRevoked(listingId, buyer, AccessType.PerQuery);
    }

    /// @notice Withdraws `amount` of a listing's vested escrow to its creator. Subscription earnings
    /// vest as the paid periods elapse (see withdrawableEarnings); one_time and per-query earnings are
    /// vested at once. Works while the protocol or the listing is paused, and after the listing closed.
    /// @dev Creator only; reverts ListingNotFound, Unauthorized, NothingToWithdraw (nothing vested or
    /// zero amount), WithdrawalExceedsBalance (above the vested escrow), TransferFailed, Reentrancy.
    /// @param listingId The listing.
    /// @param amount The wei to withdraw, at most withdrawableEarnings(listingId).
    function withdrawEarnings(bytes32 listingId, uint256 amount) external nonReentrant {
        Listing storage listing = listings[listingId];
        if (listing.status == ListingStatus.None) revert ListingNotFound();
        if (listing.creator != msg.sender) revert Unauthorized();
        uint256 escrow = listing.escrow;
        uint256 available = listing.accessType == AccessType.Subscription ? escrow - _syncVesting(listingId) : escrow;
        if (available == 0 || amount == 0) revert NothingToWithdraw();
        if (amount > available) revert WithdrawalExceedsBalance(amount, available);
        listing.escrow = uint128(escrow - amount);
        emit EarningsWithdrawn(listingId, msg.sender, amount);
        _send(msg.sender, amount);
    }

    /*//////////////////////////////////////////////////////////////
                            RENTER ACTIONS
    //////////////////////////////////////////////////////////////*/

    /// @notice Buys permanent, unmetered access to a one_time listing. Send exactly the listing price.
    /// @dev Reverts ProtocolPaused, ListingNotFound, ListingNotActive, InvalidAccessType,
    /// CredentialAlreadyExists, CredentialRevoked, IncorrectPayment.
    /// @param listingId The listing.
    function purchaseOneTime(bytes32 listingId) external payable nonReentrant {
        Listing storage listing = _purchasableListing(listingId, AccessType.OneTime);
        AccessCredential storage credential = credentials[listingId][msg.sender];
        _checkNoCredential(credential);
        uint256 price = listing.price;
        if (msg.value != price) revert IncorrectPayment(price, msg.value);
        credential.buyer = msg.sender;
        credential.purchasedAt = uint40(block.timestamp);
        credential.accessType = AccessType.OneTime;
        uint256 fee = _collect(listing, price);
        emit OneTimePurchased(listingId, msg.sender, price, fee);
    }

    /// @notice Buys a subscription of 30, 90 or 365 days. Send `subscriptionPrice(listingId, durationSeconds)`.
    /// @dev Reverts ProtocolPaused, ListingNotFound, ListingNotActive, InvalidAccessType, InvalidDuration,
    /// CredentialAlreadyExists (use renewSubscription), CredentialRevoked, IncorrectPayment, ExpiryTooLate
    /// (the expiry would pass MAX_EXPIRY).
    /// @param listingId The listing.
    /// @param durationSeconds 2592000, 7776000 or 31536000.
    function purchaseSubscription(bytes32 listingId, uint256 durationSeconds) external payable nonReentrant {
        Listing storage listing = _purchasableListing(listingId, AccessType.Subscription);
        uint256 cost = _subscriptionCost(listing.price, durationSeconds);
        AccessCredential storage credential = credentials[listingId][msg.sender];
        _checkNoCredential(credential);
        if (msg.value != cost) revert IncorrectPayment(cost, msg.value);
        uint256 expiresAt = block.timestamp + durationSeconds;
        if (expiresAt > MAX_EXPIRY) revert ExpiryTooLate(expiresAt, MAX_EXPIRY);
        credential.buyer = msg.sender;
        credential.purchasedAt = uint40(block.timestamp);
        credential.expiresAt = uint40(expiresAt);
        credential.accessType = AccessType.Subscription;
        uint256 fee = _collect(listing, cost);
        _vest(listingId, cost - fee, block.timestamp, expiresAt);
        emit SubscriptionPurchased(listingId, msg.sender, durationSeconds, cost, fee, expiresAt);
    }

    /// @notice Renews a subscription. An active one is extended from its current expiry (no paid time
    /// is lost), and the payment vests over that later period; an expired one restarts from now. The new
    /// expiry may be at most MAX_PREPAID (395 days) from now. Send `subscriptionPrice(listingId, durationSeconds)`.
    /// @dev Reverts ProtocolPaused, ListingNotFound, ListingNotActive, InvalidAccessType, InvalidDuration,
    /// CredentialNotFound, CredentialRevoked, IncorrectPayment, ExpiryTooLate (more than 395 days ahead,
    /// or past MAX_EXPIRY).
    /// @param listingId The listing.
    /// @param durationSeconds 2592000, 7776000 or 31536000.
    function renewSubscription(bytes32 listingId, uint256 durationSeconds) external payable nonReentrant {
        Listing storage listing = _purchasableListing(listingId, AccessType.Subscription);
        uint256 cost = _subscriptionCost(listing.price, durationSeconds);
        AccessCredential storage credential = credentials[listingId][msg.sender];
        if (credential.buyer == address(0)) revert CredentialNotFound();
        if (credential.isRevoked) revert CredentialRevoked();
        if (msg.value != cost) revert IncorrectPayment(cost, msg.value);
        uint256 currentExpiry = credential.expiresAt;
        uint256 paidFrom = currentExpiry > block.timestamp ? currentExpiry : block.timestamp;
        uint256 expiresAt = paidFrom + durationSeconds;
        uint256 maxExpiresAt = block.timestamp + MAX_PREPAID;
        if (maxExpiresAt > MAX_EXPIRY) maxExpiresAt = MAX_EXPIRY;
        if (expiresAt > maxExpiresAt) revert ExpiryTooLate(expiresAt, maxExpiresAt);
        credential.expiresAt = uint40(expiresAt);
        uint256 fee = _collect(listing, cost);
        _vest(listingId, cost - fee, paidFrom, expiresAt);
        emit SubscriptionRenewed(listingId, msg.sender, durationSeconds, cost, fee, expiresAt);
    }

    /// @notice Opens a per_query rental with a prepaid balance of `msg.value`, which must cover at least
    /// one run. No fee is taken now: each run pays its fee when consumeQuery debits it.
    /// @dev Reverts ProtocolPaused, ListingNotFound, ListingNotActive, InvalidAccessType,
    /// CredentialAlreadyExists (use topUpBalance), CredentialRevoked, DepositTooLow, BalanceTooLarge.
    /// @param listingId The listing.
    function purchasePerQuery(bytes32 listingId) external payable nonReentrant {
        Listing storage listing = _purchasableListing(listingId, AccessType.PerQuery);
        PerQueryBalance storage record = _perQueryBalances[listingId][msg.sender];
        if (record.purchasedAt != 0) {
            if (record.isRevoked) revert CredentialRevoked();
            revert CredentialAlreadyExists();
        }
        uint256 price = listing.price;
        if (msg.value < price) revert DepositTooLow(msg.value, price);
        if (msg.value > MAX_BALANCE) revert BalanceTooLarge(msg.value, MAX_BALANCE);
        record.balance = uint96(msg.value);
        record.purchasedAt = uint40(block.timestamp);
        record.depositPrice = uint96(price);
        emit PerQueryPurchased(listingId, msg.sender, msg.value);
    }

    /// @notice Adds `msg.value` to a per_query balance; each deposit covers at least one run at the
    /// current price, which becomes the renter's deposit price (the most a run is charged). A top-up
    /// cancels a pending withdrawal request. It keeps an existing rental running, so, like consumption,
    /// it continues while the listing or the protocol is paused (pauses stop new rentals, never existing
    /// access); it is refused once the listing is closed.
    /// @dev Reverts ListingNotFound, ListingNotActive (closed), InvalidAccessType, CredentialNotFound,
    /// CredentialRevoked, DepositTooLow, BalanceTooLarge. Reads two slots (listing, record): that is what
    /// keeps it within 1.25x of its one-slot storage bound.
    /// @param listingId The listing.
    function topUpBalance(bytes32 listingId) external payable {
        Listing storage listing = listings[listingId];
        ListingStatus status = listing.status;
        if (status == ListingStatus.None) revert ListingNotFound();
        if (status == ListingStatus.Closed) revert ListingNotActive();
        if (listing.accessType != AccessType.PerQuery) revert InvalidAccessType();
        PerQueryBalance storage record = _perQueryBalances[listingId][msg.sender];
        // The record is read and written as its one word (PerQueryBalance's layout, RECORD_* below): one
        // read and one write instead of one per field, which keeps this within 1.25x of its bound.
        uint256 word;
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            word := sload(record.slot)
        }
        if (word & RECORD_PURCHASED_AT == 0) revert CredentialNotFound();
        if (word & RECORD_IS_REVOKED != 0) revert CredentialRevoked();
        uint256 price = listing.price;
        if (msg.value < price) revert DepositTooLow(msg.value, price);
        uint256 newBalance = (word & RECORD_BALANCE) + msg.value;
        if (newBalance > MAX_BALANCE) revert BalanceTooLarge(newBalance, MAX_BALANCE);
        // The new balance, no withdrawal request; the purchase time, the revocation and the cap flag kept.
        uint256 kept = word & (RECORD_PURCHASED_AT | RECORD_IS_REVOKED | RECORD_CHARGE_CAPPED);
        if (word & RECORD_CHARGE_CAPPED != 0) {
            // A capped renter's deposit price is in the cap's slot; the record's field holds the period's
            // charges (ChargeCapRules), kept.
            word = kept | (word & RECORD_DEPOSIT_PRICE) | newBalance;
            _chargeCaps[listingId][msg.sender].depositPrice = uint96(price);
        } else {
            word = kept | (price << RECORD_DEPOSIT_PRICE_SHIFT) | newBalance;
        }
        // solhint-disable-next-line no-inline-assembly
        assembly ("memory-safe") {
            sstore(record.slot, word)
        }
        emit BalanceToppedUp(listingId, msg.sender, msg.value, newBalance);
    }

    /// @notice Asks to take back the unspent per_query balance. Allowed when the renter may leave: the
    /// listing is paused or closed, the creator revoked the renter, the listing's price is above the
    /// renter's deposit price (a rise the renter did not agree to), or the balance no longer covers one
    /// run. From now on no new run is admitted on the balance (the credential reads LowBalance), while
    /// runs admitted before may still be charged; withdrawUnspentBalance pays out from
    /// BALANCE_WITHDRAWAL_DELAY (1 hour) on. A top-up cancels the request. (A closed listing's or a
    /// revoked renter's balance needs no request: it is withdrawable at once.) Works while the protocol
    /// is paused.
    /// @dev Reverts ListingNotFound, InvalidAccessType, CredentialNotFound, NothingToWithdraw,
    /// WithdrawalNotReady (requested already: when it is ready), Unauthorized (the listing is active, the
    /// renter not revoked, the price not above the deposit price, and the balance covers a run: prepaid
    /// credit is not refundable).
    /// @param listingId The listing.
    function requestBalanceWithdrawal(bytes32 listingId) external {
        (Listing storage listing, PerQueryBalance storage record, uint256 balance) = _ownBalance(listingId);
        if (record.withdrawalRequested) {
            revert WithdrawalNotReady(withdrawalRequestedAt[listingId][msg.sender] + BALANCE_WITHDRAWAL_DELAY);
        }
        if (!_mayLeave(listingId, listing, record, balance)) revert Unauthorized();
        record.withdrawalRequested = true;
        withdrawalRequestedAt[listingId][msg.sender] = block.timestamp;
        emit BalanceWithdrawalRequested(listingId, msg.sender, balance, block.timestamp + BALANCE_WITHDRAWAL_DELAY);
    }

    /// @notice Takes back an unspent per_query balance, in full. "No refunds" never traps prepaid money,
    /// and no exit voids a run admitted before it: once the listing is closed or the creator revoked the
    /// renter (the creator's own acts, after which every charge is refused) the balance is withdrawable at
    /// once; otherwise it is withdrawable BALANCE_WITHDRAWAL_DELAY after requestBalanceWithdrawal (allowed
    /// while the listing is paused, its price is above the renter's deposit price, or the balance no
    /// longer covers a run), so every run admitted before the request has had time to settle, and only
    /// while the renter may still leave: the right is judged when it is used as well as when it was asked
    /// for. A request whose reason has gone (the listing resumed, the price back at or below the deposit
    /// price) takes back nothing; it keeps refusing new runs until a top-up cancels it, or until the
    /// renter may leave again, when it pays out at once (no run was admitted on the balance since it).
    /// Works while the protocol is paused.
    /// @dev Reverts ListingNotFound, InvalidAccessType, CredentialNotFound, NothingToWithdraw,
    /// Unauthorized (the renter may not leave now: the listing active, the renter not revoked, the price
    /// not above the deposit price, the balance covering a run; whether or not a request was made),
    /// WithdrawalNotReady (not requested, or requested less than BALANCE_WITHDRAWAL_DELAY ago),
    /// TransferFailed, Reentrancy.
    /// @param listingId The listing.
    function withdrawUnspentBalance(bytes32 listingId) external nonReentrant {
        (Listing storage listing, PerQueryBalance storage record, uint256 amount) = _ownBalance(listingId);
        if (listing.status != ListingStatus.Closed && !record.isRevoked) {
            // The right to leave is judged when it is used, not only when it was asked for: a request
            // made during a pause that has ended (or a price rise since undone) takes back no prepaid credit.
            if (!_mayLeave(listingId, listing, record, amount)) revert Unauthorized();
            if (!record.withdrawalRequested) revert WithdrawalNotReady(0);
            uint256 withdrawableAt = withdrawalRequestedAt[listingId][msg.sender] + BALANCE_WITHDRAWAL_DELAY;
            if (block.timestamp < withdrawableAt) revert WithdrawalNotReady(withdrawableAt);
        }
        record.balance = 0;
        record.withdrawalRequested = false;
        emit UnspentBalanceWithdrawn(listingId, msg.sender, amount);
        _send(msg.sender, amount);
    }

    /// @notice Caps what the authority may charge from the caller's per_query balance on `listingId`: at
    /// most `amount` in each period of `period` seconds (one hour to 180 days), the periods following one
    /// another from now. consumeQuery refuses a charge past it (ChargeCapExceeded), consumeQueries reports
    /// it (QueryRefused). Setting a cap again replaces it and starts a new period; `amount` 0 with `period`
    /// 0 removes it. A renter with no cap is charged as before.
    /// @dev Reverts ListingNotFound, InvalidAccessType (not per_query), CredentialNotFound (no rental on
    /// the listing), InvalidChargeCap (amount above 2^88 - 1, or period out of range). Works while the
    /// listing or the protocol is paused, and after a revocation or a close.
    /// @param listingId The listing.
    /// @param amount The most charged per period (wei).
    /// @param period The period in seconds.
    function setChargeCap(bytes32 listingId, uint256 amount, uint256 period) external {
        Listing storage listing = listings[listingId];
        if (listing.status == ListingStatus.None) revert ListingNotFound();
        if (listing.accessType != AccessType.PerQuery) revert InvalidAccessType();
        PerQueryBalance storage record = _perQueryBalances[listingId][msg.sender];
        if (record.purchasedAt == 0) revert CredentialNotFound();
        ChargeCapRules.set(record, _chargeCaps[listingId][msg.sender], amount, period);
        emit ChargeCapSet(listingId, msg.sender, amount, period);
    }

    /*//////////////////////////////////////////////////////////////
                           AUTHORITY ACTIONS
    //////////////////////////////////////////////////////////////*/

    /// @notice Charges one run to a per_query balance at the price it was admitted at, or less: debits
    /// min(listing price, maxPrice, the renter's deposit price), moves it minus the fee to escrow and the
    /// fee to the protocol. The authority passes the price it admitted the run at as `maxPrice`, so a
    /// price rise never reaches a run already admitted, and a price cut reaches it at once; the deposit
    /// price is the price the renter agreed to, so no run takes more whatever it was admitted at. Called by the authority right before a
    /// result is returned. Works on a paused listing (runs admitted before the pause settle), not on a
    /// closed one.
    /// @dev Idempotent per run: a `runRef` already charged (by this function or by consumeQueries) is a
    /// no-op that returns false and emits nothing, so a retried settlement transaction never charges
    /// twice. The marker is a bit of `chargedRuns` for a dense reference (below DENSE_RUN_REFS), else
    /// one new slot of the hashed references' marks; a per-renter sequence number instead would force the service to
    /// serialise settlements per renter. Authority only; reverts Unauthorized, PriceTooLow (maxPrice
    /// below MIN_PRICE), ListingNotFound, ListingNotActive (closed), InvalidAccessType,
    /// CredentialNotFound, CredentialRevoked, InsufficientBalance (balance below the charge).
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @param runRef The run id (bytes32) the charge belongs to.
    /// @param maxPrice The listing price the run was admitted at: the most this run may be charged.
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

    /// @notice Charges a batch of runs in one transaction, each exactly as consumeQuery would: at most
    /// once per run reference (one charged before, by either function or earlier in the batch, is
    /// skipped: no event, no debit), at most min(listing price, its maxPrice, the renter's deposit
    /// price), only on a valid per_query
    /// credential with enough balance. Each charged run emits QueryConsumed; a charge consumeQuery would
    /// revert emits QueryRefused with that custom error's selector and does not stop the others.
    /// @dev Authority only; reverts Unauthorized, Reentrancy. Gas per charge falls with the batch: the
    /// listing, the protocol slot, a renter's record and a word of dense run marks are paid cold once per
    /// batch (docs/benchmarks/gas.md).
    /// @param charges The runs to charge, in the order they are charged.
    /// @return chargedCount How many runs this call charged.
    function consumeQueries(Charge[] calldata charges) external onlyAuthority nonReentrant returns (uint256 chargedCount) {
        Tab memory tab = _openTab();
        uint256 length = charges.length;
        for (uint256 i = 0; i < length; ++i) {
            Charge calldata c = charges[i];
            (bytes4 outcome,,) = _charge(tab, c.listingId, c.buyer, c.runRef, c.maxPrice);
            if (outcome == CHARGED) ++chargedCount;
            else if (outcome != bytes4(0)) emit QueryRefused(c.listingId, c.buyer, c.runRef, outcome);
        }
        _settleTab(tab);
    }

    /// @notice Logs a batch of run receipts as one Merkle root. One storage slot per batch, so the cost
    /// per run falls with the batch size.
    /// @dev Authority only; reverts Unauthorized, EmptyRunBatch (zero root or zero count). Leaves are
    /// `runReceiptLeaf(...)`; inner nodes hash the sorted pair.
    /// @param root The Merkle root of the batch's receipt leaves.
    /// @param count The number of runs in the batch, at least 1.
    /// @return batchIndex The index of the new batch.
    function logRuns(bytes32 root, uint32 count) external onlyAuthority returns (uint256 batchIndex) {
        if (root == bytes32(0) || count == 0) revert EmptyRunBatch();
        batchIndex = runBatchCount;
        runBatchRoots[batchIndex] = root;
        runBatchCount = uint64(batchIndex + 1);
        emit RunsLogged(batchIndex, root, count);
    }

    /// @notice Pays all accrued protocol fees to the fee recipient. Works while paused.
    /// @dev Fee recipient or authority only; reverts Unauthorized, NothingToWithdraw, TransferFailed,
    /// Reentrancy. Fees accrued before a setFeeRecipient go to the recipient current at withdrawal.
    function withdrawFees() external nonReentrant {
        address recipient = feeRecipient;
        if (msg.sender != recipient && msg.sender != authority) revert Unauthorized();
        uint256 amount = accruedFees;
        if (amount == 0) revert NothingToWithdraw();
        accruedFees = 0;
        emit FeesWithdrawn(recipient, amount);
        _send(recipient, amount);
    }

    /// @notice Sets the protocol fee for later purchases and consumptions.
    /// @dev Authority only; reverts Unauthorized, FeeTooHigh (above 1000).
    /// @param newFeeBasisPoints The fee in basis points, at most 1000.
    function setFeeBasisPoints(uint256 newFeeBasisPoints) external onlyAuthority {
        if (newFeeBasisPoints > MAX_FEE_BASIS_POINTS) revert FeeTooHigh(newFeeBasisPoints, MAX_FEE_BASIS_POINTS);
        emit FeeBasisPointsSet(feeBasisPoints, newFeeBasisPoints);
        feeBasisPoints = uint16(newFeeBasisPoints);
    }

    /// @notice Sets the fee recipient (it receives every fee not yet withdrawn).
    /// @dev Authority only; reverts Unauthorized, ZeroAddress.
    /// @param newFeeRecipient The new recipient.
    function setFeeRecipient(address newFeeRecipient) external onlyAuthority {
        if (newFeeRecipient == address(0)) revert ZeroAddress();
        emit FeeRecipientSet(feeRecipient, newFeeRecipient);
        feeRecipient = newFeeRecipient;
    }

    /// @notice Pauses or unpauses the protocol. Paused: no new listings, purchases or renewals;
    /// withdrawals, listing management, top-ups of existing per-query rentals, consumption and run
    /// logging keep working.
    /// @dev Authority only; reverts Unauthorized.
    /// @param newPaused The new state.
    function setPaused(bool newPaused) external onlyAuthority {
        paused = newPaused;
        emit PausedSet(newPaused);
    }

    /// @notice Proposes a successor for the authority role; the role moves only when the successor
    /// calls acceptAuthority, so a mistyped address cannot take the protocol. A new proposal replaces
    /// a pending one (propose the current authority to cancel).
    /// @dev Authority only; reverts Unauthorized, ZeroAddress.
    /// @param newAuthority The proposed authority.
    function transferAuthority(address newAuthority) external onlyAuthority {
        if (newAuthority == address(0)) revert ZeroAddress();
        pendingAuthority = newAuthority;
        emit AuthorityTransferStarted(authority, newAuthority);
    }

    /// @notice Completes an authority transfer: the proposed successor takes the role.
    /// @dev Pending authority only; reverts Unauthorized.
    function acceptAuthority() external {
        address newAuthority = pendingAuthority;
        if (msg.sender != newAuthority) revert Unauthorized();
        emit AuthorityTransferred(authority, newAuthority);
        authority = newAuthority;
        pendingAuthority = address(0);
    }

    /*//////////////////////////////////////////////////////////////
                                 VIEWS
    //////////////////////////////////////////////////////////////*/

    /// @notice The spec's validity rule: the listing exists and is not closed, and the credential
    /// exists and is not revoked, and a subscription is not past expiry (valid while
    /// block.timestamp < expiresAt); for per_query, perQueryBalances has isRevoked false, no pending
    /// withdrawal request and a balance that covers one run at the listing's current price (so a valid
    /// per-query credential can always run). A paused listing keeps its credentials valid.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @return valid Whether the renter may run the agent now.
    function isCredentialValid(bytes32 listingId, address buyer) external view returns (bool valid) {
        return credentialStatus(listingId, buyer) == CredentialStatus.Active;
    }

    /// @notice The renter's access as the API names it: NotFound, Active, Expired, LowBalance (per_query
    /// balance below one run at the current price, zero included, or asked to be withdrawn), Revoked,
    /// ListingClosed. Active iff isCredentialValid.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @return status The status.
    function credentialStatus(bytes32 listingId, address buyer) public view returns (CredentialStatus status) {
        Listing storage listing = listings[listingId];
        ListingStatus listingStatus = listing.status;
        if (listingStatus == ListingStatus.None) return CredentialStatus.NotFound;
        if (listing.accessType == AccessType.PerQuery) {
            PerQueryBalance storage record = _perQueryBalances[listingId][buyer];
            if (record.purchasedAt == 0) return CredentialStatus.NotFound;
            if (listingStatus == ListingStatus.Closed) return CredentialStatus.ListingClosed;
            if (record.isRevoked) return CredentialStatus.Revoked;
            // A balance the renter asked to withdraw admits no new run: it is leaving.
            if (record.withdrawalRequested || record.balance < listing.price) return CredentialStatus.LowBalance;
            return CredentialStatus.Active;
        }
        AccessCredential storage credential = credentials[listingId][buyer];
        if (credential.buyer == address(0)) return CredentialStatus.NotFound;
        if (listingStatus == ListingStatus.Closed) return CredentialStatus.ListingClosed;
        if (credential.isRevoked) return CredentialStatus.Revoked;
        if (credential.accessType == AccessType.Subscription && block.timestamp >= credential.expiresAt) {
            return CredentialStatus.Expired;
        }
        return CredentialStatus.Active;
    }

    /// @notice Everything the API reports about a renter's access, in one call: the status, the
    /// listing's rental model, and the record behind it (from `credentials` for one_time and
    /// subscription, from `perQueryBalances` for per_query). All zero when no listing exists.
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @return status As `credentialStatus`.
    /// @return accessType The listing's rental model.
    /// @return purchasedAt When the credential was bought (0 if none).
    /// @return expiresAt A subscription's expiry (0 otherwise).
    /// @return balance A per_query balance (0 otherwise).
    /// @return isRevoked Whether the creator revoked it.
    function credentialOf(bytes32 listingId, address buyer)
        external
        view
        returns (
            CredentialStatus status,
            AccessType accessType,
            uint40 purchasedAt,
            uint40 expiresAt,
            uint128 balance,
            bool isRevoked
        )
    {
        status = credentialStatus(listingId, buyer);
        accessType = listings[listingId].accessType;
        if (accessType == AccessType.PerQuery) {
            PerQueryBalance storage record = _perQueryBalances[listingId][buyer];
            return (status, accessType, record.purchasedAt, 0, record.balance, record.isRevoked);
        }
        AccessCredential storage credential = credentials[listingId][buyer];
        return (status, accessType, credential.purchasedAt, credential.expiresAt, 0, credential.isRevoked);
    }

    /// @notice A per_query rental's record, by listing id and buyer (all zero when none).
    /// @param listingId The listing.
    /// @param buyer The renter.
    /// @return balance The prepaid balance.
    /// @return purchasedAt When the rental was bought (0: none).
    /// @return isRevoked Whether the creator revoked it.
    /// @return depositPrice The listing price when the renter last deposited: the most a run is charged.
    /// @return withdrawalRequested Whether the renter asked to take the balance back.
    /// @return chargeCapped Whether the renter set a charge cap on the listing (`chargeCaps`).
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
        PerQueryBalance storage record = _perQueryBalances[listingId][buyer];
        depositPrice = uint96(ChargeCapRules.depositPrice(record, _chargeCaps[listingId][buyer]));
        return (record.balance, record.purchasedAt, record.isRevoked, depositPrice, record.withdrawalRequested, record.chargeCapped);
    }

    /// @notice A renter's charge cap on a listing (all zero when none): at most `amount` charged per
    /// period of `period` seconds. `periodStart` is the start of the period of the cap's last charge (or of
    /// its setting); until that period ends, it has charged `baseline - balance`; from its end on, the
    /// period that holds now has charged nothing yet.
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

    /// @notice Whether a run reference was charged, by consumeQuery or consumeQueries.
    /// @param runRef The run reference.
    /// @return charged True once a charge of `runRef` landed.
    function isRunCharged(bytes32 runRef) external view returns (bool charged) {
        return _wasCharged(runRef);
    }

    /// @notice The same answer as isRunCharged, for every reference: whether `runRef` was charged. (This
    /// read was once the getter of the hashed references' marks alone, and said false for a charged
    /// dense reference; it now answers for both, so no two public reads disagree.)
    /// @param runRef The run reference.
    /// @return consumed True once a charge of `runRef` landed.
    function consumedRuns(bytes32 runRef) external view returns (bool consumed) {
        return _wasCharged(runRef);
    }

    /// @notice The ETH a subscription purchase or renewal of `durationSeconds` costs at the current price.
    /// @dev Reverts ListingNotFound, InvalidAccessType, InvalidDuration.
    /// @param listingId The listing.
    /// @param durationSeconds 2592000, 7776000 or 31536000.
    /// @return cost price * durationSeconds / 30 days, rounded down.
    function subscriptionPrice(bytes32 listingId, uint256 durationSeconds) external view returns (uint256 cost) {
        Listing storage listing = listings[listingId];
        if (listing.status == ListingStatus.None) revert ListingNotFound();
        if (listing.accessType != AccessType.Subscription) revert InvalidAccessType();
        return _subscriptionCost(listing.price, durationSeconds);
    }

    /// @notice Whether a run receipt is in logged run batch `batchIndex`, given its Merkle proof (sorted
    /// pairs). Takes the receipt's fields, not a leaf hash: the contract hashes the leaf itself
    /// (runReceiptLeaf, hashed twice), so no inner node of a tree can pass for a receipt.
    /// @param batchIndex The batch.
    /// @param receipt The run receipt's fields (see runReceiptLeaf).
    /// @param proof The sibling hashes from the leaf up to the root.
    /// @return included True iff the batch exists and the proof leads from the receipt's leaf to its root.
    function verifyRunReceipt(uint256 batchIndex, RunReceipt calldata receipt, bytes32[] calldata proof)
        external
        view
        returns (bool included)
    {
        if (batchIndex >= runBatchCount) return false;
        bytes32 node = _runReceiptLeaf(receipt);
        uint256 length = proof.length;
        for (uint256 i = 0; i < length; ++i) {
            node = _hashPair(node, proof[i]);
        }
        return node == runBatchRoots[batchIndex];
    }

    /// @notice The leaf of a run receipt in the run log: keccak256 of keccak256(abi.encode(fields)).
    /// Hashing twice keeps a leaf from ever equalling an inner node.
    /// @param runId The run id.
    /// @param listingId The listing the run ran against.
    /// @param renter The renter's wallet.
    /// @param status 0 completed, 1 failed.
    /// @param costWei The wei charged for the run (0 for one_time and subscription).
    /// @param durationMs The server-side execution time in milliseconds.
    /// @return leaf The leaf.
    function runReceiptLeaf(
        bytes32 runId,
        bytes32 listingId,
        address renter,
        uint8 status,
        uint256 costWei,
        uint64 durationMs
    ) external pure returns (bytes32 leaf) {
        return _runReceiptLeaf(RunReceipt(runId, listingId, renter, status, costWei, durationMs));
    }

    /// @notice What the creator may withdraw from a listing's escrow now: the whole escrow, less
    /// a subscription listing's earnings that have not vested yet.
    /// @param listingId The listing.
    /// @return amount The wei withdrawEarnings would accept.
    function withdrawableEarnings(bytes32 listingId) external view returns (uint256 amount) {
        Listing storage listing = listings[listingId];
        amount = listing.escrow;
        if (listing.accessType == AccessType.Subscription) {
            (Vesting memory v,) = _vestingNow(listingId);
            amount -= v.unvested;
        }
    }

    /// @notice A subscription listing's escrow not vested yet, now.
    /// @param listingId The listing.
    /// @return amount The wei of its escrow that withdrawals must leave.
    function unvestedEarnings(bytes32 listingId) external view returns (uint256 amount) {
        (Vesting memory v,) = _vestingNow(listingId);
        return v.unvested;
    }

    /// @notice The listing id of a creator's seed: keccak256(abi.encodePacked(creator, seed)).
    /// @param creator The creator.
    /// @param seed The seed.
    /// @return listingId The id.
    function listingIdOf(address creator, bytes32 seed) public pure returns (bytes32 listingId) {
        return keccak256(abi.encodePacked(creator, seed));
    }

    /*//////////////////////////////////////////////////////////////
                               INTERNALS
    //////////////////////////////////////////////////////////////*/

    /// @dev The checks every purchase shares, cheapest first.
    function _purchasableListing(bytes32 listingId, AccessType accessType) private view returns (Listing storage listing) {
        if (paused) revert ProtocolPaused();
        listing = listings[listingId];
        ListingStatus status = listing.status;
        if (status == ListingStatus.None) revert ListingNotFound();
        if (status != ListingStatus.Active) revert ListingNotActive();
        if (listing.accessType != accessType) revert InvalidAccessType();
    }

    /// @dev A listing the caller created and has not closed.
    function _openListingOfCreator(bytes32 listingId) private view returns (Listing storage listing) {
        listing = listings[listingId];
        ListingStatus status = listing.status;
        if (status == ListingStatus.None) revert ListingNotFound();
        if (listing.creator != msg.sender) revert Unauthorized();
        if (status == ListingStatus.Closed) revert ListingNotActive();
    }

    function _checkListingTerms(uint256 price, string calldata metadataUri) private pure {
        uint256 length = bytes(metadataUri).length;
        if (length == 0) revert MetadataUriEmpty();
        if (length > MAX_METADATA_URI_LENGTH) revert MetadataUriTooLong(length, MAX_METADATA_URI_LENGTH);
        if (price < MIN_PRICE) revert PriceTooLow(price, MIN_PRICE);
    }

    function _checkNoCredential(AccessCredential storage credential) private view {
        if (credential.buyer != address(0)) {
            if (credential.isRevoked) revert CredentialRevoked();
            revert CredentialAlreadyExists();
        }
    }

    function _subscriptionCost(uint256 price, uint256 durationSeconds) private pure returns (uint256) {
        if (durationSeconds != 30 days && durationSeconds != 90 days && durationSeconds != 365 days) {
            revert InvalidDuration(durationSeconds);
        }
        return (price * durationSeconds) / SUBSCRIPTION_PERIOD;
    }

    /// @dev Splits `amount` into the protocol fee and the listing's escrow.
    function _collect(Listing storage listing, uint256 amount) private returns (uint256 fee) {
        fee = (amount * feeBasisPoints) / BASIS_POINTS;
        // Cannot overflow: both totals are bounded by the ETH the contract holds.
        accruedFees += uint128(fee);
        listing.escrow += uint128(amount - fee);
    }

    /// @dev The last step of every withdrawal (interactions after effects).
    function _send(address to, uint256 amount) private {
        // solhint-disable-next-line avoid-low-level-calls
        (bool ok,) = to.call{value: amount}("");
        if (!ok) revert TransferFailed();
    }

    /// @dev A leaf is hashed twice (OpenZeppelin StandardMerkleTree's leaf encoding): 32 bytes go into
    /// the outer hash, 64 into an inner node's, so no leaf preimage is an inner node's.
    function _runReceiptLeaf(RunReceipt memory r) private pure returns (bytes32) {
        return keccak256(
            bytes.concat(keccak256(abi.encode(r.runId, r.listingId, r.renter, r.status, r.costWei, r.durationMs)))
        );
    }

    /// @dev A listing's vesting as of now: every VestingDay after `updatedAt` and not after now is applied
    /// in day order (found through vestingDayBits), the rate running between them, then to now. Returns
    /// whether a day was applied, so a caller that writes stores the result only then. The days it reads
    /// are bounded: every VestingDay lies within MAX_PREPAID + VESTING_DAY of the write that made it, and
    /// the walk stops once nothing is vesting, so at most about 400 days (two or three words of bits).
    function _vestingNow(bytes32 listingId) private view returns (Vesting memory v, bool applied) {
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
                VestingDay storage change = vestingDays[listingId][day];
                rate = uint256(int256(rate) + change.rateChange);
                unvested -= change.remainder;
                applied = true;
            }
        }
        unvested -= rate * (block.timestamp - t);
        // Cannot truncate: both only fell from the stored values.
        v = Vesting(uint128(unvested), uint88(rate), uint40(block.timestamp));
    }

    /// @dev The listing's unvested escrow now, storing its vesting when a day was applied.
    function _syncVesting(bytes32 listingId) private returns (uint256 unvested) {
        (Vesting memory v, bool applied) = _vestingNow(listingId);
        if (applied) vestings[listingId] = v;
        return v.unvested;
    }

    /// @dev Adds a subscription payment's escrow share `amount`, paid for [paidFrom, paidUntil), to the
    /// listing's vesting (see Vesting): it vests from now, or from the first day boundary at or after
    /// paidFrom when that is later, to the first day boundary at or after paidUntil. Rounding the period
    /// out and the rate down only ever vests later than the paid time elapses, never earlier.
    function _vest(bytes32 listingId, uint256 amount, uint256 paidFrom, uint256 paidUntil) private {
        (Vesting memory v,) = _vestingNow(listingId);
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
        VestingDay storage change = vestingDays[listingId][day];
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

    /// @dev The caller's per_query record on `listingId` and its balance, checked the way both exits
    /// check it: the listing exists and is per_query, the rental exists, the balance is not zero.
    function _ownBalance(bytes32 listingId)
        private
        view
        returns (Listing storage listing, PerQueryBalance storage record, uint256 balance)
    {
        listing = listings[listingId];
        if (listing.status == ListingStatus.None) revert ListingNotFound();
        if (listing.accessType != AccessType.PerQuery) revert InvalidAccessType();
        record = _perQueryBalances[listingId][msg.sender];
        if (record.purchasedAt == 0) revert CredentialNotFound();
        balance = record.balance;
        if (balance == 0) revert NothingToWithdraw();
    }

    /// @dev Whether a renter may leave with the balance: the listing is not active (paused or closed),
    /// the creator revoked the renter, the price rose above the renter's deposit price, or the balance
    /// no longer covers a run. A live balance, at a price the renter agreed to, that covers a run is
    /// prepaid credit: not refundable.
    function _mayLeave(bytes32 listingId, Listing storage listing, PerQueryBalance storage record, uint256 balance)
        private
        view
        returns (bool)
    {
        uint256 price = listing.price;
        return listing.status != ListingStatus.Active || record.isRevoked
            || price > ChargeCapRules.depositPrice(record, _chargeCaps[listingId][msg.sender]) || balance < price;
    }

    /// @dev One run's charge, the one path of consumeQuery and consumeQueries. Returns CHARGED when it
    /// charged; zero when the run was charged before (skip silently); else the selector of the custom
    /// error that refuses it, with that error's arguments (when it has any) in arg0, arg1. The listing
    /// and the renter's record are read through `tab`, and the debit, escrow and fee are written to it:
    /// the caller settles the tab (_settleTab) once its charges are done.
    function _charge(Tab memory tab, bytes32 listingId, address buyer, bytes32 runRef, uint256 maxPrice)
        private
        returns (bytes4 outcome, uint256 arg0, uint256 arg1)
    {
        if (_isCharged(tab, runRef)) return (bytes4(0), 0, 0);
        if (maxPrice < MIN_PRICE) return (PriceTooLow.selector, maxPrice, MIN_PRICE);
        _tabListing(tab, listingId);
        if (tab.status == ListingStatus.None) return (ListingNotFound.selector, 0, 0);
        if (tab.status == ListingStatus.Closed) return (ListingNotActive.selector, 0, 0);
        if (tab.accessType != AccessType.PerQuery) return (InvalidAccessType.selector, 0, 0);
        _tabRecord(tab, buyer);
        if (tab.purchasedAt == 0) return (CredentialNotFound.selector, 0, 0);
        if (tab.isRevoked) return (CredentialRevoked.selector, 0, 0);
        uint256 price = tab.price;
        if (price > maxPrice) price = maxPrice;
        if (price > tab.depositPrice) price = tab.depositPrice;
        uint256 balance = tab.balance;
        if (balance < price) return (InsufficientBalance.selector, balance, price);
        if (tab.capped) {
            if (ChargeCapRules.refuses(tab.capAmount, tab.capSpent, price)) {
                return (ChargeCapExceeded.selector, tab.capSpent, tab.capAmount);
            }
            tab.capSpent += price;
            tab.capChanged = true;
        }
        _markCharged(tab, runRef);
        balance -= price;
        tab.balance = balance;
        tab.balanceChanged = true;
        // The fee rate is read at the first charge of the call, not before: a skipped run reads nothing more.
        if (tab.feeBasisPoints == FEE_NOT_READ) tab.feeBasisPoints = feeBasisPoints;
        uint256 fee = (price * tab.feeBasisPoints) / BASIS_POINTS;
        tab.feesAdded += fee;
        tab.escrowAdded += price - fee;
        emit QueryConsumed(listingId, buyer, runRef, price, fee, balance);
        return (CHARGED, 0, 0);
    }

    function _openTab() private pure returns (Tab memory tab) {
        tab.feeBasisPoints = FEE_NOT_READ;
    }

    /// @dev Makes `listingId` the tab's listing: the previous one's added escrow is written first.
    function _tabListing(Tab memory tab, bytes32 listingId) private {
        if (tab.listingId == listingId && tab.status != ListingStatus.None) return;
        _settleRecord(tab);
        _settleEscrow(tab);
        Listing storage listing = listings[listingId];
        tab.listingId = listingId;
        tab.price = listing.price;
        tab.status = listing.status;
        tab.accessType = listing.accessType;
    }

    /// @dev Makes `buyer`'s record on the tab's listing the tab's record: the previous one's balance is
    /// written first.
    function _tabRecord(Tab memory tab, address buyer) private {
        if (tab.recordLoaded && tab.buyer == buyer) return;
        _settleRecord(tab);
        PerQueryBalance storage record = _perQueryBalances[tab.listingId][buyer];
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
            PerQueryBalance storage record = _perQueryBalances[tab.listingId][tab.buyer];
            record.balance = uint96(tab.balance);
            if (tab.capChanged) record.depositPrice = ChargeCapRules.pack(tab.capSpent, tab.capNumber);
            tab.balanceChanged = false;
            tab.capChanged = false;
        }
        tab.recordLoaded = false;
    }

    function _settleEscrow(Tab memory tab) private {
        if (tab.escrowAdded != 0) {
            // Cannot overflow: escrow is bounded by the ETH the contract holds.
            listings[tab.listingId].escrow += uint128(tab.escrowAdded);
            tab.escrowAdded = 0;
        }
    }

    /// @dev Writes what the tab holds: the run marks, the last record's balance, the last listing's
    /// escrow, the fees.
    function _settleTab(Tab memory tab) private {
        _settleMarks(tab);
        _settleRecord(tab);
        _settleEscrow(tab);
        // Cannot overflow: fees are bounded by the ETH the contract holds.
        if (tab.feesAdded != 0) accruedFees += uint128(tab.feesAdded);
    }

    /// @dev Whether `runRef` was charged, outside a charge: the public reads' one reader of the marks.
    function _wasCharged(bytes32 runRef) private view returns (bool) {
        uint256 ref = uint256(runRef);
        if (ref >= DENSE_RUN_REFS) return _hashedRunMarks[runRef];
        return chargedRuns[ref >> 8] & (1 << (ref & 255)) != 0;
    }

    /// @dev Whether `runRef` was charged: the one reader of the run marks in a charge (see _markCharged). A dense
    /// reference's word of marks is read into the tab, so the next reference of the same block of 256
    /// costs no storage read.
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

    /// @dev Marks `runRef` charged: a dense reference (below DENSE_RUN_REFS) as a bit of its word of
    /// `chargedRuns` (held in the tab, read there by _isCharged just before), any other in
    /// `_hashedRunMarks`. With _isCharged the one reader and writer of the marks, so no reference is charged
    /// twice whichever function charges it.
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
        if (refusal == InsufficientBalance.selector) revert InsufficientBalance(arg0, arg1);
        if (refusal == PriceTooLow.selector) revert PriceTooLow(arg0, arg1);
        if (refusal == ListingNotFound.selector) revert ListingNotFound();
        if (refusal == ListingNotActive.selector) revert ListingNotActive();
        if (refusal == InvalidAccessType.selector) revert InvalidAccessType();
        if (refusal == CredentialNotFound.selector) revert CredentialNotFound();
        if (refusal == ChargeCapExceeded.selector) revert ChargeCapExceeded(arg0, arg1);
        revert CredentialRevoked();
    }

    function _hashPair(bytes32 a, bytes32 b) private pure returns (bytes32) {
        return a < b ? keccak256(abi.encode(a, b)) : keccak256(abi.encode(b, a));
    }
}

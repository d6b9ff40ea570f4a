// `npm run mutants [-- options]`: how strong the contract's tests are. Each hand-written mutant below is
// one plausible bug in contracts/src/Marketplace.sol (a flipped comparison, a dropped check, wrong fee
// math, a skipped state write, ...). For each, a temporary copy of the contracts gets the mutant and
// Hardhat runs, on a fresh build directory:
//  1. the model-based invariant campaign alone (contracts/test/MarketplaceInvariant.t.sol), and
//  2. the whole Solidity suite (unit, fuzz, coverage, invariant);
// a run that fails kills the mutant. First the unmutated copy runs both the same way: the invariant
// file must pass alone on a fresh build, and the suite must pass, or no kill would mean anything.
//
// Options: --contract=token (the mutants of contracts/src/TokenMarketplace.sol, TOKEN_MUTANTS below,
// against its invariant campaign, contracts/test/TokenMarketplaceInvariant.t.sol),
// --invariant-only (skip the whole-suite runs), --suite-only (the whole Solidity suite alone, one run per
// mutant: the suite holds the invariant campaign, so a kill by either counts once and each mutant costs one
// run, not two), --jobs=N (N mutants at once, each in its own scratch project), --only=<id>,<id> (those mutants), --from=<id> (resume a stopped run at that mutant),
// --list (print the mutants and check each still applies to exactly one place, without running),
// --tests=<file>,<file> (instead of the invariant campaign and the whole suite, those Solidity test files
// alone: a mutant's own unit tests, for a quick count; the baseline must pass them).
// A mutant may name another source than the contract's (`file`): the charge caps' rules live in
// contracts/src/ChargeCapRules.sol, shared by both contracts: its mutants (CAP_RULES_MUTANTS) are in both lists,
// so each contract's tests judge them.
// It takes hours on two cores (113 mutants, 45 with --contract=token; --invariant-only about two), so it is not part of `npm test`; docs/reference/contract.md ("Tests and lint") keeps its figures.
import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const CONTRACTS = {
  eth: { source: "contracts/src/Marketplace.sol", invariant: "contracts/test/MarketplaceInvariant.t.sol" },
  token: { source: "contracts/src/TokenMarketplace.sol", invariant: "contracts/test/TokenMarketplaceInvariant.t.sol" },
} as const;
const chosenContract = process.argv.includes("--contract=token") ? CONTRACTS.token : CONTRACTS.eth;
const SOURCE = chosenContract.source;
const INVARIANT_FILE = chosenContract.invariant;
/** A run that takes longer than this is stopped and counted as a kill (a mutant that hangs the suite). */
const RUN_TIMEOUT_MS = 30 * 60_000;

export interface Mutant {
  id: string;
  /** The bug, in words. */
  what: string;
  /** Text of the source that occurs exactly once, and what replaces it. */
  find: string;
  replace: string;
  /** The source it mutates, when not the chosen contract's (e.g. contracts/src/ChargeCapRules.sol). */
  file?: string;
}

const CAP_RULES = "contracts/src/ChargeCapRules.sol";

/** The charge caps' rules (contracts/src/ChargeCapRules.sol), shared by both contracts: in both lists, so each
 * contract's tests (or its invariant campaign) judge them. */
const CAP_RULES_MUTANTS: Mutant[] = [
  { id: "cap-boundary", what: "a charge that takes the period exactly to the cap is refused (> flipped to >=)", file: CAP_RULES, find: "return spent + price > amount;", replace: "return spent + price >= amount;" },
  { id: "cap-period-late", what: "a period lasts a second longer than set (the periods drift later)", file: CAP_RULES, find: "number = (block.timestamp - periodStart) / period;", replace: "number = (block.timestamp - periodStart) / (period + 1);" },
  { id: "cap-period-early", what: "a period ends a second early", file: CAP_RULES, find: "number = (block.timestamp - periodStart) / period;", replace: "number = (block.timestamp + 1 - periodStart) / period;" },
  { id: "cap-rollover-ignored", what: "a charge never sees a new period: the earlier periods' charges count forever", file: CAP_RULES, find: "if (number == word >> SPENT_BITS) return (", replace: "if (true) return (" },
  { id: "cap-period-number-not-stored", what: "the record's word keeps no period number (each call of a later period starts it afresh)", file: CAP_RULES, find: "return uint96(spent | (number << SPENT_BITS));", replace: "return uint96(spent);" },
  { id: "cap-new-period-not-written", what: "a new period is written only with a charge (after a rebase, a call whose charges are all refused leaves a stale period number)", file: CAP_RULES, find: "        changed = true;\n", replace: "" },
  { id: "cap-rebase-unaligned", what: "from the 256th period on, the periods are counted from the charge, not from a whole number of periods", file: CAP_RULES, find: "cap.periodStart = uint40(periodStart + number * period);", replace: "cap.periodStart = uint40(block.timestamp);" },
  { id: "cap-rebase-not-written", what: "from the 256th period on, the cap's start is never moved (its period number wraps)", file: CAP_RULES, find: "            cap.periodStart = uint40(periodStart + number * period);\n", replace: "" },
  { id: "cap-set-no-flag", what: "setting a cap leaves the record uncapped", file: CAP_RULES, find: "            record.chargeCapped = true;\n", replace: "" },
  { id: "cap-set-keeps-charges", what: "a new cap keeps the record's word (the deposit price, or the earlier period's charges) as its period's charges", file: CAP_RULES, find: "        record.depositPrice = 0;\n", replace: "" },
  { id: "cap-set-start-kept", what: "a new cap's periods are counted from the old start (or from 0)", file: CAP_RULES, find: "        cap.periodStart = uint40(block.timestamp);\n", replace: "" },
  { id: "cap-set-deposit-price-lost", what: "a new cap drops the renter's deposit price", file: CAP_RULES, find: "            cap.depositPrice = record.depositPrice;\n", replace: "" },
  { id: "cap-zero-amount-removes", what: "a cap of zero (nothing may be charged) removes the cap", file: CAP_RULES, find: "if (amount == 0 && period == 0) {", replace: "if (amount == 0 || period == 0) {" },
  { id: "cap-remove-keeps-flag", what: "removing the cap leaves the record capped", file: CAP_RULES, find: "                record.chargeCapped = false;\n", replace: "" },
  { id: "cap-remove-deposit-price-lost", what: "removing the cap leaves the period's charges as the deposit price", file: CAP_RULES, find: "                record.depositPrice = cap.depositPrice;\n", replace: "" },
  { id: "cap-period-min-boundary", what: "a period of exactly one hour is refused", file: CAP_RULES, find: "if (period < MIN_PERIOD || period > MAX_PERIOD || amount > type(uint88).max) {", replace: "if (period <= MIN_PERIOD || period > MAX_PERIOD || amount > type(uint88).max) {" },
  { id: "cap-period-max-dropped", what: "a period above 180 days is accepted (and truncated into uint24)", file: CAP_RULES, find: "if (period < MIN_PERIOD || period > MAX_PERIOD || amount > type(uint88).max) {", replace: "if (period < MIN_PERIOD || amount > type(uint88).max) {" },
  { id: "cap-amount-bound-dropped", what: "an amount above 2^88 - 1 is accepted (and truncated)", file: CAP_RULES, find: "if (period < MIN_PERIOD || period > MAX_PERIOD || amount > type(uint88).max) {", replace: "if (period < MIN_PERIOD || period > MAX_PERIOD) {" },
  { id: "cap-deposit-price-read-from-record", what: "a capped renter's deposit price is read from the record (the period's charges)", file: CAP_RULES, find: "return record.chargeCapped ? cap.depositPrice : record.depositPrice;", replace: "return record.depositPrice;" },
  { id: "cap-report-first-period", what: "chargeCaps reports the first period's start, not the stored period's", file: CAP_RULES, find: "periodStart = uint40(cap.periodStart + (word >> SPENT_BITS) * period);", replace: "periodStart = uint40(cap.periodStart);" },
];

export const MUTANTS: Mutant[] = [
  // consumeQuery and consumeQueries share one charge (_charge): the admitted price, idempotency, the balance and the credential checks
  { id: "consume-no-price-cap", what: "a charge takes the current price, ignoring the admitted maxPrice", find: "        if (price > maxPrice) price = maxPrice;\n", replace: "" },
  { id: "consume-cap-inverted", what: "a charge takes max(price, maxPrice) instead of the min", find: "if (price > maxPrice) price = maxPrice;", replace: "if (price < maxPrice) price = maxPrice;" },
  { id: "consume-not-idempotent", what: "a run reference charged before is charged again", find: "        if (_isCharged(tab, runRef)) return (bytes4(0), 0, 0);\n", replace: "" },
  { id: "consume-no-marker", what: "a hashed run reference is never marked charged (skipped write)", find: "            _hashedRunMarks[runRef] = true;\n", replace: "" },
  { id: "consume-balance-boundary", what: "a balance exactly equal to the charge is refused (< flipped to <=)", find: "if (balance < price) return (InsufficientBalance.selector, balance, price);", replace: "if (balance <= price) return (InsufficientBalance.selector, balance, price);" },
  { id: "consume-revoked-charged", what: "a revoked renter is charged", find: "        if (tab.isRevoked) return (CredentialRevoked.selector, 0, 0);\n", replace: "" },
  { id: "consume-closed-charged", what: "a run on a closed listing is charged", find: "        if (tab.status == ListingStatus.Closed) return (ListingNotActive.selector, 0, 0);\n", replace: "" },
  { id: "consume-no-balance-write", what: "a charge never debits the balance (skipped write)", find: "        tab.balanceChanged = true;\n", replace: "" },
  // consumeQueries: the batch, its tab (what it holds in memory and writes once) and the dense run marks
  { id: "batch-no-authority", what: "consumeQueries is open to anyone", find: "function consumeQueries(Charge[] calldata charges) external onlyAuthority nonReentrant", replace: "function consumeQueries(Charge[] calldata charges) external nonReentrant" },
  { id: "batch-refusal-reverts", what: "a refused charge reverts the whole batch", find: "            else if (outcome != bytes4(0)) emit QueryRefused(c.listingId, c.buyer, c.runRef, outcome);", replace: "            else if (outcome != bytes4(0)) _revertWith(outcome, 0, 0);" },
  { id: "batch-refusal-silent", what: "a refused charge is not reported (no QueryRefused)", find: "            else if (outcome != bytes4(0)) emit QueryRefused(c.listingId, c.buyer, c.runRef, outcome);", replace: "" },
  { id: "batch-refusal-wrong-reason", what: "every refusal is reported as InsufficientBalance", find: "emit QueryRefused(c.listingId, c.buyer, c.runRef, outcome);", replace: "emit QueryRefused(c.listingId, c.buyer, c.runRef, InsufficientBalance.selector);" },
  { id: "batch-count-wrong", what: "consumeQueries counts refused runs as charged", find: "            if (outcome == CHARGED) ++chargedCount;", replace: "            if (outcome != bytes4(0)) ++chargedCount;" },
  { id: "batch-marks-not-written", what: "a call's dense run marks are never written (skipped write)", find: "        _settleMarks(tab);\n        _settleRecord(tab);\n        _settleEscrow(tab);\n        // Cannot overflow: fees", replace: "        _settleRecord(tab);\n        _settleEscrow(tab);\n        // Cannot overflow: fees" },
  { id: "batch-marks-lost-at-word-switch", what: "the marks of a word are dropped when a batch moves to another word", find: "            _settleMarks(tab);\n            tab.marksWord = word;", replace: "            tab.marksWord = word;" },
  { id: "batch-marks-wrong-word", what: "a dense reference's marks word is not reloaded for another word", find: "        if (!tab.marksLoaded || tab.marksWord != word) {", replace: "        if (!tab.marksLoaded) {" },
  { id: "batch-mark-wrong-bit", what: "a dense reference marks bit runRef & 127 (two references share a bit)", find: "            tab.marks |= 1 << (ref & 255);", replace: "            tab.marks |= 1 << (ref & 127);" },
  { id: "dense-boundary", what: "the reader takes 2^64 for a dense reference, the writer for a hashed one", find: "        if (ref >= DENSE_RUN_REFS) return _hashedRunMarks[runRef];\n        uint256 word = ref >> 8;", replace: "        if (ref > DENSE_RUN_REFS) return _hashedRunMarks[runRef];\n        uint256 word = ref >> 8;" },
  { id: "runs-read-hashed-only", what: "consumedRuns(runRef) says false for a charged dense reference", find: "    function consumedRuns(bytes32 runRef) external view returns (bool consumed) {\n        return _wasCharged(runRef);", replace: "    function consumedRuns(bytes32 runRef) external view returns (bool consumed) {\n        return _hashedRunMarks[runRef];" },
  { id: "batch-record-lost-at-switch", what: "a renter's debits are dropped when the batch moves to another renter", find: "        if (tab.recordLoaded && tab.buyer == buyer) return;\n        _settleRecord(tab);", replace: "        if (tab.recordLoaded && tab.buyer == buyer) return;" },
  { id: "batch-record-of-another-renter", what: "the batch charges the previous renter's record for another renter", find: "        if (tab.recordLoaded && tab.buyer == buyer) return;", replace: "        if (tab.recordLoaded) return;" },
  { id: "batch-escrow-lost-at-switch", what: "a listing's earnings are dropped when the batch moves to another listing", find: "        _settleRecord(tab);\n        _settleEscrow(tab);\n        Listing storage listing = listings[listingId];", replace: "        _settleRecord(tab);\n        Listing storage listing = listings[listingId];" },
  { id: "batch-listing-of-another-id", what: "the batch checks and credits the previous listing for another one", find: "        if (tab.listingId == listingId && tab.status != ListingStatus.None) return;", replace: "        if (tab.status != ListingStatus.None) return;" },
  { id: "batch-fees-not-written", what: "a call's fees are never added to accruedFees (skipped write)", find: "        if (tab.feesAdded != 0) accruedFees += uint128(tab.feesAdded);\n", replace: "" },
  { id: "batch-escrow-gets-fee", what: "a charge credits the escrow with the whole price, fee included", find: "        tab.escrowAdded += price - fee;", replace: "        tab.escrowAdded += price;" },
  { id: "batch-fee-wrong-divisor", what: "a charge's fee is divided by 1000 instead of 10,000 basis points", find: "        uint256 fee = (price * tab.feeBasisPoints) / BASIS_POINTS;", replace: "        uint256 fee = (price * tab.feeBasisPoints) / 1000;" },
  // fee math
  { id: "fee-wrong-divisor", what: "the fee is divided by 1000 instead of 10,000 basis points", find: "fee = (amount * feeBasisPoints) / BASIS_POINTS;", replace: "fee = (amount * feeBasisPoints) / 1000;" },
  { id: "fee-escrow-gets-all", what: "escrow is credited the whole amount, fee included", find: "listing.escrow += uint128(amount - fee);", replace: "listing.escrow += uint128(amount);" },
  { id: "fee-not-accrued", what: "the fee is never added to accruedFees (skipped write)", find: "        accruedFees += uint128(fee);\n", replace: "" },
  { id: "fee-cap-boundary", what: "setFeeBasisPoints refuses the cap itself (> flipped to >=)", find: "if (newFeeBasisPoints > MAX_FEE_BASIS_POINTS)", replace: "if (newFeeBasisPoints >= MAX_FEE_BASIS_POINTS)" },
  { id: "fee-cap-dropped", what: "setFeeBasisPoints has no cap", find: "        if (newFeeBasisPoints > MAX_FEE_BASIS_POINTS) revert FeeTooHigh(newFeeBasisPoints, MAX_FEE_BASIS_POINTS);\n", replace: "" },
  // withdrawals
  { id: "unspent-not-zeroed", what: "withdrawUnspentBalance pays without zeroing the balance (skipped write)", find: "        record.balance = 0;\n        record.withdrawalRequested = false;\n        emit UnspentBalanceWithdrawn(listingId, msg.sender, amount);", replace: "        record.withdrawalRequested = false;\n        emit UnspentBalanceWithdrawn(listingId, msg.sender, amount);" },
  { id: "unspent-price-rise-boundary", what: "an unchanged price counts as a rise (> flipped to >=)", find: "|| price > ChargeCapRules.depositPrice(record, _chargeCaps[listingId][msg.sender]) || balance < price", replace: "|| price >= ChargeCapRules.depositPrice(record, _chargeCaps[listingId][msg.sender]) || balance < price" },
  { id: "unspent-low-balance-boundary", what: "a balance exactly covering one run counts as low (< flipped to <=)", find: "|| price > ChargeCapRules.depositPrice(record, _chargeCaps[listingId][msg.sender]) || balance < price", replace: "|| price > ChargeCapRules.depositPrice(record, _chargeCaps[listingId][msg.sender]) || balance <= price" },
  { id: "unspent-paused-frozen", what: "a paused listing's balance cannot be taken back", find: "return listing.status != ListingStatus.Active || record.isRevoked", replace: "return listing.status == ListingStatus.Closed || record.isRevoked" },
  { id: "earnings-ignore-vesting", what: "withdrawEarnings pays unvested subscription earnings", find: "listing.accessType == AccessType.Subscription ? escrow - _syncVesting(listingId) : escrow;", replace: "listing.accessType == AccessType.Subscription ? escrow : escrow;" },
  { id: "earnings-not-debited", what: "withdrawEarnings pays without reducing the escrow (skipped write)", find: "        listing.escrow = uint128(escrow - amount);\n", replace: "" },
  { id: "fees-not-zeroed", what: "withdrawFees pays without zeroing accruedFees (skipped write)", find: "        accruedFees = 0;\n", replace: "" },
  { id: "fees-authority-refused", what: "withdrawFees refuses the authority (&& flipped to ||)", find: "if (msg.sender != recipient && msg.sender != authority)", replace: "if (msg.sender != recipient || msg.sender != authority)" },
  // listings
  { id: "close-with-escrow", what: "closeListing closes a listing whose escrow holds funds", find: "        if (listing.escrow != 0) revert EscrowNotEmpty();\n", replace: "" },
  { id: "close-and-withdraw-unvested", what: "closeListingAndWithdraw pays out and closes before subscription earnings vested", find: "if (amount != 0 && listing.accessType == AccessType.Subscription && _syncVesting(listingId) != 0) {", replace: "if (amount != 0 && listing.accessType == AccessType.Subscription && _syncVesting(listingId) == type(uint256).max) {" },
  { id: "close-and-withdraw-keeps-escrow", what: "closeListingAndWithdraw pays the escrow without emptying it (skipped write)", find: "        listing.escrow = 0;\n        listing.status = ListingStatus.Closed;", replace: "        listing.status = ListingStatus.Closed;" },
  { id: "close-and-withdraw-stays-open", what: "closeListingAndWithdraw pays but leaves the listing open (skipped write)", find: "        listing.escrow = 0;\n        listing.status = ListingStatus.Closed;", replace: "        listing.escrow = 0;" },
  { id: "purchase-on-paused", what: "a paused listing sells new rentals", find: "        if (status != ListingStatus.Active) revert ListingNotActive();\n", replace: "" },
  { id: "creator-acts-on-closed", what: "creator actions work on a closed listing", find: "        if (status == ListingStatus.Closed) revert ListingNotActive();\n    }\n\n    function _checkListingTerms", replace: "    }\n\n    function _checkListingTerms" },
  { id: "create-while-paused", what: "createListing works while the protocol is paused", find: "        if (paused) revert ProtocolPaused();\n        _checkListingTerms(price, metadataUri);", replace: "        _checkListingTerms(price, metadataUri);" },
  // subscriptions and vesting
  { id: "vesting-end-rounded-down", what: "a payment's vesting ends at the day boundary before its expiry (paid early)", find: "uint256 endDay = (paidUntil + VESTING_DAY - 1) / VESTING_DAY;", replace: "uint256 endDay = paidUntil / VESTING_DAY;" },
  { id: "vesting-renewal-starts-now", what: "a running subscription's renewal vests from now, not from its current expiry", find: "uint256 start = paidFrom > block.timestamp ? ((paidFrom + VESTING_DAY - 1) / VESTING_DAY) * VESTING_DAY : block.timestamp;", replace: "uint256 start = block.timestamp;" },
  { id: "vesting-remainder-dropped", what: "a payment's remainder is never released at its end", find: "_vestingDay(listingId, endDay, -int128(int256(rate)), amount - rate * span);", replace: "_vestingDay(listingId, endDay, -int128(int256(rate)), 0);" },
  { id: "vesting-day-unmarked", what: "a vesting day's bit is never set (its change is never applied)", find: "        vestingDayBits[listingId][day >> 8] |= 1 << (day & 255);\n", replace: "" },
  { id: "vesting-today-skipped", what: "the day that has just begun is left out of the walk", find: "if (word == last >> 8) bits &= type(uint256).max >> (255 - (last & 255));", replace: "if (word == last >> 8) bits &= type(uint256).max >> (256 - (last & 255));" },
  { id: "vesting-not-brought-up-to-date", what: "a payment is added to the vesting as last stored, without the time since", find: "        (Vesting memory v,) = _vestingNow(listingId);\n        uint256 endDay", replace: "        Vesting memory v = vestings[listingId];\n        uint256 endDay" },
  { id: "vesting-rate-ignored-between-days", what: "the walk applies the days but not the rate between them", find: "                unvested -= rate * (boundary - t);\n", replace: "" },
  { id: "renew-bound-dropped", what: "a renewal may pay any time ahead (no 395-day bound)", find: "        if (expiresAt > maxExpiresAt) revert ExpiryTooLate(expiresAt, maxExpiresAt);\n", replace: "" },
  { id: "renew-bound-boundary", what: "a renewal to exactly 395 days ahead is refused (> flipped to >=)", find: "if (expiresAt > maxExpiresAt)", replace: "if (expiresAt >= maxExpiresAt)" },
  { id: "renew-expiry-past-uint40", what: "a renewal within 395 days but past 2^40 - 1 is stored wrapped", find: "        if (maxExpiresAt > MAX_EXPIRY) maxExpiresAt = MAX_EXPIRY;\n", replace: "" },
  { id: "purchase-expiry-past-uint40", what: "a subscription purchase whose expiry passes 2^40 - 1 is stored wrapped", find: "        if (expiresAt > MAX_EXPIRY) revert ExpiryTooLate(expiresAt, MAX_EXPIRY);\n", replace: "" },
  { id: "purchase-expiry-boundary", what: "a purchase expiring exactly at 2^40 - 1 is refused (> flipped to >=)", find: "if (expiresAt > MAX_EXPIRY) revert", replace: "if (expiresAt >= MAX_EXPIRY) revert" },
  { id: "renew-loses-paid-time", what: "renewing an active subscription restarts from now (paid time lost)", find: "uint256 paidFrom = currentExpiry > block.timestamp ? currentExpiry : block.timestamp;", replace: "uint256 paidFrom = block.timestamp;" },
  { id: "subscription-cost-truncated", what: "a subscription's cost divides before multiplying (365 days priced as 12 periods)", find: "return (price * durationSeconds) / SUBSCRIPTION_PERIOD;", replace: "return price * (durationSeconds / SUBSCRIPTION_PERIOD);" },
  { id: "subscription-overpay-kept", what: "a subscription purchase accepts more than its price (!= flipped to <)", find: "        if (msg.value != cost) revert IncorrectPayment(cost, msg.value);\n        uint256 expiresAt = block.timestamp + durationSeconds;", replace: "        if (msg.value < cost) revert IncorrectPayment(cost, msg.value);\n        uint256 expiresAt = block.timestamp + durationSeconds;" },
  // validity
  { id: "validity-low-balance-zero-only", what: "a per-query balance below one run reads Active unless it is zero", find: "if (record.withdrawalRequested || record.balance < listing.price) return CredentialStatus.LowBalance;", replace: "if (record.withdrawalRequested || record.balance == 0) return CredentialStatus.LowBalance;" },
  { id: "validity-expiry-boundary", what: "a subscription is valid at its expiry second (>= flipped to >)", find: "block.timestamp >= credential.expiresAt", replace: "block.timestamp > credential.expiresAt" },
  { id: "validity-revoked-ignored", what: "a revoked one-time or subscription credential stays Active (skipped write)", find: "        credential.isRevoked = true;\n", replace: "" },
  // deposits
  { id: "deposit-boundary", what: "purchasePerQuery refuses a deposit of exactly one run (< flipped to <=)", find: "        if (msg.value < price) revert DepositTooLow(msg.value, price);\n        if (msg.value > MAX_BALANCE)", replace: "        if (msg.value <= price) revert DepositTooLow(msg.value, price);\n        if (msg.value > MAX_BALANCE)" },
  { id: "balance-bound-dropped", what: "a top-up may take the balance past 2^96 - 1 (it wraps)", find: "        if (newBalance > MAX_BALANCE) revert BalanceTooLarge(newBalance, MAX_BALANCE);\n", replace: "" },
  { id: "topup-keeps-old-price", what: "topUpBalance does not record the price the renter accepted (the old one kept)", find: "            word = kept | (price << RECORD_DEPOSIT_PRICE_SHIFT) | newBalance;", replace: "            word = kept | (word & RECORD_DEPOSIT_PRICE) | newBalance;" },
  // the renter's exit: a request, then the withdrawal after the delay; consent caps the price
  { id: "exit-no-delay", what: "a requested withdrawal is paid before the delay passed", find: "            if (block.timestamp < withdrawableAt) revert WithdrawalNotReady(withdrawableAt);\n", replace: "" },
  { id: "exit-delay-boundary", what: "a withdrawal at exactly the ready second is refused (< flipped to <=)", find: "if (block.timestamp < withdrawableAt) revert WithdrawalNotReady(withdrawableAt);", replace: "if (block.timestamp <= withdrawableAt) revert WithdrawalNotReady(withdrawableAt);" },
  { id: "exit-without-request", what: "a renter who may leave withdraws at once, without a request", find: "            if (!record.withdrawalRequested) revert WithdrawalNotReady(0);\n", replace: "" },
  { id: "exit-judged-when-asked", what: "a request made while the renter could leave pays out after the reason has gone (a resume, a price rise undone)", find: "            if (!_mayLeave(listingId, listing, record, amount)) revert Unauthorized();\n            if (!record.withdrawalRequested)", replace: "            if (!record.withdrawalRequested)" },
  { id: "exit-closed-waits", what: "a closed listing's balance waits for a request too", find: "if (listing.status != ListingStatus.Closed && !record.isRevoked) {", replace: "if (!record.isRevoked) {" },
  { id: "exit-topup-keeps-request", what: "a top-up does not cancel a pending request (the request's byte kept)", find: "        uint256 kept = word & (RECORD_PURCHASED_AT | RECORD_IS_REVOKED | RECORD_CHARGE_CAPPED);", replace: "        uint256 kept = word & (RECORD_PURCHASED_AT | RECORD_IS_REVOKED | RECORD_CHARGE_CAPPED | (uint256(0xff) << 240));" },
  { id: "exit-request-kept-after-withdrawal", what: "the withdrawal leaves the request pending (skipped write)", find: "        record.balance = 0;\n        record.withdrawalRequested = false;", replace: "        record.balance = 0;" },
  { id: "exit-request-time-unstored", what: "the request's time is never stored (skipped write)", find: "        withdrawalRequestedAt[listingId][msg.sender] = block.timestamp;\n", replace: "" },
  { id: "exit-leaving-balance-valid", what: "a balance whose withdrawal was requested stays valid for new runs", find: "if (record.withdrawalRequested || record.balance < listing.price) return CredentialStatus.LowBalance;", replace: "if (record.balance < listing.price) return CredentialStatus.LowBalance;" },
  { id: "consent-cap-dropped", what: "a charge may exceed the renter's deposit price", find: "        if (price > tab.depositPrice) price = tab.depositPrice;\n", replace: "" },
  { id: "consent-cap-inverted", what: "a charge takes max(price, deposit price) instead of the min", find: "if (price > tab.depositPrice) price = tab.depositPrice;", replace: "if (price < tab.depositPrice) price = tab.depositPrice;" },
  // authority and the run log
  { id: "authority-one-step", what: "transferAuthority hands the role over at once", find: "        pendingAuthority = newAuthority;\n        emit AuthorityTransferStarted", replace: "        authority = newAuthority;\n        emit AuthorityTransferStarted" },
  { id: "authority-pending-kept", what: "acceptAuthority leaves the proposal pending (skipped write)", find: "        pendingAuthority = address(0);\n", replace: "" },
  { id: "runlog-zero-count", what: "logRuns accepts a batch of zero runs", find: "if (root == bytes32(0) || count == 0) revert EmptyRunBatch();", replace: "if (root == bytes32(0)) revert EmptyRunBatch();" },
  { id: "reentrancy-guard-off", what: "the reentrancy guard never locks", find: "        _locked = true;\n", replace: "" },
  // charge caps: the charge's check and count, the record's word written once per call, the deposit price kept in the
  // cap's slot (decisions 0196, 0245); the rules themselves, in ChargeCapRules.sol, are CAP_RULES_MUTANTS above
  { id: "cap-check-dropped", what: "a charge past the renter's cap is charged", find: "            if (ChargeCapRules.refuses(tab.capAmount, tab.capSpent, price)) {\n                return (ChargeCapExceeded.selector, tab.capSpent, tab.capAmount);\n            }\n", replace: "" },
  { id: "cap-flag-ignored", what: "a capped renter's record is charged as uncapped", find: "        tab.capped = record.chargeCapped;", replace: "        tab.capped = false;" },
  { id: "cap-charges-not-counted", what: "a charge does not add to the period's charges", find: "            tab.capSpent += price;\n", replace: "" },
  { id: "cap-charges-not-written", what: "a call's charges under a cap (and a new period) are never written to the record", find: "            if (tab.capChanged) record.depositPrice = ChargeCapRules.pack(tab.capSpent, tab.capNumber);\n", replace: "" },
  { id: "cap-consume-wrong-error", what: "consumeQuery reverts CredentialRevoked for a charge past the cap", find: "        if (refusal == ChargeCapExceeded.selector) revert ChargeCapExceeded(arg0, arg1);\n", replace: "" },
  { id: "cap-refusal-wrong-arguments", what: "ChargeCapExceeded names the cap as the charges and the charges as the cap", find: "return (ChargeCapExceeded.selector, tab.capSpent, tab.capAmount);", replace: "return (ChargeCapExceeded.selector, tab.capAmount, tab.capSpent);" },
  { id: "cap-set-without-rental", what: "setChargeCap accepts a renter who holds nothing on the listing", find: "        if (record.purchasedAt == 0) revert CredentialNotFound();\n        ChargeCapRules.set(", replace: "        ChargeCapRules.set(" },
  { id: "cap-topup-deposit-price-lost", what: "a capped renter's top-up leaves the deposit price at the old price", find: "            _chargeCaps[listingId][msg.sender].depositPrice = uint96(price);\n", replace: "" },
  { id: "cap-topup-forgets-charges", what: "a capped renter's top-up clears the period's charges", find: "word = kept | (word & RECORD_DEPOSIT_PRICE) | newBalance;", replace: "word = kept | newBalance;" },
  { id: "cap-leave-reads-record", what: "the right to leave reads a capped renter's period charges as the deposit price", find: "|| price > ChargeCapRules.depositPrice(record, _chargeCaps[listingId][msg.sender]) || balance < price;", replace: "|| price > record.depositPrice || balance < price;" },
  { id: "cap-charge-reads-record-price", what: "a capped charge reads the period charges' word as the deposit price", find: "(tab.capAmount, tab.depositPrice, tab.capSpent, tab.capNumber, tab.capChanged) =", replace: "(tab.capAmount,, tab.capSpent, tab.capNumber, tab.capChanged) =" },
  ...CAP_RULES_MUTANTS,
];

/** Plausible bugs of TokenMarketplace.sol: the currency kept apart, the transfer checked, x402 settlement. */
export const TOKEN_MUTANTS: Mutant[] = [
  { id: "token-fees-other-token", what: "a purchase's fee is credited to another token's fees", find: "        accruedFees[listing.token] += fee;", replace: "        accruedFees[address(0)] += fee;" },
  { id: "token-no-shortfall-check", what: "a transfer that delivers less than asked is accepted", find: "        if (received != expected) revert TransferShortfall(expected, received);", replace: "" },
  { id: "token-allowlist-ignored", what: "a purchase in a token off the allowlist is accepted", find: "        if (!tokenTerms[token].allowed) revert TokenNotAllowed(token);\n        if (kind == Purchase.PerQuery", replace: "        if (kind == Purchase.PerQuery" },
  { id: "token-batch-fees-lost-at-switch", what: "a batch's fees are dropped when it moves to another token", find: "            accruedFees[tab.token] += tab.feesAdded;\n", replace: "" },
  { id: "x402-failed-transfer-counted", what: "a payment whose transfer failed is counted as settled", find: "                    settled := add(settled, ok)\n", replace: "                    settled := add(settled, 1)\n" },
  { id: "x402-failure-unreported", what: "a payment whose transfer failed is not reported", find: "                    if iszero(ok) {\n                        mstore(0, failed)\n", replace: "                    if 0 {\n                        mstore(0, failed)\n" },
  { id: "x402-group-refusal-ignored", what: "a group's refusal (its listing, token or value) is ignored and its payments are sent", find: "            switch refusal\n", replace: "            switch 0\n" },
  { id: "x402-count-of-one", what: "a group's PaymentsSettled counts one payment whatever settled", find: "            emit PaymentsSettled(listingId, value, _tabFee(tab, value, settled), settled);", replace: "            emit PaymentsSettled(listingId, value, _tabFee(tab, value, settled), 1);" },
  { id: "x402-batch-past-end", what: "a group whose payments run past the batch's end is read on (as zeros)", find: "if (count == 0 || length - offset - GROUP_HEADER_BYTES < size) revert MalformedBatch(offset);", replace: "if (count == 0) revert MalformedBatch(offset);" },
  { id: "x402-fee-of-one-payment", what: "a group's fees are counted for one payment, not each", find: "        tab.feesAdded += fee * count;", replace: "        tab.feesAdded += fee;" },
  { id: "x402-any-amount", what: "a payment of another amount than the price settles", find: "        if (value != tab.price) return Marketplace.IncorrectPayment.selector;\n", replace: "" },
  { id: "x402-closed-listing", what: "a payment to a closed listing settles", find: "        if (tab.status == Marketplace.ListingStatus.Closed) return Marketplace.ListingNotActive.selector;\n        if (tab.accessType != Marketplace.AccessType.PerQuery) return Marketplace.InvalidAccessType.selector;\n        if (!tab.tokenLoaded)", replace: "        if (tab.accessType != Marketplace.AccessType.PerQuery) return Marketplace.InvalidAccessType.selector;\n        if (!tab.tokenLoaded)" },
  { id: "x402-open-to-anyone", what: "settlePayments is open to anyone", find: "        onlyAuthority\n        nonReentrant\n        returns (uint256 settledCount)", replace: "        nonReentrant\n        returns (uint256 settledCount)" },
  { id: "token-withdraw-fees-twice", what: "withdrawFees does not zero the token's fees", find: "        accruedFees[token] = 0;\n", replace: "" },
  // charge caps, as the ETH contract's (and the shared rules, CAP_RULES_MUTANTS)
  { id: "token-cap-check-dropped", what: "a token charge past the renter's cap is charged", find: "            if (ChargeCapRules.refuses(tab.capAmount, tab.capSpent, price)) {\n                return (Marketplace.ChargeCapExceeded.selector, tab.capSpent, tab.capAmount);\n            }\n", replace: "" },
  { id: "token-cap-flag-ignored", what: "a capped renter's record is charged as uncapped", find: "        tab.capped = record.chargeCapped;", replace: "        tab.capped = false;" },
  { id: "token-cap-charges-not-counted", what: "a charge does not add to the period's charges", find: "            tab.capSpent += price;\n", replace: "" },
  { id: "token-cap-charges-not-written", what: "a call's charges under a cap (and a new period) are never written to the record", find: "            if (tab.capChanged) record.depositPrice = ChargeCapRules.pack(tab.capSpent, tab.capNumber);\n", replace: "" },
  { id: "token-cap-consume-wrong-error", what: "consumeQuery reverts CredentialRevoked for a charge past the cap", find: "        if (refusal == Marketplace.ChargeCapExceeded.selector) revert Marketplace.ChargeCapExceeded(arg0, arg1);\n", replace: "" },
  { id: "token-cap-refusal-wrong-arguments", what: "ChargeCapExceeded names the cap as the charges and the charges as the cap", find: "return (Marketplace.ChargeCapExceeded.selector, tab.capSpent, tab.capAmount);", replace: "return (Marketplace.ChargeCapExceeded.selector, tab.capAmount, tab.capSpent);" },
  { id: "token-cap-set-without-rental", what: "setChargeCap accepts a renter who holds nothing", find: "        if (record.purchasedAt == 0) revert Marketplace.CredentialNotFound();\n        ChargeCapRules.set(", replace: "        ChargeCapRules.set(" },
  { id: "token-cap-topup-deposit-price-lost", what: "a capped renter's top-up leaves the deposit price at the old price", find: "if (record.chargeCapped) _chargeCaps[listingId][msg.sender].depositPrice = uint96(price);\n        else record.depositPrice", replace: "if (record.chargeCapped) {}\n        else record.depositPrice" },
  { id: "token-cap-topup-overwrites-charges", what: "a capped renter's top-up writes the deposit price over the period's charges", find: "        else record.depositPrice = uint96(price);\n", replace: "        record.depositPrice = uint96(price);\n" },
  { id: "token-cap-leave-reads-record", what: "the right to leave reads a capped renter's period charges as the deposit price", find: "|| price > ChargeCapRules.depositPrice(record, _chargeCaps[listingId][msg.sender]) || balance < price;", replace: "|| price > record.depositPrice || balance < price;" },
  { id: "token-cap-charge-reads-record-price", what: "a capped charge reads the period charges' word as the deposit price", find: "(tab.capAmount, tab.depositPrice, tab.capSpent, tab.capNumber, tab.capChanged) =", replace: "(tab.capAmount,, tab.capSpent, tab.capNumber, tab.capChanged) =" },
  ...CAP_RULES_MUTANTS,
];

/** The source file `mutant` changes. */
const fileOf = (mutant: Mutant): string => mutant.file ?? SOURCE;

/** That file's text with `mutant` applied; throws when its text is not found exactly once. */
export function applyMutant(source: string, mutant: Mutant): string {
  const at = source.indexOf(mutant.find);
  if (at < 0) throw new Error(`mutant ${mutant.id}: its text is not in ${fileOf(mutant)} any more; update the mutant`);
  if (source.indexOf(mutant.find, at + 1) >= 0) throw new Error(`mutant ${mutant.id}: its text occurs more than once in ${fileOf(mutant)}; make it unique`);
  return source.slice(0, at) + mutant.replace + source.slice(at + mutant.find.length);
}

/** A throwaway Hardhat project: the repository's contracts, tests and config, its own build directory;
 * `file` (a path under the repository) holds `source`. */
function scratchProject(file: string, source: string): string {
  const dir = mkdtempSync(join(tmpdir(), "mutant-"));
  cpSync(join(root, "contracts"), join(dir, "contracts"), { recursive: true });
  writeFileSync(join(dir, file), source);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "mutant", private: true, type: "module" }));
  symlinkSync(join(root, "node_modules"), join(dir, "node_modules"), "dir");
  return dir;
}

type Outcome = "passed" | "failed" | "timed out";

function hardhat(dir: string, args: string[]): Promise<{ outcome: Outcome; output: string; ms: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(join(root, "node_modules/.bin/hardhat"), ["--config", "contracts/hardhat.config.ts", ...args], {
      cwd: dir,
      env: { ...process.env, PATH: `${join(root, "node_modules/.bin")}:${process.env.PATH ?? ""}`, FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    let output = "";
    const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-20_000));
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) process.kill(-child.pid, "SIGKILL");
    }, RUN_TIMEOUT_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ outcome: timedOut ? "timed out" : code === 0 ? "passed" : "failed", output, ms: Date.now() - started });
    });
  });
}

/** Builds the scratch project (contracts and tests); a mutant that does not compile is a broken mutant. */
async function build(dir: string, label: string): Promise<void> {
  const { outcome, output } = await hardhat(dir, ["build", "--quiet"]);
  if (outcome !== "passed") throw new Error(`${label} does not compile:\n${output.slice(-4_000)}`);
}

interface Result {
  mutant: Mutant;
  invariant: Outcome | "skipped";
  suite: Outcome | "skipped";
  seconds: number;
}

/** What failed, in a few words: the first failing test names Hardhat printed. */
function failures(output: string): string {
  const names = [...output.matchAll(/^\s+\d+\)\s+(.+)$/gm)].map((m) => m[1]!.trim());
  return [...new Set(names)].slice(0, 3).join("; ");
}

/** Which runs judge a mutant: the invariant file alone then the whole suite, or one of the two. */
export type Mode = "both" | "invariant" | "suite";

/** The mode the options name; --invariant-only and --suite-only exclude each other. */
export function modeOf(args: string[]): Mode {
  const invariantOnly = args.includes("--invariant-only");
  const suiteOnly = args.includes("--suite-only");
  if (invariantOnly && suiteOnly) throw new Error("choose one of --invariant-only and --suite-only");
  return invariantOnly ? "invariant" : suiteOnly ? "suite" : "both";
}

/** How many mutants run at once: --jobs=N (1 to 8), default 1. */
export function jobsOf(args: string[]): number {
  const value = args.find((a) => a.startsWith("--jobs="))?.slice("--jobs=".length);
  if (value === undefined) return 1;
  const jobs = Number(value);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 8) throw new Error(`--jobs must be a whole number from 1 to 8, not "${value}"`);
  return jobs;
}

/** The mutants to run: --only's, from --from's on (in the list's order). */
export function chooseMutants(all: Mutant[], args: string[]): Mutant[] {
  const only = args.find((a) => a.startsWith("--only="))?.slice("--only=".length).split(",");
  const from = args.find((a) => a.startsWith("--from="))?.slice("--from=".length);
  const ids = all.map((m) => m.id).join(", ");
  if (only && only.some((id) => !all.some((m) => m.id === id))) throw new Error(`unknown mutant in --only; choose from: ${ids}`);
  const start = from === undefined ? 0 : all.findIndex((m) => m.id === from);
  if (start < 0) throw new Error(`unknown mutant in --from; choose from: ${ids}`);
  const rest = all.slice(start);
  return only ? rest.filter((m) => only.includes(m.id)) : rest;
}

async function runOne(file: string, source: string, label: string, mode: Mode, tests?: string[]): Promise<{ invariant: Outcome | "skipped"; suite: Outcome | "skipped"; seconds: number; why: string }> {
  const dir = scratchProject(file, source);
  try {
    const started = Date.now();
    let invariant: Outcome | "skipped" = "skipped";
    let why = "";
    if (mode !== "suite") {
      // The invariant file alone, on a build directory that has never seen the rest of the suite (or,
      // with --tests, the files named).
      const run = await hardhat(dir, ["test", "solidity", ...(tests ?? [INVARIANT_FILE])]);
      if (run.outcome === "failed" && !/failing|FAIL|Failing/.test(run.output)) {
        await build(dir, label); // a compile error, not a kill: say so
      }
      invariant = run.outcome;
      why = failures(run.output);
    }
    let suite: Outcome | "skipped" = "skipped";
    if (mode !== "invariant" && !tests) {
      const whole = await hardhat(dir, ["test", "solidity"]);
      if (whole.outcome === "failed" && !/failing|FAIL|Failing/.test(whole.output)) await build(dir, label);
      suite = whole.outcome;
      if (!why) why = failures(whole.output);
    }
    return { invariant, suite, seconds: Math.round((Date.now() - started) / 1000), why };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const killed = (o: Outcome | "skipped"): boolean => o === "failed" || o === "timed out";

async function main(): Promise<void> {
  const args = process.argv.slice(2).filter((a) => a !== "--" && !a.startsWith("--contract="));
  const tests = args.find((a) => a.startsWith("--tests="))?.slice("--tests=".length).split(",");
  const mode: Mode = tests ? "invariant" : modeOf(args);
  const sourceOf = (file: string) => readFileSync(join(root, file), "utf8");
  const source = sourceOf(SOURCE);
  const all = chosenContract === CONTRACTS.token ? TOKEN_MUTANTS : MUTANTS;
  const chosen = chooseMutants(all, args);
  for (const mutant of chosen) applyMutant(sourceOf(fileOf(mutant)), mutant); // every mutant still applies, before an hour of runs
  if (args.includes("--list")) {
    for (const m of chosen) console.log(`${m.id.padEnd(30)} ${m.what}`);
    console.log(`${chosen.length} mutants, each applies to exactly one place in its source (${SOURCE} unless named)`);
    return;
  }

  const modeWords = { both: "", invariant: " (invariant campaign only)", suite: " (whole Solidity suite only)" }[mode];
  console.log(`# mutants of ${SOURCE}: ${chosen.length}${tests ? ` (against ${tests.join(", ")} only)` : modeWords}`);
  const baseline = await runOne(SOURCE, source, "the unmutated contract", mode, tests);
  console.log(`baseline (unmutated): invariant file alone on a fresh build ${baseline.invariant}, whole suite ${baseline.suite} (${baseline.seconds} s)`);
  const unfit = (o: Outcome | "skipped") => o !== "passed" && o !== "skipped";
  if (unfit(baseline.invariant) || unfit(baseline.suite)) {
    throw new Error(`the unmutated contract must pass before mutants can be judged: ${baseline.why}`);
  }

  const results: Result[] = [];
  const mark = (o: Outcome | "skipped") => (o === "skipped" ? "-" : killed(o) ? `killed${o === "timed out" ? " (timeout)" : ""}` : "SURVIVED");
  // --jobs=N: N mutants at once, each in its own scratch project (solc compiles on one core).
  const jobs = jobsOf(args);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(jobs, chosen.length) }, async () => {
    while (next < chosen.length) {
      const i = next++;
      const mutant = chosen[i]!;
      const run = await runOne(fileOf(mutant), applyMutant(sourceOf(fileOf(mutant)), mutant), `mutant ${mutant.id}`, mode, tests);
      results.push({ mutant, invariant: run.invariant, suite: run.suite, seconds: run.seconds });
      console.log(`${String(i + 1).padStart(2)}/${chosen.length} ${mutant.id.padEnd(30)} invariant: ${mark(run.invariant).padEnd(8)} suite: ${mark(run.suite).padEnd(8)} ${String(run.seconds).padStart(4)} s  ${run.why}`);
    }
  }));

  if (mode !== "suite") {
    console.log(`\n${tests ? tests.join(", ") : `invariant campaign alone (${INVARIANT_FILE})`}: killed ${results.filter((r) => killed(r.invariant)).length} of ${results.length}`);
    const survivors = results.filter((r) => !killed(r.invariant));
    if (survivors.length) console.log(`survived the invariant campaign: ${survivors.map((r) => r.mutant.id).join(", ")}`);
  }
  if (mode !== "invariant") {
    console.log(`whole Solidity suite: killed ${results.filter((r) => killed(r.suite)).length} of ${results.length}`);
    const suiteSurvivors = results.filter((r) => !killed(r.suite));
    if (suiteSurvivors.length) console.log(`survived the whole suite: ${suiteSurvivors.map((r) => r.mutant.id).join(", ")}`);
  }
}

if (process.argv[1]?.endsWith("mutants.ts")) await main();

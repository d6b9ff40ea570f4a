// The parts of the TokenMarketplace's ABI the service calls and decodes beyond the events it shares with
// the Marketplace (same names, arguments and topics, so `marketplaceAbi` decodes those from either
// contract): its listing event, its listing and balance reads, its charge batch and its x402 settlement.
// Written from the contract's declarations (contracts/src/TokenMarketplace.sol).
import { parseAbi } from "viem";

export const tokenMarketplaceAbi = parseAbi([
  "event TokenListingCreated(bytes32 indexed listingId, address indexed creator, address indexed token, bytes32 seed, uint8 accessType, uint256 price, string metadataUri)",
  "event PaymentSettled(bytes32 indexed listingId, address indexed payer, bytes32 indexed runRef, uint256 amount, uint256 fee, bytes32 nonce)",
  "event PaymentRefused(bytes32 indexed listingId, address indexed payer, bytes32 indexed runRef, bytes4 reason)",
  "event QueryConsumed(bytes32 indexed listingId, address indexed buyer, bytes32 indexed runRef, uint256 price, uint256 fee, uint256 newBalance)",
  "event QueryRefused(bytes32 indexed listingId, address indexed buyer, bytes32 indexed runRef, bytes4 reason)",
  "struct Charge { bytes32 listingId; address buyer; bytes32 runRef; uint256 maxPrice; }",
  "struct TokenPayment { bytes32 listingId; address from; uint256 value; uint256 validAfter; uint256 validBefore; bytes32 nonce; bytes32 runRef; bytes signature; }",
  "function settlePayments(TokenPayment[] payments) returns (uint256 settledCount)",
  "function consumeQueries(Charge[] charges) returns (uint256 chargedCount)",
  "function listings(bytes32 listingId) view returns (uint96 price, uint128 escrow, uint8 accessType, uint8 status, address creator, uint40 createdAt, address token, string metadataUri)",
  "function perQueryBalances(bytes32 listingId, address buyer) view returns (uint96 balance, uint40 purchasedAt, bool revoked, uint96 depositPrice, bool withdrawalRequested)",
  "function isRunCharged(bytes32 runRef) view returns (bool charged)",
]);

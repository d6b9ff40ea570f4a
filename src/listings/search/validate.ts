// GET /v1/listings query parameters → a typed SearchQuery, or 400 invalid_request naming the parameter.
// Decisions: unknown parameters are ignored (links carrying tracking or cache-busting parameters keep
// working, and new optional parameters stay backward compatible); an empty value (`?category=`, as an
// HTML form sends it) counts as absent; numbers are plain decimals (no sign, hex or exponent).
import { ApiError } from "../../errors.ts";
import { CATEGORIES, RENTAL_MODELS, SEARCH_SORTS } from "@agent-rental/core/vocabulary";
import type { SearchQuery } from "./types.ts";

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** Deep paging is refused past this offset; narrow the query instead. */
export const MAX_OFFSET = 10_000;
export const MAX_QUERY_LENGTH = 200;

const INTEGER = /^\d+$/;
const CURRENCY = /^[A-Za-z0-9]{1,11}$/;
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

export function parseSearchQuery(params: Record<string, string | undefined>): SearchQuery {
  const value = (name: string): string | undefined => {
    const raw = params[name];
    return raw === undefined || raw === "" ? undefined : raw;
  };
  const query: SearchQuery = {
    sort: oneOf("sort", value("sort"), SEARCH_SORTS) ?? "relevance",
    limit: integer("limit", value("limit"), 1, MAX_LIMIT) ?? DEFAULT_LIMIT,
    offset: integer("offset", value("offset"), 0, MAX_OFFSET) ?? 0,
  };
  const q = value("q");
  if (q !== undefined) {
    if (q.length > MAX_QUERY_LENGTH) fail("q", `must be at most ${MAX_QUERY_LENGTH} characters`);
    if (q.trim() !== "") query.q = q.trim();
  }
  const category = oneOf("category", value("category"), CATEGORIES);
  if (category) query.category = category;
  const rentalModel = oneOf("rental_model", value("rental_model"), RENTAL_MODELS);
  if (rentalModel) query.rental_model = rentalModel;
  const minPrice = decimal("min_price", value("min_price"));
  const maxPrice = decimal("max_price", value("max_price"));
  if (minPrice !== undefined && maxPrice !== undefined && minPrice > maxPrice) fail("min_price", "must not exceed max_price");
  if (minPrice !== undefined) query.min_price = minPrice;
  if (maxPrice !== undefined) query.max_price = maxPrice;
  const currency = value("currency");
  if (currency !== undefined) {
    if (!CURRENCY.test(currency)) fail("currency", "must be ETH or a token's symbol (letters and digits, at most 11)");
    query.currency = currency.toUpperCase();
  }
  const minRating = decimal("min_rating", value("min_rating"));
  if (minRating !== undefined) {
    if (minRating > 5) fail("min_rating", "must be between 0 and 5");
    query.min_rating = minRating;
  }
  return query;
}

function fail(name: string, rule: string): never {
  throw new ApiError("invalid_request", `Query parameter ${name} ${rule}.`);
}

function oneOf<T extends string>(name: string, raw: string | undefined, allowed: readonly T[]): T | undefined {
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) fail(name, `must be one of ${allowed.join(", ")}`);
  return raw as T;
}

function integer(name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = INTEGER.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) fail(name, `must be an integer from ${min} to ${max}`);
  return n;
}

/** A non-negative finite decimal. */
function decimal(name: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = DECIMAL.test(raw) ? Number(raw) : NaN;
  if (!Number.isFinite(n)) fail(name, "must be a non-negative decimal number");
  return n;
}

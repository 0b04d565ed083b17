/** A write, delete or statement took effect with `token`. */
export interface Applied {
  readonly kind: 'applied';
  /** The token the call carried. */
  readonly token: bigint;
  /** The token of the write this one replaced (0n if the item had none). */
  readonly previousToken: bigint;
}

/**
 * The gateway refused the token (409): a higher token has written or claimed the item. Stop; a
 * newer lease holder owns the item now. Never retry with the same token.
 */
export interface Stale {
  readonly kind: 'stale';
  /** The token the call carried. */
  readonly token: bigint;
  /** The token of the item's last applied write (0n if none). */
  readonly currentToken: bigint;
  /** The highest token that has claimed the item, by a fenced read or a write (`>= currentToken`). */
  readonly fence: bigint;
}

/**
 * A 409 whose `currentToken` is the call's own token: the item's last write is this token's. On a
 * retry after a timeout or a 5xx under the default `strict` rule, the first attempt had applied.
 */
export interface AlreadyApplied {
  readonly kind: 'already-applied';
  readonly token: bigint;
  readonly currentToken: bigint;
  readonly fence: bigint;
}

/** What a guarded PUT or DELETE did. */
export type WriteOutcome = Applied | Stale | AlreadyApplied;

/** The item's value, and the token of its last write. */
export interface Value {
  readonly kind: 'value';
  readonly bytes: Uint8Array;
  /** The token of the item's last write (the `Fencing-Token` of the answer). */
  readonly token: bigint;
  /** The bytes as UTF-8 text. */
  text(): string;
}

/** No such item (or a tombstone). A fenced read still claimed it. */
export interface NotFound {
  readonly kind: 'not-found';
}

/** What a read answered; `stale` only for a fenced read. */
export type ReadOutcome = Value | NotFound | Stale;

/** A named statement ran in one transaction with its key's guard row. */
export interface StatementApplied {
  readonly kind: 'applied';
  readonly token: bigint;
  /** Rows affected, as the gateway reports them. */
  readonly rows: number;
  /** The whole JSON answer, for members beyond `rows`. */
  readonly body: Readonly<Record<string, unknown>>;
}

/** What a named statement did. */
export type StatementOutcome = StatementApplied | Stale | AlreadyApplied;

/** A transaction applied every put and delete together: by key, in the order they were added. */
export interface Committed {
  readonly kind: 'committed';
  readonly items: ReadonlyMap<string, Applied>;
}

/** A fenced multi-read raised every item's fence to its token: by key, in the order given (a missing item is claimed too). */
export interface Claimed {
  readonly kind: 'claimed';
  readonly items: ReadonlyMap<string, Value | NotFound>;
}

/**
 * The gateway refused a transaction or a fenced multi-read (409): at least one item's guard refused
 * its token, so nothing was applied and no fence raised. `items` names every refused item by key,
 * in request order, with its `currentToken` and `fence`.
 */
export interface Refused {
  readonly kind: 'refused';
  readonly items: ReadonlyMap<string, Stale>;
}

/** What a transaction did: all of it, or none of it. */
export type TransactionOutcome = Committed | Refused;

/** What a fenced multi-read did: every item claimed, or none. */
export type ClaimOutcome = Claimed | Refused;

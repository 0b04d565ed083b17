package io.fencegate.check;

/** One broken property, with the key it broke on, when, and the operations that show it. */
public record Violation(String kind, String key, long atUs, String detail) {

    public static final String LOST_UPDATE = "lost-update";
    public static final String DUPLICATE_VALUE = "duplicate-value";
    public static final String LOST_ADD = "lost-add";
    public static final String TWO_LIVE_LEASES = "two-live-leases";
    public static final String TOKEN_ORDER = "token-order";
    public static final String STALE_ACK = "stale-ack";
    /** A write below a fence a read had raised was acknowledged. */
    public static final String FENCE_BROKEN = "fence-broken";
    /** A read returned a value older than a write acknowledged before it was sent. */
    public static final String STALE_READ = "stale-read";
    /** The bank: a read of every account whose balances do not add up to the opening total. */
    public static final String TOTAL_CHANGED = "total-changed";
    /** The bank: an account read below zero. */
    public static final String NEGATIVE_BALANCE = "negative-balance";
    /** The bank: a read no serial order of the transfers produces (a value never written, a refused transfer, a torn cut). */
    public static final String INCONSISTENT_READ = "inconsistent-read";
    /** The bank: an acknowledged transfer the final read does not show. */
    public static final String LOST_TRANSFER = "lost-transfer";
    /** rw: a write acknowledged with the token of a read lease (a read lease's token only reads). */
    public static final String READ_TOKEN_WRITE = "read-token-write";
    /** semaphore: more holders surely live at once than it has permits, or a permit in a slot beyond its count. */
    public static final String PERMITS_EXCEEDED = "permits-exceeded";
}

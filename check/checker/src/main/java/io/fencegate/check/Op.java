package io.fencegate.check;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Map;

/**
 * One operation of a history, as a client saw it: invoked at {@code invokeUs}, answered at
 * {@code completeUs} (epoch microseconds), with an {@link Outcome}.
 *
 * @param client   the client (process number * 1000 + thread) that ran it
 * @param f        what it was: {@code acquire}, {@code read}, {@code write}, {@code renew}, {@code release}, {@code final}
 * @param key      the item (or, for leases, the lock; for an operation on several items, what they make up: the bank)
 * @param token    the fencing token it carried (0: none)
 * @param value    what it wrote (lock-set: the element added; acquire: the ttl in ms), or what a read or
 *                 final read returned (null: nothing, missing)
 * @param prior    for an acknowledged write, the token of the write it replaced, as the store answered;
 *                 for a read, the token of the write it read (0: missing, or not recorded)
 * @param note     the answer in words (status, problem type, exception)
 * @param gateway  the base URL of the gateway that served it, as the client called it (null in
 *                 histories written before it was recorded: an unknown gateway)
 * @param items    for an operation on several items at once (a lease group, a fenced multi-read, a
 *                 transaction): each item's own token, value and prior, as the single-item fields
 *                 are for one item; null otherwise (and in histories written before it existed)
 * @param mode     for a lease's acquire, renew and release: {@code read} for a read lease; null for a write
 *                 lease (what every lease was before read leases, so older histories read as before)
 * @param slot     for a semaphore permit's acquire, renew and release: the slot it took; null otherwise
 * @param permits  for a semaphore permit's acquire, renew and release: the semaphore's count; null otherwise
 */
public record Op(int client, String f, String key, long token, String value, long prior, long invokeUs, long completeUs,
        Outcome outcome, String note, String gateway, @JsonInclude(JsonInclude.Include.NON_NULL) Map<String, Item> items,
        @JsonInclude(JsonInclude.Include.NON_NULL) String mode, @JsonInclude(JsonInclude.Include.NON_NULL) Integer slot,
        @JsonInclude(JsonInclude.Include.NON_NULL) Integer permits) {

    public static final String ACQUIRE = "acquire";
    public static final String READ = "read";
    public static final String WRITE = "write";
    public static final String RELEASE = "release";
    /** A renew of the lease {@code token} (the ttl in ms in {@code value}); its OK extends the lease. */
    public static final String RENEW = "renew";
    public static final String FINAL = "final";
    /** {@link #mode} of a read lease's operations. */
    public static final String READ_MODE = "read";

    /** One item of a multi-item operation: its token, the value written or read (null: missing), its prior token. */
    public record Item(long token, String value, long prior) {}

    /** An operation on one item. */
    public Op(int client, String f, String key, long token, String value, long prior, long invokeUs, long completeUs,
            Outcome outcome, String note, String gateway) {
        this(client, f, key, token, value, prior, invokeUs, completeUs, outcome, note, gateway, null);
    }

    /** An operation on several items at once ({@code items}), or on one ({@code items} null). */
    public Op(int client, String f, String key, long token, String value, long prior, long invokeUs, long completeUs,
            Outcome outcome, String note, String gateway, Map<String, Item> items) {
        this(client, f, key, token, value, prior, invokeUs, completeUs, outcome, note, gateway, items, null, null, null);
    }

    /** This operation of a read lease ({@code mode} read) or a permit ({@code slot}, {@code permits}); the lease shape is dropped by null. */
    public Op withLease(String mode, Integer slot, Integer permits) {
        return new Op(client, f, key, token, value, prior, invokeUs, completeUs, outcome, note, gateway, items, mode, slot, permits);
    }

    /** Whether this is an operation of a read lease (shared with other read leases); a write lease's is not. */
    public boolean readMode() {
        return READ_MODE.equals(mode);
    }

    public boolean is(String kind) {
        return f.equals(kind);
    }
}

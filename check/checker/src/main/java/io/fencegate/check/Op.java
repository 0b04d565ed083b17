package io.fencegate.check;

/**
 * One operation of a history, as a client saw it: invoked at {@code invokeUs}, answered at
 * {@code completeUs} (epoch microseconds), with an {@link Outcome}.
 *
 * @param client   the client (process number * 1000 + thread) that ran it
 * @param f        what it was: {@code acquire}, {@code read}, {@code write}, {@code renew}, {@code release}, {@code final}
 * @param key      the item (or, for leases, the lock)
 * @param token    the fencing token it carried (0: none)
 * @param value    what it wrote (lock-set: the element added; acquire: the ttl in ms), or what a read or
 *                 final read returned (null: nothing, missing)
 * @param prior    for an acknowledged write, the token of the write it replaced, as the store answered;
 *                 for a read, the token of the write it read (0: missing, or not recorded)
 * @param note     the answer in words (status, problem type, exception)
 * @param gateway  the base URL of the gateway that served it, as the client called it (null in
 *                 histories written before it was recorded: an unknown gateway)
 */
public record Op(int client, String f, String key, long token, String value, long prior, long invokeUs, long completeUs,
        Outcome outcome, String note, String gateway) {

    public static final String ACQUIRE = "acquire";
    public static final String READ = "read";
    public static final String WRITE = "write";
    public static final String RELEASE = "release";
    /** A renew of the lease {@code token} (the ttl in ms in {@code value}); its OK extends the lease. */
    public static final String RENEW = "renew";
    public static final String FINAL = "final";

    public boolean is(String kind) {
        return f.equals(kind);
    }
}

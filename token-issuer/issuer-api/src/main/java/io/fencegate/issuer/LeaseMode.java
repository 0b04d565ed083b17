package io.fencegate.issuer;

import java.util.Locale;

/**
 * What a lease lets its holder do with what its lock guards. A lock is held by any number of
 * {@link #READ} leases or by one {@link #WRITE} lease, never both. Every grant, whatever its mode,
 * takes the next token of the lock's one sequence: a read lease's token may raise an item's fence
 * through a fenced read (so a writer whose lease ended is refused afterwards), but it never writes.
 */
public enum LeaseMode {
    /** Shared with other read leases; excludes a write lease. Its token fences reads only. */
    READ,
    /** Exclusive: the lease every issuer grants by default. */
    WRITE;

    /** The mode's name on the wire ({@code "read"}, {@code "write"}). */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The mode a wire name names, case-sensitively.
     *
     * @throws IllegalArgumentException for anything but {@code "read"} or {@code "write"}
     */
    public static LeaseMode ofWireName(String name) {
        if ("read".equals(name)) {
            return READ;
        }
        if ("write".equals(name)) {
            return WRITE;
        }
        throw new IllegalArgumentException("mode must be \"read\" or \"write\", was " + (name == null ? "null" : "\"" + name + "\""));
    }
}

package io.fencegate.client;

import java.util.Locale;

/**
 * What a lease lets its holder do with what its lock guards. A lock is held by any number of
 * {@link #READ} leases or by one {@link #WRITE} lease, never both. Every grant takes the next token
 * of the lock's one sequence: a read lease's token makes fenced reads (which fence out older writers),
 * and the gateway refuses it on every write (403).
 */
public enum LeaseMode {
    /** Shared with other read leases; its token fences reads and never writes. */
    READ,
    /** Exclusive: the default. */
    WRITE;

    /** The mode's name on the wire ({@code "read"}, {@code "write"}). */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The mode a gateway's answer names; {@link #WRITE} when it names none (a gateway that predates modes). */
    static LeaseMode fromWire(String name) {
        return "read".equals(name) ? READ : WRITE;
    }
}

package io.fencegate.spring.integration;

import java.util.concurrent.locks.ReadWriteLock;

/**
 * A fenced read-write lock on one key of a {@link FencedLockRegistry}
 * ({@link FencedLockRegistry#readWriteLock}): any number of read leases, or one write lease, at
 * once, across every process on the issuer. Once a writer waits, later readers wait behind it.
 *
 * <p>{@link #writeLock()} is the registry's {@link FencedLock} of the key ({@code obtain(key)}): an
 * exclusive lease whose token writes. {@link #readLock()} gives each thread that locks it a read
 * lease of its own, whose token makes fenced reads and never writes. Neither upgrades to the other.
 */
public final class FencedReadWriteLock implements ReadWriteLock {
    private final FencedReadLock readLock;
    private final FencedLock writeLock;

    FencedReadWriteLock(FencedReadLock readLock, FencedLock writeLock) {
        this.readLock = readLock;
        this.writeLock = writeLock;
    }

    @Override
    public FencedReadLock readLock() {
        return readLock;
    }

    @Override
    public FencedLock writeLock() {
        return writeLock;
    }

    /** The key this lock was obtained for. */
    public String key() {
        return writeLock.key();
    }
}

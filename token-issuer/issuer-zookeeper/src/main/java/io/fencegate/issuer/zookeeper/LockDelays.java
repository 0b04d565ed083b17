package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.LeaseMode;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;

/**
 * Lock-delay on ZooKeeper: the lock node's data ({@code root/locks/<encoded lock>}) is the mark
 * {@code token:delayMs:expiresAt} of the lock's current lease while it was granted with a delay.
 *
 * <ul>
 *   <li>a grant with a delay writes the mark before the lease is answered, a renew rewrites it
 *       (before the lease node, so the mark's expiry is never behind the lease's);</li>
 *   <li>a release clears it, before deleting the lease node: a voluntary end frees the lock at once;</li>
 *   <li>an expiry or a lost session leaves it. The next acquirer at the head of the queue finds it
 *       and waits until {@code min(now, expiresAt) + delayMs}: the lease ended at its expiry or,
 *       for a lost session, earlier, so this waits at least the delay after the real end. A mark
 *       whose expiry is still ahead (a lost session) is rewritten with now as its end, at the
 *       version read, so the delay counts from the first sighting and does not restart at every
 *       look.</li>
 * </ul>
 *
 * Locks never granted with a delay have an empty lock node (or one recording a grant, {@link
 * GrantLog#GRANT_AT_MZXID}, whose length no mark has): the acquirer sees that {@code dataLength}
 * in the queue listing's stat and pays no extra read. A write here first logs a grant the lock node records, and in ZXID mode
 * never leaves a mark at version {@link UncontendedGrant#EMPTY_AFTER_RELEASE} (nor at the one older
 * issuers used), the version at which {@link UncontendedGrant} may re-create the lock node from what
 * it remembers (a lock node swept and re-created since must not pass for the empty one it remembers).
 *
 * <p>Read leases ({@link LeaseMode#READ}) share the lock, so their mark is one for all of them,
 * flagged {@code :r}: each read grant or renew with a delay merges into it (the latest expiry, the
 * longest delay), so it covers every read lease that may still end involuntarily. A reader's mark
 * holds writers off, never another reader. A reader's release clears it only when no other read
 * lease node is on the lock (at the version read before looking, so a reader that merged meanwhile
 * keeps its mark); otherwise it stays, and a writer may wait a delay it did not strictly need.
 */
final class LockDelays {

    private static final byte[] NONE = new byte[0];
    /** A write retries this many times when another write to the lock node came between its read and its write. */
    private static final int MAX_VERSION_RACES = 5;

    private final IssuerParts parts;

    LockDelays(IssuerParts parts) {
        this.parts = parts;
    }

    /**
     * The mark a lease granted with a delay leaves; {@code read}: the read leases' merged mark
     * (written {@code token:delayMs:expiresAt:r}, which issuers without read leases do not parse).
     */
    record Mark(long token, long delayMs, long expiresAt, boolean read) {
        Mark(long token, long delayMs, long expiresAt) {
            this(token, delayMs, expiresAt, false);
        }

        byte[] toBytes() {
            return (token + ":" + delayMs + ":" + expiresAt + (read ? ":r" : "")).getBytes(StandardCharsets.US_ASCII);
        }

        /** This read mark merged with another read mark: it covers both. */
        Mark merged(Mark other) {
            return new Mark(Math.max(token, other.token), Math.max(delayMs, other.delayMs), Math.max(expiresAt, other.expiresAt), true);
        }

        static Optional<Mark> parse(byte[] bytes) {
            if (bytes == null || bytes.length == 0) {
                return Optional.empty();
            }
            String[] f = new String(bytes, StandardCharsets.US_ASCII).split(":");
            try {
                boolean read = f.length == 4 && f[3].equals("r");
                return f.length == 3 || read
                        ? Optional.of(new Mark(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2]), read))
                        : Optional.empty();
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        }
    }

    /**
     * How long the head of the queue must still wait before it may be granted {@code lock};
     * {@code lockStat} is the lock node's stat from the queue listing (null: unknown, read it).
     * Answers -1 when there is no mark at all (nothing to clear later).
     */
    CompletableFuture<Long> remainingMs(String lock, Stat lockStat) {
        return remainingMs(lock, lockStat, LeaseMode.WRITE);
    }

    /** ... for an acquire in {@code mode}: a reader passes the read leases' mark (it holds writers off only). */
    CompletableFuture<Long> remainingMs(String lock, Stat lockStat, LeaseMode mode) {
        if (lockStat != null && (lockStat.getDataLength() == 0 || lockStat.getDataLength() == GrantLog.GRANT_AT_MZXID.length)) {
            return CompletableFuture.completedFuture(-1L);
        }
        String path = parts.nodes().lockPath(lock);
        return parts.zk().call("read lock-delay " + path, cb -> parts.client().getData().inBackground(cb).forPath(path))
                .thenApply(event -> {
                    Code code = AsyncZk.code(event);
                    if (code == Code.NONODE) {
                        return -1L;
                    }
                    if (code != Code.OK) {
                        throw AsyncZk.unexpected("read lock-delay", event);
                    }
                    Optional<Mark> mark = Mark.parse(event.getData());
                    if (mark.isEmpty() || mark.get().read() && mode == LeaseMode.READ) {
                        return -1L;
                    }
                    long now = parts.clock().millis();
                    Mark m = mark.get();
                    if (m.expiresAt() > now) {
                        // Best effort: if another acquirer rewrote it first, its end time stands.
                        pinEnd(path, new Mark(m.token(), m.delayMs(), now, m.read()), event.getStat().getVersion());
                    }
                    return Math.max(0, Math.min(now, m.expiresAt()) + m.delayMs() - now);
                });
    }

    private void pinEnd(String path, Mark ended, int version) {
        writeAt(path, ended.toBytes(), version);
    }

    /** Writes the mark of a lease granted or renewed with a delay. */
    CompletableFuture<Void> mark(String lock, Mark mark) {
        return write(lock, mark.toBytes());
    }

    /**
     * Merges a read lease's mark ({@code mark.read()}) into the lock's: a writer's mark there (the
     * head of the queue waited it out) is replaced, a read mark is widened to cover both.
     */
    CompletableFuture<Void> markRead(String lock, Mark mark) {
        return write(lock, existing -> Mark.parse(existing).filter(Mark::read).map(mark::merged).orElse(mark).toBytes(), 0);
    }

    /**
     * A read lease granted without a delay after the head of the queue waited out a writer's mark:
     * clears that mark, never the read leases' one (a reader granted meanwhile may have merged it).
     */
    CompletableFuture<Void> clearWriterMark(String lock) {
        return write(lock, existing -> Mark.parse(existing).filter(Mark::read).isPresent() ? existing : NONE, 0);
    }

    /**
     * A read lease with a delay was released: clears the mark unless another read lease node is on
     * the lock ({@code ours}, the released lease node's name, does not count), at the version read
     * before the look, so a reader that merged its mark meanwhile makes this look again.
     */
    CompletableFuture<Void> clearAfterRead(String lock, String ours) {
        return clearAfterRead(lock, ours, 0);
    }

    private CompletableFuture<Void> clearAfterRead(String lock, String ours, int attempt) {
        String path = parts.nodes().lockPath(lock);
        return parts.zk().readIfExists("read lock " + path, cb -> parts.client().getData().inBackground(cb).forPath(path))
                .thenCompose(read -> {
                    if (read == null || Mark.parse(read.getData()).filter(Mark::read).isEmpty()) {
                        return CompletableFuture.completedFuture(null); // no read mark to clear
                    }
                    int version = read.getStat().getVersion();
                    return parts.zk().call("list " + path, cb -> parts.client().getChildren().inBackground(cb).forPath(path))
                            .thenCompose(listed -> {
                                boolean otherReaders = AsyncZk.code(listed) == Code.OK && LockNodes.queue(listed.getChildren()).stream()
                                        .anyMatch(name -> !name.equals(ours) && LockNodes.modeOf(name) == LeaseMode.READ);
                                if (otherReaders) {
                                    return CompletableFuture.completedFuture(null);
                                }
                                return writeAt(path, NONE, version).thenCompose(code -> switch (code) {
                                    case OK, NONODE -> CompletableFuture.<Void>completedFuture(null);
                                    case BADVERSION -> attempt < MAX_VERSION_RACES ? clearAfterRead(lock, ours, attempt + 1)
                                            : CompletableFuture.<Void>failedFuture(new io.fencegate.issuer.IssuerUnavailableException(
                                                    "lock-delay clear kept racing other writes to " + path));
                                    default -> CompletableFuture.<Void>failedFuture(new io.fencegate.issuer.IssuerUnavailableException(
                                            "ZooKeeper clear lock-delay failed: " + code + " on " + path));
                                });
                            });
                });
    }

    /** Clears the mark: a release, or a grant without a delay after one with. */
    CompletableFuture<Void> clear(String lock) {
        return write(lock, NONE);
    }

    private CompletableFuture<Void> write(String lock, byte[] data) {
        return write(lock, existing -> data, 0);
    }

    /** Writes what {@code next} makes of the lock node's data as read, at the version read. */
    private CompletableFuture<Void> write(String lock, java.util.function.UnaryOperator<byte[]> next, int attempt) {
        String path = parts.nodes().lockPath(lock);
        return parts.zk().readIfExists("read lock " + path, cb -> parts.client().getData().inBackground(cb).forPath(path))
                .thenCompose(read -> {
                    byte[] data = next.apply(read == null ? null : read.getData());
                    if (read == null) {
                        if (data.length == 0) {
                            return CompletableFuture.completedFuture(Code.OK); // nothing to clear
                        }
                        throw new io.fencegate.issuer.IssuerUnavailableException("lock node " + path + " vanished under a lease");
                    }
                    CompletableFuture<Void> logged = GrantLog.isGrantAtMzxid(read.getData())
                            ? parts.grants().record(lock, read.getStat().getMzxid())
                            : CompletableFuture.completedFuture(null);
                    return logged.thenCompose(v -> writeAt(path, data, read.getStat().getVersion()));
                })
                .thenCompose(code -> switch (code) {
                    case OK -> CompletableFuture.<Void>completedFuture(null);
                    case BADVERSION -> attempt < MAX_VERSION_RACES ? write(lock, next, attempt + 1)
                            : CompletableFuture.failedFuture(new io.fencegate.issuer.IssuerUnavailableException(
                                    "lock-delay write kept racing other writes to " + path));
                    default -> CompletableFuture.failedFuture(new io.fencegate.issuer.IssuerUnavailableException(
                            "ZooKeeper write lock-delay failed: " + code + " on " + path));
                });
    }

    /**
     * Writes at {@code version}; a mark that would land on a version {@link UncontendedGrant} may
     * remember as empty takes more steps (setData ops in one transaction) until it lands past them.
     */
    private CompletableFuture<Code> writeAt(String path, byte[] data, int version) {
        int steps = 1;
        while (data.length > 0 && parts.mode() == TokenMode.ZXID && isRemembered(version + steps)) {
            steps++;
        }
        if (steps == 1) {
            return parts.zk().call("write lock-delay " + path, cb -> parts.client().setData().withVersion(version)
                    .inBackground(cb).forPath(path, data)).thenApply(AsyncZk::code);
        }
        java.util.List<org.apache.curator.framework.api.transaction.CuratorOp> ops = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < steps; i++) {
                ops.add(parts.client().transactionOp().setData().withVersion(version + i).forPath(path, data));
            }
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
        return parts.zk().call("write lock-delay " + path, cb -> parts.client().transaction().inBackground(cb)
                .forOperations(ops)).thenApply(AsyncZk::code);
    }

    /** This issuer's release, or an older issuer's (rolling upgrade), remembers the lock node empty at it. */
    private static boolean isRemembered(int version) {
        return version == UncontendedGrant.EMPTY_AFTER_RELEASE || version == UncontendedGrant.EMPTY_AFTER_RELEASE_BEFORE;
    }
}

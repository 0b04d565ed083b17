package io.fencegate.issuer.zookeeper;

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
 */
final class LockDelays {

    private static final byte[] NONE = new byte[0];
    /** A write retries this many times when another write to the lock node came between its read and its write. */
    private static final int MAX_VERSION_RACES = 5;

    private final IssuerParts parts;

    LockDelays(IssuerParts parts) {
        this.parts = parts;
    }

    /** The mark a lease granted with a delay leaves. */
    record Mark(long token, long delayMs, long expiresAt) {
        byte[] toBytes() {
            return (token + ":" + delayMs + ":" + expiresAt).getBytes(StandardCharsets.US_ASCII);
        }

        static Optional<Mark> parse(byte[] bytes) {
            if (bytes == null || bytes.length == 0) {
                return Optional.empty();
            }
            String[] f = new String(bytes, StandardCharsets.US_ASCII).split(":");
            try {
                return f.length == 3
                        ? Optional.of(new Mark(Long.parseLong(f[0]), Long.parseLong(f[1]), Long.parseLong(f[2])))
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
                    if (mark.isEmpty()) {
                        return -1L;
                    }
                    long now = parts.clock().millis();
                    Mark m = mark.get();
                    if (m.expiresAt() > now) {
                        // Best effort: if another acquirer rewrote it first, its end time stands.
                        pinEnd(path, new Mark(m.token(), m.delayMs(), now), event.getStat().getVersion());
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

    /** Clears the mark: a release, or a grant without a delay after one with. */
    CompletableFuture<Void> clear(String lock) {
        return write(lock, NONE);
    }

    private CompletableFuture<Void> write(String lock, byte[] data) {
        return write(lock, data, 0);
    }

    private CompletableFuture<Void> write(String lock, byte[] data, int attempt) {
        String path = parts.nodes().lockPath(lock);
        return parts.zk().readIfExists("read lock " + path, cb -> parts.client().getData().inBackground(cb).forPath(path))
                .thenCompose(read -> {
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
                    case BADVERSION -> attempt < MAX_VERSION_RACES ? write(lock, data, attempt + 1)
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

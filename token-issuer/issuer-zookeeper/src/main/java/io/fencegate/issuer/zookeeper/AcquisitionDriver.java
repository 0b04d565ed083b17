package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.LeaseMode;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The acquisition policy, apart from {@link Acquisition}'s queue-and-watch mechanics, as Curator's
 * {@code StandardLockInternalsDriver} is apart from {@code LockInternals}: whether an acquire first
 * tries the lock in one round trip ({@link UncontendedGrant}), and whether the head of the queue
 * may be granted now or must wait out a lock-delay ({@link LockDelays}). The mechanics ask; this
 * class decides. One per issuer, shared by its acquires.
 */
class AcquisitionDriver {

    private static final Logger log = LoggerFactory.getLogger(AcquisitionDriver.class);

    private final IssuerParts parts;
    private final LockDelays delays;
    /** Null: every acquire goes straight to the queue. */
    private final UncontendedGrant uncontended;

    AcquisitionDriver(IssuerParts parts, LockDelays delays, UncontendedGrant uncontended) {
        this.parts = parts;
        this.delays = delays;
        this.uncontended = uncontended;
    }

    /**
     * Whether an acquire tries the one-round-trip grant before the queue. A lock-delay is judged at
     * the head of the queue. A CVERSION node would spend a token on a held lock, which a zero wait
     * must not: it looks first, on the queue path.
     */
    boolean triesUncontended(long waitMs, long lockDelayMs) {
        return triesUncontended(waitMs, lockDelayMs, LeaseMode.WRITE);
    }

    /**
     * ... in {@code mode}. A read acquire always queues: the one-trip grant proves a sole holder and
     * records a write grant on the lock node, neither of which a reader among readers is.
     */
    boolean triesUncontended(long waitMs, long lockDelayMs, LeaseMode mode) {
        return mode == LeaseMode.WRITE && uncontended != null && lockDelayMs == 0 && (waitMs > 0 || parts.mode() == TokenMode.ZXID);
    }

    /** The one-round-trip attempt ({@link UncontendedGrant#attempt}): never fails, never bounded. */
    CompletableFuture<UncontendedGrant.Outcome> attemptUncontended(String lock, String protectedId, byte[] leaseData) {
        return attemptUncontended(lock, protectedId, leaseData, LockNodes.LEASE_PREFIX);
    }

    /** ... whose lease node is named with {@code nodePrefix} ({@link LockNodes#leaseNodePrefix}). */
    CompletableFuture<UncontendedGrant.Outcome> attemptUncontended(String lock, String protectedId, byte[] leaseData, String nodePrefix) {
        return uncontended.attempt(lock, protectedId, leaseData, nodePrefix);
    }

    /** Where a refused or lost attempt's node is, if it applied; {@code queued}: the lock has lease nodes. */
    record Found(Optional<String> path, boolean queued) { }

    /**
     * Looks for the node of an attempt whose answer was a refusal or lost, by its protected id,
     * after a sync ({@link IssuerParts#childrenAfterSync}: the server that answers may be behind).
     */
    CompletableFuture<Found> findAttempt(String lock, String protectedId) {
        String lockPath = parts.nodes().lockPath(lock);
        return parts.childrenAfterSync(lockPath).thenApply(AcquisitionDriver::children).thenApply(children -> new Found(
                LockNodes.withProtectedId(children, protectedId).map(name -> lockPath + "/" + name),
                !LockNodes.queue(children).isEmpty()));
    }

    /** Removes the node of an attempt answered after its acquire was (timed out, closed): it would block the queue. */
    void undo(String lock, String protectedId, UncontendedGrant.Outcome late) {
        if (late instanceof UncontendedGrant.Granted granted) {
            parts.deleteGuaranteed(granted.path());
        } else if (late instanceof UncontendedGrant.Queued queued) {
            parts.deleteGuaranteed(queued.path());
        } else if (late instanceof UncontendedGrant.Unknown) {
            parts.deleteProtected(parts.nodes().lockPath(lock), protectedId);
        }
    }

    /** A lock node's children from a listing's answer; none if it does not exist. */
    static List<String> children(CuratorEvent event) {
        return switch (AsyncZk.code(event)) {
            case OK -> event.getChildren();
            case NONODE -> List.of();
            default -> throw AsyncZk.unexpected("list lock queue", event);
        };
    }

    /**
     * How long the head of the queue must still wait before it may be granted {@code lock};
     * {@code lockStat} is the lock node's stat from the queue listing. 0: now, over a mark the
     * grant must clear; -1: now, no mark at all.
     */
    CompletableFuture<Long> delayRemainingMs(String lock, Stat lockStat) {
        return delayRemainingMs(lock, lockStat, LeaseMode.WRITE);
    }

    /** ... for an acquire in {@code mode}: the read leases' mark holds writers off, not readers. */
    CompletableFuture<Long> delayRemainingMs(String lock, Stat lockStat, LeaseMode mode) {
        return delays.remainingMs(lock, lockStat, mode);
    }

    /**
     * A grant is recorded, not yet answered: a lease with a lock-delay leaves its mark; one without
     * clears a mark the head of the queue saw ({@code markSeen}), the end it delayed is over.
     */
    CompletableFuture<Void> granted(String lock, long token, long lockDelayMs, long expiresAt, boolean markSeen) {
        return granted(lock, token, lockDelayMs, expiresAt, markSeen, LeaseMode.WRITE);
    }

    /** ... in {@code mode}: a read lease's mark merges into the read leases' one ({@link LockDelays#markRead}). */
    CompletableFuture<Void> granted(String lock, long token, long lockDelayMs, long expiresAt, boolean markSeen, LeaseMode mode) {
        if (lockDelayMs > 0) {
            return mode == LeaseMode.READ ? delays.markRead(lock, new LockDelays.Mark(token, lockDelayMs, expiresAt, true))
                    : delays.mark(lock, new LockDelays.Mark(token, lockDelayMs, expiresAt));
        }
        if (!markSeen) {
            return CompletableFuture.completedFuture(null);
        }
        return mode == LeaseMode.READ ? delays.clearWriterMark(lock) : delays.clear(lock);
    }

    /** A grant failed and is final (the acquire answers the error and removes its node next). */
    void grantFailed(String lock, Throwable error) {
        log.debug("lock {}: grant failed, the acquire ends: {}", lock, error.toString());
    }
}

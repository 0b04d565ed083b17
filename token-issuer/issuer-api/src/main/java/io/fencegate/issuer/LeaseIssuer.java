package io.fencegate.issuer;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Grants leases on named locks, each carrying a fencing token: exclusive (write) leases on every
 * issuer, and, where the issuer supports them, shared read leases ({@link LeaseMode}) and fenced
 * semaphores' permits ({@link Semaphores}).
 *
 * <p>Tokens for one lock strictly increase in grant order, across issuer restarts and backend
 * failovers. Every method is asynchronous and bounded in time: a backend that does not answer,
 * or a closed issuer, fails the stage with {@link IssuerUnavailableException}; bad arguments
 * (a lock name outside {@link LockNames}) fail it with {@link IllegalArgumentException}. Leases are not bound to a thread: any thread, and any issuer
 * instance on the same backend, may renew or release a lease by its id.
 */
public interface LeaseIssuer extends AutoCloseable {

    /**
     * Acquires {@code lock}, waiting up to {@code wait} for the current holder to leave.
     *
     * @return the lease, or empty if the lock was still held when {@code wait} ran out
     */
    CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait);

    /**
     * Acquires {@code lock} like {@link #acquire(String, Duration, Duration)}, with a lock-delay
     * (Chubby's answer for resources that cannot check tokens): if this lease ends involuntarily
     * (its ttl passes, or the backend session holding it is lost), the issuer grants the lock to
     * nobody until {@code lockDelay} has passed since that end, so a holder that has not yet
     * noticed its loss has that long to stop. A release frees the lock at once. The delay is
     * recorded in the backend with the lease, so every issuer instance keeps it.
     *
     * <p>The default supports only a zero delay; backends that keep delays override it.
     *
     * @throws IllegalArgumentException (through the stage) for a negative delay, or a positive one
     *     this issuer cannot keep
     */
    default CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait, Duration lockDelay) {
        if (lockDelay == null || lockDelay.isNegative() || !lockDelay.isZero()) {
            return java.util.concurrent.CompletableFuture.failedFuture(new IllegalArgumentException(
                    "this issuer keeps no lock-delay; lockDelay must be zero, was " + lockDelay));
        }
        return acquire(lock, ttl, wait);
    }

    /**
     * Acquires {@code lock} in {@code mode}: a {@link LeaseMode#WRITE} lease exactly as
     * {@link #acquire(String, Duration, Duration, Duration)}; a {@link LeaseMode#READ} lease shared
     * with any number of other read leases and never with a write lease. Every grant, whatever its
     * mode, takes the next token of the lock's one sequence. Waiting is FIFO, and writers are not
     * starved: once a write acquire waits, read acquires that come after it wait behind it, even
     * while the lock is held only by read leases. A write acquire that still finds read leases at
     * the end of its wait gets empty, as for a held lock; so does a read acquire that still finds a
     * write lease, or an older waiting write acquire. Renew, release, find, expiry, listeners and
     * lock-delay are as for write leases.
     *
     * <p>The default grants write leases only; an issuer that keeps read leases overrides it.
     *
     * @throws IllegalArgumentException (through the stage) for a null mode or any argument the
     *     four-argument acquire refuses
     * @throws UnsupportedOperationException (through the stage) for a read lease on an issuer that
     *     does not keep them yet
     */
    default CompletionStage<Optional<Lease>> acquire(String lock, LeaseMode mode, Duration ttl, Duration wait, Duration lockDelay) {
        if (mode == null) {
            return java.util.concurrent.CompletableFuture.failedFuture(new IllegalArgumentException("mode must be read or write"));
        }
        if (mode == LeaseMode.WRITE) {
            return acquire(lock, ttl, wait, lockDelay);
        }
        return java.util.concurrent.CompletableFuture.failedFuture(new UnsupportedOperationException(
                "this issuer does not support read leases yet"));
    }

    /**
     * Acquires one of the {@code permits} permits of the fenced semaphore {@code semaphore}: an
     * exclusive lease on the lock of a free slot {@code 0..permits-1} ({@link Semaphores#slotLock}),
     * its token from that slot's lock's sequence, {@link Lease#slot()} the slot it took. At most
     * {@code permits} permits live at once; a caller finding none free waits, FIFO, up to
     * {@code wait}, then gets empty. Renew, release, find, expiry and listeners are as for any lease.
     * The semaphore's permit count is fixed by its first acquire: asking with another count is
     * refused, never a silent resize.
     *
     * @throws IllegalArgumentException (through the stage) for a name or count {@link Semaphores#check}
     *     refuses, a count other than the semaphore's, or a bad ttl or wait
     * @throws UnsupportedOperationException (through the stage) on an issuer that does not keep
     *     semaphores yet
     */
    default CompletionStage<Optional<Lease>> acquirePermit(String semaphore, int permits, Duration ttl, Duration wait) {
        return java.util.concurrent.CompletableFuture.failedFuture(new UnsupportedOperationException(
                "this issuer does not support semaphores yet"));
    }

    /**
     * Acquires a permit like {@link #acquirePermit(String, int, Duration, Duration)}, with a
     * lock-delay on the slot it takes, as {@link #acquire(String, Duration, Duration, Duration)} keeps
     * one on a lock: if the permit ends involuntarily (its ttl passes, or the backend session holding
     * it is lost), nobody gets that slot until {@code lockDelay} has passed since that end, so a
     * holder that has not noticed its loss has that long to stop. A release frees the slot at once.
     * Other slots stay free to take meanwhile.
     *
     * <p>The default supports only a zero delay; backends that keep delays override it.
     *
     * @throws IllegalArgumentException (through the stage) for a negative delay, or any argument the
     *     four-argument acquirePermit refuses
     * @throws UnsupportedOperationException (through the stage) for a positive delay on an issuer
     *     that grants permits without one
     */
    default CompletionStage<Optional<Lease>> acquirePermit(String semaphore, int permits, Duration ttl, Duration wait, Duration lockDelay) {
        if (lockDelay == null || lockDelay.isNegative()) {
            return java.util.concurrent.CompletableFuture.failedFuture(new IllegalArgumentException(
                    "lockDelay must be zero or positive, was " + lockDelay));
        }
        if (!lockDelay.isZero()) {
            return java.util.concurrent.CompletableFuture.failedFuture(new UnsupportedOperationException(
                    "this issuer grants permits without a lock-delay"));
        }
        return acquirePermit(semaphore, permits, ttl, wait);
    }

    /**
     * The mode {@code token} was granted in for {@code lock}, or empty if it was not granted (as
     * {@link #wasGranted} answers false). A store that writes uses this to refuse a read lease's
     * token: a read token may fence reads, never write. A permit's token is a write token of its
     * slot's lock. The default serves an issuer that grants write leases only.
     */
    default CompletionStage<Optional<LeaseMode>> grantedMode(String lock, long token) {
        return wasGranted(lock, token).thenApply(granted -> granted ? Optional.of(LeaseMode.WRITE) : Optional.empty());
    }

    /**
     * Extends the lease to now + its ttl.
     *
     * @return the lease with its new expiry, or empty if the lease is gone (expired, released,
     *     session lost, or never existed)
     */
    CompletionStage<Optional<Lease>> renew(String leaseId);

    /** @return true if this call ended the lease, false if it was already gone */
    CompletionStage<Boolean> release(String leaseId);

    /**
     * Whether {@code token} was granted for {@code lock}. A store uses this to refuse tokens
     * nobody was granted (a client sending {@code Long.MAX_VALUE} would fence an item forever).
     * True answers are permanent facts and may be cached; issuers may forget very old grants
     * and answer false for them, which only ever refuses a write.
     */
    CompletionStage<Boolean> wasGranted(String lock, long token);

    /**
     * The live lease an id names, read without changing it: for watchers, which may ask any
     * issuer instance on the backend, not only the one that granted it.
     *
     * @return the lease with its current expiry, or empty once it has ended (released, expired,
     *     session lost) or if it never existed
     */
    CompletionStage<Optional<Lease>> find(String leaseId);

    /**
     * The lock a lease id names, read from the id alone: no round trip, and no answer about whether
     * the lease lives. A server authorizes a renew, a release or a watch by it before it does any
     * work. Sound because every backend keeps an id's secret with the lease on that lock: an id
     * edited to name another lock names no lease.
     *
     * @return the lock, or empty when this issuer cannot tell from the id (an id it could not have
     *     made, or an issuer whose ids do not carry the lock: the caller then reads the lease with
     *     {@link #find})
     */
    default Optional<String> lockOf(String leaseId) {
        return Optional.empty();
    }

    /**
     * Whether {@code lease}, seen live before and now ended, ended by {@link #release}. False for
     * an expiry, a lost session, or a release the backend no longer remembers (minutes later):
     * a watcher then reports the end as involuntary, the cautious answer.
     */
    CompletionStage<Boolean> wasReleased(Lease lease);

    /** The most leases one {@link #list} page holds. */
    int MAX_LIST_LIMIT = 1000;

    /**
     * Lists the live leases on locks starting with {@code lockPrefix}, from the backend (every
     * instance's leases, not only this one's), in lock-name order, one page at a time.
     *
     * @param lockPrefix ""  for every lock
     * @param cursor     null for the first page, else a previous page's {@link LeasePage#next}
     * @param limit      1 to {@link #MAX_LIST_LIMIT}
     * @throws IllegalArgumentException (through the stage) for a bad limit or a cursor this
     *     issuer did not make
     */
    CompletionStage<LeasePage> list(String lockPrefix, String cursor, int limit);

    /**
     * Why this issuer now refuses, to stay safe, grants it would otherwise make, for an operator;
     * empty while it refuses nothing. For instance the SQL issuer while a lock's last token is ahead
     * of its clock (that lock only), or while its database is set up so that an acknowledged grant
     * could be lost or granted twice (commits not durable, a second set of tables: every grant,
     * renewal and grant look-up fails with {@link IssuerUnavailableException} saying the same). It
     * clears by itself once the cause is gone. The gateway reports the issuer down in
     * {@code /health}, logs this, and sets the gauge {@code fencegate_issuer_fail_closed}. A backend
     * that never fails closed keeps the default.
     */
    default Optional<String> failingClosed() {
        return Optional.empty();
    }

    /** Registers a listener told when a lease granted here ends without a release. */
    void addListener(LeaseListener listener);

    /** Ends every lease this issuer holds and releases its connections. */
    @Override
    void close();
}

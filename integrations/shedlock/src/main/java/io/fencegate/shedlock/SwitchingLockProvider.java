package io.fencegate.shedlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;

/**
 * For the rolling switch from one of ShedLock's own providers (say {@code JdbcTemplateLockProvider})
 * to {@link FencedLockProvider}: a run holds both locks, the old provider's first, then the fenced
 * lease, and releases them in reverse. Instances not yet switched take only the old lock, instances
 * already past the switch only the lease; one of these excludes each of them, so no two runs of a
 * job overlap at any step:
 *
 * <ol>
 *   <li>deploy every instance with this provider (old instances and these exclude each other by the
 *       old lock);</li>
 *   <li>then deploy every instance with {@link FencedLockProvider} alone (these and those exclude
 *       each other by the lease).</li>
 * </ol>
 *
 * <p>The job's token is the lease's ({@link FencedJob#token()}). While old instances still run, their
 * writes carry no token, so the exclusion in step 1 is the old provider's: its {@code lockAtMostFor}
 * without a keep-alive, as before the switch.
 */
public final class SwitchingLockProvider implements LockProvider, AutoCloseable {
    private final LockProvider previous;
    private final FencedLockProvider fenced;

    /** {@code previous}: the provider the instances ran before; {@code fenced}: the one they move to. */
    public SwitchingLockProvider(LockProvider previous, FencedLockProvider fenced) {
        this.previous = Objects.requireNonNull(previous, "previous");
        this.fenced = Objects.requireNonNull(fenced, "fenced");
    }

    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        Optional<SimpleLock> old = previous.lock(configuration);
        if (old.isEmpty()) {
            return Optional.empty(); // an old instance, or a switching one, runs the job
        }
        Optional<SimpleLock> lease;
        try {
            lease = fenced.lock(configuration);
        } catch (RuntimeException e) {
            old.get().unlock();
            throw e;
        }
        if (lease.isEmpty()) {
            old.get().unlock(); // an instance past the switch runs it
            return Optional.empty();
        }
        return Optional.of(new BothLocks(old.get(), lease.get()));
    }

    /** Closes the fenced provider (waits for its releases still on their way). */
    @Override
    public void close() {
        fenced.close();
    }

    private static final class BothLocks implements SimpleLock {
        private final SimpleLock old;
        private final SimpleLock lease;

        BothLocks(SimpleLock old, SimpleLock lease) {
            this.old = old;
            this.lease = lease;
        }

        @Override
        public void unlock() {
            try {
                lease.unlock();
            } finally {
                old.unlock();
            }
        }

        /** Both or nothing: a run that could not extend one of its locks must not assume it still excludes. */
        @Override
        public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
            Optional<SimpleLock> oldExtended = old.extend(lockAtMostFor, lockAtLeastFor);
            if (oldExtended.isEmpty()) {
                return Optional.empty();
            }
            return lease.extend(lockAtMostFor, lockAtLeastFor).map(extended -> new BothLocks(oldExtended.get(), extended));
        }
    }
}

package io.fencegate.issuer;

import java.nio.charset.StandardCharsets;

/**
 * The one naming rule of fenced semaphores, the same on every issuer. A semaphore {@code S} with
 * {@code N} permits has {@code N} slots {@code 0..N-1}; slot {@code k} is the ordinary lock named
 * {@code S + "/" + k} (decimal, no leading zeros). A permit is an exclusive lease on a free slot's
 * lock, with a token from that lock's own sequence, so a store fences what slot {@code k}'s lock
 * guards exactly as it fences any lock's items: the next holder of slot {@code k} fences out its
 * stale holder. The gateway's item {@code {store}/{key}} is guarded by the semaphore
 * {@code {store}/{prefix}}'s slot when {@code key} is {@code {prefix}/{k}}.
 *
 * <p>Why plain lock names: stores, {@code wasGranted} and the gateway's lock-prefix checks need no
 * new concept. A slot's lock is an ordinary lock: taking it with a plain acquire takes that permit
 * away from the semaphore (safe, never a permit too many), so do not.
 */
public final class Semaphores {

    /** The most permits one semaphore may have: a grant may look at every slot. */
    public static final int MAX_PERMITS = 1000;

    private Semaphores() { }

    /** Slot {@code slot}'s lock name. */
    public static String slotLock(String semaphore, int slot) {
        return semaphore + "/" + slot;
    }

    /**
     * Refuses a semaphore name or permit count that breaks the rule: a valid lock name ({@link LockNames})
     * that stays one with its longest slot suffix, and 1 to {@link #MAX_PERMITS} permits.
     */
    public static void check(String semaphore, int permits) {
        if (permits < 1 || permits > MAX_PERMITS) {
            throw new IllegalArgumentException("permits must be 1 to " + MAX_PERMITS + ", was " + permits);
        }
        LockNames.check(semaphore);
        int suffix = slotLock("", permits - 1).getBytes(StandardCharsets.UTF_8).length;
        if (LockNames.utf8(semaphore).length + suffix > LockNames.MAX_BYTES) {
            throw new IllegalArgumentException("semaphore name must be at most " + (LockNames.MAX_BYTES - suffix)
                    + " UTF-8 bytes with " + permits + " permits (each slot's lock adds \"/<slot>\")");
        }
    }
}

package io.fencegate.issuer.sql;

import io.fencegate.issuer.backend.LruMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The locks this instance refuses to grant to stay safe, each until the issuer's clock passes its
 * last token: what the issuer's health reports ({@link SqlLeaseIssuer#failingClosed()}). Each lock
 * is logged once when its refusals start. A lock leaves by itself when its time is up (a grant then
 * goes through), so the state recovers without anyone clearing it.
 */
final class SqlFailClosed {

    private static final Logger log = LoggerFactory.getLogger(SqlFailClosed.class);

    /** Lock name → monotonic time until which it is refused. */
    private final Map<String, Long> refusedUntil = LruMap.synchronizedOf(10_000);

    /** {@code lock} was refused: its last token (or this instance's highest) is {@code aheadMs} ahead of the issuer's clock. */
    void refused(String lock, long aheadMs) {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(aheadMs);
        Long before = refusedUntil.put(lock, until);
        if (before == null || System.nanoTime() - before >= 0) {
            log.warn("SQL lease issuer fails closed on lock '{}': its last token is {} ms ahead of the issuer's clock (the"
                    + " database's clock went back while no gateway watched it, or the issuer's tables were restored from a"
                    + " backup taken before such a step); refused until the clock passes it", lock, aheadMs);
        }
    }

    /** A grant went through: the lock is no longer refused. */
    void granted(String lock) {
        if (!refusedUntil.isEmpty()) {
            refusedUntil.remove(lock);
        }
    }

    /** Why grants are refused now, if any are. */
    Optional<String> reason() {
        if (refusedUntil.isEmpty()) {
            return Optional.empty();
        }
        long now = System.nanoTime();
        long longest = 0;
        int locks = 0;
        synchronized (refusedUntil) {
            refusedUntil.values().removeIf(until -> now - until >= 0);
            for (long until : refusedUntil.values()) {
                locks++;
                longest = Math.max(longest, until - now);
            }
        }
        if (locks == 0) {
            return Optional.empty();
        }
        return Optional.of("SQL lease issuer fails closed on " + locks + (locks == 1 ? " lock" : " locks") + " for up to "
                + TimeUnit.NANOSECONDS.toSeconds(longest) + " s more: their last token is ahead of the issuer's clock");
    }
}

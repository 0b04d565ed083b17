package io.fencegate.issuer.backend;

import io.fencegate.issuer.LeaseMode;
import java.util.Map;
import java.util.Optional;

/**
 * Positive {@code wasGranted} answers, kept in-process: a grant is a permanent fact, so a "yes"
 * may be remembered (a "no" may become "yes" later, so it is never kept). Bounded, least recently
 * used first out, since a gateway may lock millions of items.
 */
public final class KnownGrants {

    /** The mode a grant is known to have, or {@link #MODE_UNKNOWN} (a "yes" from {@code wasGranted}, which does not say). */
    private final Map<String, Object> entries;
    private static final Object MODE_UNKNOWN = new Object();

    public KnownGrants(int capacity) {
        this.entries = LruMap.synchronizedOf(capacity);
    }

    /** A grant whose mode is not known here; a mode already known is kept. */
    public void add(String lock, long token) {
        entries.putIfAbsent(key(lock, token), MODE_UNKNOWN);
    }

    /** A grant with its mode. */
    public void add(String lock, long token, LeaseMode mode) {
        entries.put(key(lock, token), mode);
    }

    /** The mode of a grant kept here with its mode; empty if not kept, or kept without it. */
    public Optional<LeaseMode> modeOf(String lock, long token) {
        return entries.get(key(lock, token)) instanceof LeaseMode mode ? Optional.of(mode) : Optional.empty();
    }

    public boolean contains(String lock, long token) {
        return entries.containsKey(key(lock, token));
    }

    /** The token's digits end at the first '#', so no two (lock, token) pairs share a key. */
    private static String key(String lock, long token) {
        return token + "#" + lock;
    }
}

package io.fencegate.issuer.backend;

import java.util.Map;

/**
 * Positive {@code wasGranted} answers, kept in-process: a grant is a permanent fact, so a "yes"
 * may be remembered (a "no" may become "yes" later, so it is never kept). Bounded, least recently
 * used first out, since a gateway may lock millions of items.
 */
public final class KnownGrants {

    private final Map<String, Boolean> entries;

    public KnownGrants(int capacity) {
        this.entries = LruMap.synchronizedOf(capacity);
    }

    public void add(String lock, long token) {
        entries.put(key(lock, token), Boolean.TRUE);
    }

    public boolean contains(String lock, long token) {
        return entries.containsKey(key(lock, token));
    }

    /** The token's digits end at the first '#', so no two (lock, token) pairs share a key. */
    private static String key(String lock, long token) {
        return token + "#" + lock;
    }
}

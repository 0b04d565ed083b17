package io.fencegate.issuer.redis;

import java.util.LinkedHashMap;
import java.util.Map;

/** Positive {@code wasGranted} answers: permanent facts, so safe to keep; bounded, LRU. */
final class GrantCache {

    private final Map<String, Boolean> entries;

    GrantCache(int capacity) {
        this.entries = new LinkedHashMap<>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
                return size() > capacity;
            }
        };
    }

    synchronized void add(String lock, long token) {
        entries.put(key(lock, token), Boolean.TRUE);
    }

    synchronized boolean contains(String lock, long token) {
        return entries.containsKey(key(lock, token));
    }

    private static String key(String lock, long token) {
        return token + "\u0000" + lock;
    }
}

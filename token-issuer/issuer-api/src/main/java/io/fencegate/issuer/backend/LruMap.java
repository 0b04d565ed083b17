package io.fencegate.issuer.backend;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** Bounded in-process memory for per-lock facts: least recently used entries go first. */
public final class LruMap {

    private LruMap() { }

    /** A map, thread-safe through one lock, that drops its least recently used entry past {@code capacity}. */
    public static <K, V> Map<K, V> synchronizedOf(int capacity) {
        return Collections.synchronizedMap(new LinkedHashMap<K, V>(256, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
                return size() > capacity;
            }
        });
    }
}

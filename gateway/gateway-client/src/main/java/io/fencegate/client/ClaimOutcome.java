package io.fencegate.client;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a fenced multi-read ({@link FencegateClient#getAll}) did: {@link Claimed} (every item's fence
 * raised to its token) or {@link Refused} (no fence raised).
 */
public sealed interface ClaimOutcome permits ClaimOutcome.Claimed, Refused {

    /** Every item was claimed; by key, in the order given: a {@link ReadOutcome.Value} or a {@link ReadOutcome.NotFound}. */
    record Claimed(Map<String, ReadOutcome> items) implements ClaimOutcome {
        public Claimed {
            items = Collections.unmodifiableMap(new LinkedHashMap<>(items));
        }
    }

    default boolean claimed() {
        return this instanceof Claimed;
    }
}

package io.fencegate.client;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** What a {@link Transaction} did: {@link Committed} (all of it) or {@link Refused} (none of it). */
public sealed interface TransactionOutcome permits TransactionOutcome.Committed, Refused {

    /** Every put and delete applied together; by key, in the order they were added. */
    record Committed(Map<String, WriteOutcome.Applied> items) implements TransactionOutcome {
        public Committed {
            items = Collections.unmodifiableMap(new LinkedHashMap<>(items));
        }
    }

    default boolean committed() {
        return this instanceof Committed;
    }
}

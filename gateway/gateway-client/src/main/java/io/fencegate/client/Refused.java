package io.fencegate.client;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The gateway refused a transaction or a fenced multi-read (HTTP 409): at least one item's guard
 * refused its token, so nothing was applied and no fence raised.
 *
 * @param items every refused item by key, in the order they were given: why each was refused
 */
public record Refused(Map<String, Stale> items) implements TransactionOutcome, ClaimOutcome {

    public Refused {
        items = Collections.unmodifiableMap(new LinkedHashMap<>(items));
    }
}

package io.fencegate.store;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The statements ran under every key's guard and committed; each guard now carries its key's
 * token (token = fence = t).
 *
 * @param previousTokens each key's guard token before this transaction (0 if it had none), in
 *                       the order the keys were locked (their canonical order)
 * @param rows           rows changed by the statements, summed
 */
public record ExecutedAll(Map<String, Long> previousTokens, int rows) implements KeysResult {

    public ExecutedAll {
        previousTokens = Collections.unmodifiableMap(new LinkedHashMap<>(previousTokens));
    }
}

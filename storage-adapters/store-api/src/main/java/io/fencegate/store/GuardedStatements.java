package io.fencegate.store;

import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * SQL stores only: runs statements in one transaction that holds the guard row of a key
 * ({@code fencegate_fence}). The guard row is locked first, so everything the statements read
 * and write happens under the fence: a fenced read-modify-write by construction.
 */
public interface GuardedStatements {

    /**
     * Locks the guard row of {@code key}, checks {@code token} against it under the store's
     * rule, runs {@code sql} with {@code params} bound to its {@code :name} placeholders (never
     * spliced into the text), advances the guard row and commits. Stale: nothing runs.
     */
    CompletionStage<StatementResult> execute(String key, long token, NamedSql sql, Map<String, Object> params);
}

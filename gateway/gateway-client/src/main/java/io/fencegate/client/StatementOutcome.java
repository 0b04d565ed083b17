package io.fencegate.client;

import java.util.Map;

/** What a named statement did: {@link Executed} or {@link Stale}. */
public sealed interface StatementOutcome permits StatementOutcome.Executed, Stale {

    /**
     * The statement ran in one transaction with the key's guard row.
     *
     * @param token the token the statement ran with
     * @param rows  rows affected, as reported by the gateway
     * @param body  the whole JSON answer, for fields beyond {@code rows}
     */
    record Executed(long token, long rows, Map<String, Object> body) implements StatementOutcome {}
}

package io.fencegate.issuer.redis;

import java.util.function.LongFunction;

/**
 * A durable bound on every fencing token ever handed out, kept outside Redis.
 *
 * <p>Why: Redis without persistence (or after a FLUSHALL) forgets its token counter. Re-creating
 * it at 0 would hand out old tokens again. The issuer only ever lets Redis hand out tokens up to a
 * ceiling that it first wrote here, so after a loss it restarts the counter at this mark and no
 * token repeats or goes backwards.
 *
 * <p>Promise: every token handed out by any issuer sharing this mark is {@code <=} {@link #read()}.
 * All issuers that share one Redis key prefix must share one mark (the same file, or a shared
 * implementation); an issuer with its own, separate mark would not cover its peers' tokens.
 *
 * <p>Methods block on I/O; the issuer calls them off Redis's event loop.
 */
public interface TokenHighWaterMark {

    /** The current mark (0 if none was ever written). */
    long read();

    /**
     * Durably raises the mark to {@code max(mark, floor) + block} and answers the new mark. The
     * new value is on stable storage before this returns. Concurrent callers (threads or
     * processes) are serialised, so the ranges they reserve never overlap.
     */
    long raise(long floor, long block);

    /**
     * Runs {@code action} with the current mark while no {@link #raise} can run, in any process.
     * Used to re-create a lost counter from a mark nobody can move underneath it.
     */
    <T> T whileFrozen(LongFunction<T> action);

    /**
     * This mark's identity: made once, durably, the first time it is asked for, and the same for
     * every issuer that shares the mark (the same file, the same database row), different for
     * any other mark. The issuer records it in Redis beside the token counter and refuses a Redis
     * whose counter another mark covers: two marks on one key prefix would each cover only their
     * own issuer's tokens. Null (the default, for marks of other implementations): not checked.
     */
    default String identity() {
        return null;
    }
}

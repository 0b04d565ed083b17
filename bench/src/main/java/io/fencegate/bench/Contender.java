package io.fencegate.bench;

import java.time.Duration;

/** One thing measured side by side with others doing the same work. */
public interface Contender extends AutoCloseable {

    /** The name in the report, e.g. {@code fencegate ZooKeeper (zxid)} or {@code Curator InterProcessMutex}. */
    String name();

    /** Runs the load at {@code concurrency} for {@code warmUp} unrecorded, then for {@code measure} recorded. */
    Sample measure(int concurrency, Duration warmUp, Duration measure) throws Exception;

    @Override
    default void close() throws Exception { }
}

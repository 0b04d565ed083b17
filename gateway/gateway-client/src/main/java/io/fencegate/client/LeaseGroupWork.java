package io.fencegate.client;

/** Work run under a kept-alive lease group by {@link FencegateClient#withLeases}. */
@FunctionalInterface
public interface LeaseGroupWork<T, E extends Exception> {
    T run(LeaseGroupKeepAlive group) throws E;
}

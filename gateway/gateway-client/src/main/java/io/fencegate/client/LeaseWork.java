package io.fencegate.client;

/** Work run under a kept-alive lease by {@link FencegateClient#withLease}. */
@FunctionalInterface
public interface LeaseWork<T, E extends Exception> {
    T run(LeaseKeepAlive lease) throws E;
}

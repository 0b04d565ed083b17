package io.fencegate.store.testkit;

import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import java.net.InetSocketAddress;

/**
 * How the contract suite cuts an adapter off its backend: the backend's TCP address, and a store
 * built to reach it through a proxy's address. Adapters whose backend is not behind TCP (files)
 * return {@link #notProxyable(String)} and say why.
 */
public interface OutageHarness {

    /** The backend's real address, which the suite's {@link TcpProxy} forwards to. */
    InetSocketAddress backend();

    /** A store on the same data as the suite's other stores, connecting via {@code proxy}. */
    GuardedStore storeVia(InetSocketAddress proxy, GuardRule rule) throws Exception;

    /** Why this adapter has no TCP link to cut; null for a proxyable adapter. */
    default String notProxyableBecause() {
        return null;
    }

    /** An explicit opt-out: the outage test reports itself as not applicable, with the reason. */
    static OutageHarness notProxyable(String reason) {
        return new OutageHarness() {
            @Override
            public InetSocketAddress backend() {
                throw new UnsupportedOperationException(reason);
            }

            @Override
            public GuardedStore storeVia(InetSocketAddress proxy, GuardRule rule) {
                throw new UnsupportedOperationException(reason);
            }

            @Override
            public String notProxyableBecause() {
                return reason;
            }
        };
    }
}

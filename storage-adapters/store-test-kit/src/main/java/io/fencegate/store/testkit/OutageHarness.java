package io.fencegate.store.testkit;

import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.testing.TcpProxy;
import java.net.InetSocketAddress;

/**
 * How the contract suite cuts an adapter off its backend. A networked adapter names its backend's
 * TCP address and builds a store that connects through a {@link TcpProxy} the suite controls (the
 * default {@link #open}); an adapter whose backend is not behind TCP (files) supplies its own
 * {@link Outage} through {@link #custom}.
 */
public interface OutageHarness {

    /** The backend's real address, which the suite's {@link TcpProxy} forwards to. */
    InetSocketAddress backend();

    /** A store on the same data as the suite's other stores, connecting via {@code proxy}. */
    GuardedStore storeVia(InetSocketAddress proxy, GuardRule rule) throws Exception;

    /** A store whose backend the suite can take away and give back. */
    interface Outage extends AutoCloseable {
        GuardedStore store();

        /** The backend is gone: operations must fail with StoreUnavailableException, fast. */
        void cut() throws Exception;

        /** The backend is back: operations must succeed again without a new store. */
        void restore() throws Exception;

        /**
         * A store that reaches the same data by another way while the cut lasts, for the suite to
         * look at; null: the suite's own stores do (a TCP adapter's direct connection).
         */
        default GuardedStore witness() {
            return null;
        }
    }

    /** Starts a proxy to {@link #backend()} and a store through it; cut and restore act on the proxy. */
    default Outage open(GuardRule rule) throws Exception {
        TcpProxy proxy = TcpProxy.start(backend());
        GuardedStore store = storeVia(proxy.address(), rule);
        return new Outage() {
            @Override
            public GuardedStore store() {
                return store;
            }

            @Override
            public void cut() {
                proxy.cut();
            }

            @Override
            public void restore() throws Exception {
                proxy.restore();
            }

            @Override
            public void close() {
                try {
                    store.close();
                } finally {
                    proxy.close();
                }
            }
        };
    }

    /** How a TCP adapter opens a store through the suite's proxy. */
    interface StoreVia {
        GuardedStore open(InetSocketAddress proxy, GuardRule rule) throws Exception;
    }

    /** A TCP adapter: its backend at {@code backend}, its stores through the proxy opened by {@code storeVia}. */
    static OutageHarness tcp(InetSocketAddress backend, StoreVia storeVia) {
        return new OutageHarness() {
            @Override
            public InetSocketAddress backend() {
                return backend;
            }

            @Override
            public GuardedStore storeVia(InetSocketAddress proxy, GuardRule rule) throws Exception {
                return storeVia.open(proxy, rule);
            }
        };
    }

        /** How an adapter without a TCP link makes an outage. */
    interface Opener {
        Outage open(GuardRule rule) throws Exception;
    }

    /** An adapter-specific outage (e.g. the files store's directory taken away). */
    static OutageHarness custom(Opener opener) {
        return new OutageHarness() {
            @Override
            public InetSocketAddress backend() {
                throw new UnsupportedOperationException("not a TCP adapter");
            }

            @Override
            public GuardedStore storeVia(InetSocketAddress proxy, GuardRule rule) {
                throw new UnsupportedOperationException("not a TCP adapter");
            }

            @Override
            public Outage open(GuardRule rule) throws Exception {
                return opener.open(rule);
            }
        };
    }
}

package io.fencegate.store.spi;

/** What the server gives a provider to open one store with. */
public interface StoreContext {

    /** The store's name: in the server's URLs, and the name the store claims its place for. */
    String name();

    /**
     * A shared object the server owns, by type; e.g. the gateway's {@code io.vertx.core.Vertx}
     * for a store that runs on its event loops. Typed look-up keeps this API free of any server
     * library.
     *
     * @throws IllegalStateException the server offers no such object
     */
    <T> T service(Class<T> type);

    /** Closes {@code resource} when the server stops, after the stores opened later (reverse order). */
    void closeOnStop(AutoCloseable resource);
}

package io.fencegate.gateway.it;

import io.fencegate.store.Applied;
import io.fencegate.store.Found;
import io.fencegate.store.GuardRule;
import io.fencegate.store.GuardedStore;
import io.fencegate.store.Missing;
import io.fencegate.store.ReadResult;
import io.fencegate.store.Stale;
import io.fencegate.store.StoreLimits;
import io.fencegate.store.WriteResult;
import io.fencegate.store.spi.OpenedStore;
import io.fencegate.store.spi.Settings;
import io.fencegate.store.spi.StoreContext;
import io.fencegate.store.spi.StoreProvider;
import io.fencegate.store.spi.StoreType;
import io.fencegate.store.spi.StoreSettings;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A backend that exists only on the test classpath, registered in this module's
 * {@code src/test/resources/META-INF/services}: proof that the gateway serves a store type it
 * has no code for. {@code type: test-memory}, one extra key {@code maxKeyBytes}.
 */
public final class MemoryStoreProvider implements StoreProvider<MemoryStoreProvider.MemorySettings> {

    public record MemorySettings(Integer maxKeyBytes, String rule, String lock) implements StoreSettings {}

    private static final StoreType<MemorySettings> TYPE = new StoreType<>("test-memory", MemorySettings.class);

    @Override
    public StoreType<MemorySettings> storeType() {
        return TYPE;
    }

    /** A fresh, empty store each time. */
    @Override
    public OpenedStore open(MemorySettings settings, StoreContext context) {
        StoreLimits limits = settings.maxKeyBytes() == null ? StoreLimits.DEFAULT
                : StoreLimits.DEFAULT.atMostKeyBytes(settings.maxKeyBytes());
        return OpenedStore.of(new MemoryStore(Settings.rule("rule", settings.rule()), limits));
    }

    /** Items in a map, every operation under one lock: the guard and its effect are atomic. */
    static final class MemoryStore implements GuardedStore {
        private record Item(byte[] value, long token, long fence) {}

        private final Map<String, Item> items = new HashMap<>();
        private final GuardRule rule;
        private final StoreLimits limits;

        MemoryStore(GuardRule rule, StoreLimits limits) {
            this.rule = rule;
            this.limits = limits;
        }

        @Override
        public synchronized CompletionStage<WriteResult> write(String key, long token, byte[] value) {
            Item item = items.getOrDefault(key, new Item(null, 0, 0));
            if (!rule.admits(token, item.token(), item.fence())) {
                return CompletableFuture.completedFuture(new Stale(item.token(), item.fence(), token));
            }
            items.put(key, new Item(value, token, token));
            return CompletableFuture.completedFuture(new Applied(item.token()));
        }

        @Override
        public CompletionStage<WriteResult> delete(String key, long token) {
            return write(key, token, null);
        }

        @Override
        public synchronized CompletionStage<ReadResult> read(String key) {
            Item item = items.get(key);
            return CompletableFuture.completedFuture(item == null ? new Missing(0, 0)
                    : item.value() == null ? new Missing(item.token(), item.fence())
                    : new Found(item.value(), item.token(), item.fence()));
        }

        @Override
        public synchronized CompletionStage<ReadResult> fencedRead(String key, long token) {
            Item item = items.getOrDefault(key, new Item(null, 0, 0));
            if (item.fence() > token) {
                return CompletableFuture.completedFuture(new Stale(item.token(), item.fence(), token));
            }
            items.put(key, new Item(item.value(), item.token(), token));
            return read(key);
        }

        @Override
        public GuardRule rule() {
            return rule;
        }

        @Override
        public StoreLimits limits() {
            return limits;
        }

        @Override
        public void close() {}
    }
}

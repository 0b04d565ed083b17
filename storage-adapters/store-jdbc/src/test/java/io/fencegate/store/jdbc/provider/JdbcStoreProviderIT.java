package io.fencegate.store.jdbc.provider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.store.Applied;
import io.fencegate.store.Stale;
import io.fencegate.store.spi.InvalidSettingException;
import io.fencegate.store.spi.OpenedStore;
import io.fencegate.store.spi.StoreContext;
import io.fencegate.store.spi.StoreProvider;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** This module alone is a backend a server discovers: registered for ServiceLoader, opened from its settings. */
class JdbcStoreProviderIT {

    @Test
    void serviceLoaderFindsTheJdbcTypeAndItOpensAGuardedStore() throws Exception {
        JdbcStoreProvider provider = jdbcProvider();
        assertThat(provider.storeType().settings()).isEqualTo(JdbcStoreSettings.class);
        JdbcStoreSettings settings = new JdbcStoreSettings("jdbc:h2:mem:fg_stores_provider;DB_CLOSE_DELAY=-1", "sa", "",
                null, null, "strict", null, Map.of());
        settings.validate();
        List<AutoCloseable> closeOnStop = new ArrayList<>();
        OpenedStore opened = provider.open(settings, context("orders", closeOnStop));
        try (var store = opened.store()) {
            assertThat(opened.statements()).isNotNull();
            byte[] value = "1".getBytes(StandardCharsets.UTF_8);
            assertThat(store.write("stock/widget", 7, value).toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .isInstanceOf(Applied.class);
            assertThat(store.write("stock/widget", 6, value).toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .isInstanceOf(Stale.class);
        }
    }

    @Test
    void anUnreachableDatabaseIsNamedUnderUrl() {
        JdbcStoreSettings settings = new JdbcStoreSettings("jdbc:mariadb://127.0.0.1:1/test?connectTimeout=2000", "root", "",
                1, "2s", "strict", null, Map.of());
        assertThatThrownBy(() -> jdbcProvider().open(settings, context("orders", new ArrayList<>())))
                .isInstanceOfSatisfying(InvalidSettingException.class, e -> assertThat(e.key()).isEqualTo("url"))
                .hasMessageContaining("cannot reach the database at jdbc:mariadb://127.0.0.1:1/test");
    }

    private static JdbcStoreProvider jdbcProvider() {
        List<StoreProvider<?>> found = new ArrayList<>();
        ServiceLoader.load(StoreProvider.class).forEach(found::add);
        assertThat(found).hasSize(1);
        return (JdbcStoreProvider) found.get(0);
    }

    private static StoreContext context(String name, List<AutoCloseable> closeOnStop) {
        return new StoreContext() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public <T> T service(Class<T> type) {
                throw new IllegalStateException("no " + type.getName() + " here");
            }

            @Override
            public void closeOnStop(AutoCloseable resource) {
                closeOnStop.add(resource);
            }
        };
    }
}

package io.fencegate.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Bad JDBC store options are refused at open with a message that starts with the option's name. */
class JdbcStoreOptionsTest {

    @Test
    void eachBadOptionIsRefusedNamingIt() {
        assertThatThrownBy(() -> new JdbcStoreOptions().poolSize(0).validate())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("poolSize: must be 1..1000, was 0");
        assertThatThrownBy(() -> new JdbcStoreOptions().poolSize(1001).validate())
                .hasMessage("poolSize: must be 1..1000, was 1001");
        assertThatThrownBy(() -> new JdbcStoreOptions().connectTimeout(Duration.ofMillis(100)).validate())
                .hasMessage("connectTimeout: must be at least 250 ms, was 100 ms");
        assertThatThrownBy(() -> new JdbcStoreOptions().queryTimeout(Duration.ofMillis(999)).validate())
                .hasMessage("queryTimeout: must be at least 1000 ms, was 999 ms");
        assertThatThrownBy(() -> new JdbcStoreOptions().jdbcUrl("mariadb://x").validate())
                .hasMessageStartingWith("jdbcUrl: must be a JDBC URL");
        assertThatThrownBy(() -> new JdbcStoreOptions().name("no spaces"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a store name is 1-64");
    }

    @Test
    void aStoreWithItsOwnPoolNeedsAUrlAndOpensNothingWithout() {
        assertThatThrownBy(() -> JdbcGuardedStore.open(new JdbcStoreOptions()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("jdbcUrl: is required");
        assertThatThrownBy(() -> JdbcGuardedStore.open(new JdbcStoreOptions().jdbcUrl("jdbc:h2:mem:x").poolSize(0)))
                .hasMessageStartingWith("poolSize:");
    }

    @Test
    void defaultsValidate() {
        JdbcStoreOptions options = new JdbcStoreOptions().validate();
        assertThat(options.poolSize()).isEqualTo(8);
        assertThat(options.name()).isEqualTo("default");
        assertThat(options.migrate()).isTrue();
    }
}

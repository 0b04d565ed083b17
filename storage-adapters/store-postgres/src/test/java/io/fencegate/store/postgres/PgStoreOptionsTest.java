package io.fencegate.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Bad reactive Postgres store options are refused at open with a message that starts with the option's name. */
class PgStoreOptionsTest {

    @Test
    void eachBadOptionIsRefusedNamingIt() {
        assertThatThrownBy(() -> new PgStoreOptions().poolSize(0).validate())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("poolSize: must be 1..1000, was 0");
        assertThatThrownBy(() -> new PgStoreOptions().port(0).validate()).hasMessage("port: must be 1..65535, was 0");
        assertThatThrownBy(() -> new PgStoreOptions().host(" ").validate()).hasMessageStartingWith("host:");
        assertThatThrownBy(() -> new PgStoreOptions().database("").validate()).hasMessageStartingWith("database:");
        assertThatThrownBy(() -> new PgStoreOptions().schema("").validate()).hasMessageStartingWith("schema:");
        assertThatThrownBy(() -> new PgStoreOptions().connectTimeout(Duration.ZERO).validate())
                .hasMessageStartingWith("connectTimeout:");
        assertThatThrownBy(() -> new PgStoreOptions().operationTimeout(null).validate())
                .hasMessageStartingWith("operationTimeout:");
        assertThat(new PgStoreOptions().validate().poolSize()).isEqualTo(8);
    }

    @Test
    void openRefusesBadOptionsBeforeConnecting() throws Exception {
        Vertx vertx = Vertx.vertx();
        try {
            assertThatThrownBy(() -> PgGuardedStore.open(vertx, new PgStoreOptions().port(70000)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("port: must be 1..65535, was 70000");
        } finally {
            vertx.close().await(10, TimeUnit.SECONDS);
        }
    }
}

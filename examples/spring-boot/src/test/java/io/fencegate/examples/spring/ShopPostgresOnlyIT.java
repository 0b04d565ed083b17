package io.fencegate.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.examples.support.PostgresSchema;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.sql.SqlLeaseIssuer;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The shop in profile {@code postgres-only}: PostgreSQL is the only server. The leases come from the
 * sql issuer on Boot's own DataSource, in the same schema as the stock and the guard rows, and the
 * same buyers sell exactly the stock ({@link ShopScenarios}).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ActiveProfiles("postgres-only")
@DirtiesContext // closes the pool and the issuer before @AfterAll drops the schema
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShopPostgresOnlyIT extends ShopScenarios {
    private static final PostgresSchema DB;

    static {
        try {
            DB = PostgresSchema.create("ex_spring_pg");
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @DynamicPropertySource
    static void backends(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DB::jdbcUrl);
        registry.add("shop.lease.wait", () -> "30s"); // every buyer queues for the lock
    }

    @AfterAll
    static void stop() throws Exception {
        DB.close();
    }

    @Autowired
    LeaseIssuer issuer;

    @Autowired
    DSLContext dsl;

    @Test
    void theLeasesComeFromTheSameDatabaseAsTheStock() throws Exception {
        assertThat(issuer).isInstanceOf(SqlLeaseIssuer.class);
        assertThat(call("PUT", "/stock/sku-pg?units=2").statusCode()).isEqualTo(200);
        assertThat(call("POST", "/stock/sku-pg/sell").statusCode()).isEqualTo(201);
        // The issuer's fence row for the lock and the store's guard row sit in the shop's own schema:
        // the order carries the last token the issuer granted, and the guard row holds it too.
        Object order = dsl.fetchValue("SELECT token FROM orders WHERE sku = 'sku-pg'");
        assertThat(dsl.fetchValue("SELECT token FROM fencegate_lock_fence WHERE lock_name = convert_to('stock/sku-pg', 'UTF8')"))
                .isEqualTo(order);
        assertThat(dsl.fetchValue("SELECT token FROM fencegate_fence WHERE resource = 'stock/sku-pg'")).isEqualTo(order);
    }
}

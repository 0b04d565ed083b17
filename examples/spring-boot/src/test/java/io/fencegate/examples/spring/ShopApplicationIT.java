package io.fencegate.examples.spring;

import io.fencegate.examples.support.PostgresSchema;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The shop started as Spring Boot starts it (a real port, Boot's own HikariCP DataSource on a Postgres
 * schema of its own, leases from a ZooKeeper test server) and driven over HTTP ({@link ShopScenarios}).
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext // closes the pool and the issuer before @AfterAll drops the schema
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ShopApplicationIT extends ShopScenarios {
    private static final TestingServer ZOOKEEPER;
    private static final PostgresSchema DB;

    static {
        try {
            ZOOKEEPER = new TestingServer(true);
            DB = PostgresSchema.create("ex_spring");
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @DynamicPropertySource
    static void backends(DynamicPropertyRegistry registry) {
        registry.add("spring.datasource.url", DB::jdbcUrl);
        registry.add("fencegate.issuer.zookeeper.connect-string", ZOOKEEPER::getConnectString);
        registry.add("shop.lease.wait", () -> "30s"); // every buyer queues for the lock
    }

    @AfterAll
    static void stop() throws Exception {
        DB.close();
        ZOOKEEPER.close();
    }
}

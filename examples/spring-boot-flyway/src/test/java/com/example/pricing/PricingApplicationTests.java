package com.example.pricing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.schema.FencegateSchema;
import io.fencegate.shedlock.FencedLockProvider;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.LockProvider;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.postgresql.ds.PGSimpleDataSource;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The application started as Boot starts it, twice, on a PostgreSQL database of its own (created
 * and dropped here): Boot's Flyway migrates the application's table in {@code public}, fencegate
 * its own in schema {@code fencegate}, neither refuses the other, and a stale token is refused
 * through JdbcTemplate and through the ShedLock job's jOOQ write.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class PricingApplicationTests {
    private static final String DATABASE = "fg_pricing_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private static final String SHARED = DATABASE + "_public";
    private static final String ADMIN_URL = "jdbc:postgresql://127.0.0.1:5432/test";

    @BeforeAll
    static void createDatabase() throws Exception {
        admin("CREATE DATABASE " + DATABASE);
        admin("CREATE DATABASE " + SHARED);
    }

    @AfterAll
    static void dropDatabase() throws Exception {
        admin("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
        admin("DROP DATABASE IF EXISTS " + SHARED + " WITH (FORCE)");
    }

    @Test
    void startsWithBootsFlywayAndFencegateInItsOwnSchemaAndRefusesStaleWrites() {
        try (ConfigurableApplicationContext app = start()) {
            JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
            assertThat(jdbc.queryForList("SELECT version FROM public.flyway_schema_history WHERE success", String.class))
                    .containsExactly("1");
            assertThat(jdbc.queryForList("SELECT table_name FROM information_schema.tables WHERE table_schema = 'fencegate'",
                    String.class)).contains("fencegate_fence", "fencegate_schema_history", "fencegate_lock_fence",
                    "fencegate_issuer_schema_history");
            assertThat(jdbc.queryForObject("SELECT count(*) FROM information_schema.tables"
                    + " WHERE table_schema = 'public' AND table_name LIKE 'fencegate%'", Integer.class)).isZero();

            LeaseIssuer issuer = app.getBean(LeaseIssuer.class);
            long older = leaseAndRelease(issuer);
            long newer = leaseAndRelease(issuer);
            PriceWriter writer = app.getBean(PriceWriter.class);
            assertThat(writer.setPrice("A-1", 1200, newer)).isEqualTo(1);
            assertThat(writer.setPrice("A-1", 900, older)).as("the older lease's late write").isZero();
            assertThat(jdbc.queryForObject("SELECT cents FROM price WHERE sku = 'A-1'", Integer.class)).isEqualTo(1200);

            assertThat(app.getBean(LockProvider.class)).isInstanceOf(FencedLockProvider.class);
            assertThat(app.getBean(PriceRefresh.class).refresh("A-1", 1300)).as("a newer run's token").contains(1);
            assertThat(writer.setPrice("A-1", 800, newer)).as("the job's run wrote with a newer token").isZero();
        }
        // A second start on the same database: both migrations find their history and do nothing.
        try (ConfigurableApplicationContext app = start()) {
            assertThat(app.getBean(JdbcTemplate.class).queryForObject("SELECT cents FROM price WHERE sku = 'A-1'", Integer.class))
                    .isEqualTo(1300);
        }
    }

    /**
     * The other recipe: fencegate's tables in public beside the application's. Here fencegate's
     * migration ran first (the order of the two at start is not fixed), and Boot's Flyway, told to
     * baseline at version 0, still applies the application's V1.
     */
    @Test
    void bootsFlywayBaselinesAtZeroBesideFencegatesTablesInPublic() {
        PGSimpleDataSource before = new PGSimpleDataSource();
        before.setURL("jdbc:postgresql://127.0.0.1:5432/" + SHARED);
        before.setUser("postgres");
        FencegateSchema.migrate(before);
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(PricingApplication.class)
                .run("--spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/" + SHARED,
                        "--fencegate.jdbc.schema=",
                        "--spring.flyway.baseline-on-migrate=true",
                        "--spring.flyway.baseline-version=0")) {
            JdbcTemplate jdbc = app.getBean(JdbcTemplate.class);
            assertThat(jdbc.queryForList("SELECT version FROM flyway_schema_history WHERE success ORDER BY installed_rank",
                    String.class)).containsExactly("0", "1");
            assertThat(jdbc.queryForObject("SELECT cents FROM price WHERE sku = 'A-1'", Integer.class)).isEqualTo(1000);
            assertThat(app.getBean(PriceWriter.class).setPrice("A-1", 1100, leaseAndRelease(app.getBean(LeaseIssuer.class))))
                    .isEqualTo(1);
        }
    }

    @Test
    void bootsManagedVersionsAreTheOnesOnTheClasspath() {
        // What spring-boot-starter-parent pins (3.5.7, or 4.0.7 for a Boot 4 application), not what
        // fencegate's own build uses (Flyway 13.12.0, HikariCP 7.1.0, PgJDBC 42.7.14, jOOQ 3.19.39).
        boolean boot4 = SpringBootVersion.getVersion().startsWith("4.");
        assertThat(jarOf(Flyway.class)).isEqualTo(boot4 ? "flyway-core-11.14.1.jar" : "flyway-core-11.7.2.jar");
        assertThat(jarOf(com.zaxxer.hikari.HikariDataSource.class)).isEqualTo(boot4 ? "HikariCP-7.0.2.jar" : "HikariCP-6.3.3.jar");
        assertThat(jarOf(org.postgresql.Driver.class)).isEqualTo(boot4 ? "postgresql-42.7.11.jar" : "postgresql-42.7.8.jar");
        assertThat(jarOf(org.jooq.DSLContext.class)).isEqualTo(boot4 ? "jooq-3.19.35.jar" : "jooq-3.19.27.jar");
    }

    private static String jarOf(Class<?> type) {
        String path = type.getProtectionDomain().getCodeSource().getLocation().getPath();
        return path.substring(path.lastIndexOf('/') + 1);
    }

    private static ConfigurableApplicationContext start() {
        // Arguments, as on a command line: they override application.properties (builder defaults would not).
        return new SpringApplicationBuilder(PricingApplication.class)
                .run("--spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/" + DATABASE + "?currentSchema=public,fencegate");
    }

    private static long leaseAndRelease(LeaseIssuer issuer) {
        Lease lease = issuer.acquire("price/A-1", Duration.ofSeconds(30), Duration.ofSeconds(10))
                .toCompletableFuture().join().orElseThrow();
        issuer.release(lease.leaseId()).toCompletableFuture().join();
        return lease.token();
    }

    private static void admin(String sql) throws Exception {
        try (Connection c = DriverManager.getConnection(ADMIN_URL, "postgres", ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

}

package io.fencegate.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.mariadb.jdbc.MariaDbDataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The migrations apply on every supported database, twice (idempotent), into a schema that
 * already holds the application's own table, and give the tables the columns and rules the
 * adapters rely on. Each database gets its own schema / database, dropped afterwards.
 */
@Timeout(120)
class FencegateSchemaMigrateIT {

    private static String randomName() {
        return "fgschema_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    }

    @Test
    void migratesPostgresInItsOwnSchemaTwice() throws Exception {
        String schema = randomName();
        admin("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "CREATE SCHEMA " + schema);
        try {
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setURL("jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + schema);
            ds.setUser("postgres");
            migrateTwiceNextToAnApplicationTable(ds, FencegateSchema.HISTORY_TABLE);
            assertThat(count(ds, "SELECT count(*) FROM information_schema.tables WHERE table_schema = '" + schema
                    + "' AND table_name IN ('fencegate_item', 'fencegate_fence')")).isEqualTo(2);
        } finally {
            admin("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    @Test
    void migratesPostgresIntoANamedSchemaItCreatesLeavingTheDefaultSchemaAlone() throws Exception {
        String own = randomName();
        String named = own + "_fg";
        admin("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "CREATE SCHEMA " + own);
        try {
            PGSimpleDataSource ds = new PGSimpleDataSource();
            ds.setURL("jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + own);
            ds.setUser("postgres");
            FencegateSchema.migrate(ds, named);
            FencegateSchema.migrate(ds, named);
            assertThat(count(ds, "SELECT count(*) FROM information_schema.tables WHERE table_schema = '" + named
                    + "' AND table_name IN ('fencegate_item', 'fencegate_fence', '" + FencegateSchema.HISTORY_TABLE + "')")).isEqualTo(3);
            assertThat(count(ds, "SELECT count(*) FROM information_schema.tables WHERE table_schema = '" + own + "'")).isZero();
            assertThatThrownBy(() -> FencegateSchema.migrate(ds, "Bad-Name")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("schema");
        } finally {
            admin("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "DROP SCHEMA IF EXISTS " + own + " CASCADE");
            admin("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "DROP SCHEMA IF EXISTS " + named + " CASCADE");
        }
    }

    @Test
    void migratesMariaDbInItsOwnDatabaseTwice() throws Exception {
        String database = randomName();
        admin("jdbc:mariadb://127.0.0.1:3306/", "root", "CREATE DATABASE " + database);
        try {
            MariaDbDataSource ds = new MariaDbDataSource("jdbc:mariadb://127.0.0.1:3306/" + database);
            ds.setUser("root");
            ds.setPassword("");
            migrateTwiceNextToAnApplicationTable(ds, FencegateSchema.HISTORY_TABLE);
            assertThat(count(ds, "SELECT count(*) FROM information_schema.tables WHERE table_schema = '" + database
                    + "' AND table_name IN ('fencegate_item', 'fencegate_fence')")).isEqualTo(2);
            // Keys compare as bytes: "Stock" and "stock" are two items.
            exec(ds, "INSERT INTO fencegate_item (resource, val, token, fence) VALUES ('Stock', NULL, 1, 1)");
            exec(ds, "INSERT INTO fencegate_item (resource, val, token, fence) VALUES ('stock', NULL, 1, 1)");
            assertThat(count(ds, "SELECT count(*) FROM fencegate_item WHERE resource IN ('Stock', 'stock')")).isEqualTo(2);
        } finally {
            admin("jdbc:mariadb://127.0.0.1:3306/", "root", "DROP DATABASE IF EXISTS " + database);
        }
    }

    @Test
    void migratesH2Twice() throws Exception {
        JdbcDataSource ds = new JdbcDataSource();
        ds.setURL("jdbc:h2:mem:" + randomName() + ";DB_CLOSE_DELAY=-1");
        // Flyway quotes its history table's name; H2 upper-cases unquoted names.
        migrateTwiceNextToAnApplicationTable(ds, '"' + FencegateSchema.HISTORY_TABLE + '"');
        assertThat(count(ds, "SELECT count(*) FROM information_schema.tables WHERE lower(table_name) IN ('fencegate_item', 'fencegate_fence')"))
                .isEqualTo(2);
        exec(ds, "SHUTDOWN");
    }

    /** Gateways starting together all migrate the same fresh schema: every one must succeed. */
    @Test
    void concurrentFirstMigrationsOnPostgresAllSucceed() throws Exception {
        for (int round = 0; round < 3; round++) {
            String schema = randomName();
            admin("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "CREATE SCHEMA " + schema);
            try {
                migrateConcurrently(() -> {
                    PGSimpleDataSource ds = new PGSimpleDataSource();
                    ds.setURL("jdbc:postgresql://127.0.0.1:5432/test?currentSchema=" + schema);
                    ds.setUser("postgres");
                    return ds;
                });
            } finally {
                admin("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    @Test
    void concurrentFirstMigrationsOnMariaDbAllSucceed() throws Exception {
        for (int round = 0; round < 3; round++) {
            String database = randomName();
            admin("jdbc:mariadb://127.0.0.1:3306/", "root", "CREATE DATABASE " + database);
            try {
                migrateConcurrently(() -> {
                    MariaDbDataSource ds = new MariaDbDataSource("jdbc:mariadb://127.0.0.1:3306/" + database);
                    ds.setUser("root");
                    ds.setPassword("");
                    return ds;
                });
            } finally {
                admin("jdbc:mariadb://127.0.0.1:3306/", "root", "DROP DATABASE IF EXISTS " + database);
            }
        }
    }

    private interface DataSources {
        DataSource next() throws SQLException;
    }

    private static void migrateConcurrently(DataSources dataSources) throws Exception {
        int migrators = 6;
        ExecutorService pool = Executors.newFixedThreadPool(migrators);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < migrators; i++) {
                DataSource ds = dataSources.next();
                done.add(pool.submit(() -> {
                    start.await();
                    FencegateSchema.migrate(ds);
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
            DataSource ds = dataSources.next();
            assertThat(count(ds, "SELECT count(*) FROM fencegate_token_mark")).isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    private static void migrateTwiceNextToAnApplicationTable(DataSource ds, String history) throws SQLException {
        exec(ds, "CREATE TABLE app_orders (id INT PRIMARY KEY)");
        FencegateSchema.migrate(ds);
        long applied = count(ds, "SELECT count(*) FROM " + history);
        exec(ds, "INSERT INTO fencegate_item (resource, val, token, fence) VALUES ('kept', NULL, 3, 3)");
        FencegateSchema.migrate(ds);
        assertThat(count(ds, "SELECT count(*) FROM fencegate_item")).isEqualTo(1);
        assertThat(count(ds, "SELECT count(*) FROM fencegate_fence")).isZero();
        assertThat(applied).as("baseline, V1, V2 recorded").isGreaterThanOrEqualTo(3);
        assertThat(count(ds, "SELECT count(*) FROM " + history)).as("the second run applied nothing").isEqualTo(applied);
        assertThat(count(ds, "SELECT count(*) FROM app_orders")).isZero();
        // The database itself refuses a fence below the token, on both tables.
        assertThatThrownBy(() -> exec(ds, "INSERT INTO fencegate_item (resource, val, token, fence) VALUES ('bad', NULL, 5, 4)"))
                .isInstanceOf(SQLException.class);
        assertThatThrownBy(() -> exec(ds, "INSERT INTO fencegate_fence (resource, token, fence) VALUES ('bad', 5, 4)"))
                .isInstanceOf(SQLException.class);
    }

    private static long count(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static void exec(DataSource ds, String sql) throws SQLException {
        try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static void admin(String url, String user, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, ""); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}

package io.fencegate.issuer.sql;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every database the issuer migrated keeps validating: each dialect's folder resolves to the
 * versions, descriptions and checksums its history table holds ({@code fencegate_issuer_schema_history}).
 * A changed byte in a shipped migration fails here, not on a production database; a new migration
 * is added here with the checksum it shipped with.
 */
@Timeout(60)
class SqlIssuerMigrationChecksumsTest {

    @Test
    void everyDialectsMigrationsKeepTheirChecksums() {
        Map<SqlDialect, Map<String, Integer>> all = new TreeMap<>();
        for (SqlDialect dialect : SqlDialect.values()) {
            all.put(dialect, resolved(dialect));
        }
        assertThat(all).isEqualTo(Map.of(
                SqlDialect.POSTGRESQL, Map.of("1 lease tables", -1802540686, "2 lease view", 1610957910,
                        "3 read leases and semaphores", 1806115861),
                SqlDialect.MYSQL, Map.of("1 lease tables", 667310219, "2 lease view", 1925187198,
                        "3 read leases and semaphores", 1944793811),
                SqlDialect.H2, Map.of("1 lease tables", -1947691311, "2 lease view", 2071847847,
                        "3 read leases and semaphores", 1751055739)));
    }

    private static Map<String, Integer> resolved(SqlDialect dialect) {
        // Resolving reads the files only; an empty in-memory H2 stands in for the dialect's database.
        Flyway flyway = Flyway.configure().dataSource("jdbc:h2:mem:" + UUID.randomUUID(), "sa", "")
                .locations("classpath:db/fencegate-issuer/" + dialect.folder).load();
        Map<String, Integer> out = new TreeMap<>();
        Arrays.stream(flyway.info().all()).forEach(m -> out.put(m.getVersion() + " " + m.getDescription(), m.getChecksum()));
        return out;
    }
}

package io.fencegate.schema;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.schema.FencegateSchema.Dialect;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.MigrationInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every database migrated by an earlier build keeps validating: each dialect's locations resolve
 * to the same versions, descriptions and checksums that its history table holds. The numbers are
 * Flyway's checksums of the files as they stood in one folder per database (before V2 to V4
 * moved to {@code common/}); Flyway's validate compares exactly these, so a changed byte in a
 * migration, a lost or a doubled one fails here, not on a production database. A new migration
 * is added here with the checksum it shipped with.
 */
@Timeout(60)
class MigrationChecksumsTest {

    private static final Map<String, Integer> SHARED = Map.of(
            "2 fence column", -1409882223,
            "3 token high water mark", 1527320324,
            "4 store claim", -698866742);

    @Test
    void postgresMigrationsKeepTheirChecksums() {
        Map<String, Integer> postgres = expected(662622358);
        postgres.put("5 previous token", 1686097637); // PostgreSQL only: its one-statement guarded upsert
        assertThat(resolved(Dialect.POSTGRESQL)).isEqualTo(postgres);
    }

    @Test
    void mysqlMigrationsKeepTheirChecksums() {
        assertThat(resolved(Dialect.MYSQL)).isEqualTo(expected(-1206522574));
    }

    @Test
    void h2MigrationsKeepTheirChecksums() {
        Map<String, Integer> h2 = expected(-99257030);
        h2.put("6 keys compare as bytes", 1468027368); // H2 only: VARBINARY keys, as MySQL's V1 has
        assertThat(resolved(Dialect.H2)).isEqualTo(h2);
    }

    /** V1 differs per database; V2 to V4 are one file for all. */
    private static Map<String, Integer> expected(int v1) {
        Map<String, Integer> all = new TreeMap<>(SHARED);
        all.put("1 items and guard rows", v1);
        return all;
    }

    /** Version and description → checksum, as Flyway resolves them from {@code dialect}'s locations. */
    private static Map<String, Integer> resolved(Dialect dialect) {
        // Resolving reads the files only; an empty in-memory H2 stands in for the dialect's database.
        Flyway flyway = Flyway.configure()
                .dataSource("jdbc:h2:mem:" + UUID.randomUUID(), "sa", "")
                .locations(FencegateSchema.locations(dialect))
                .load();
        Map<String, Integer> out = new TreeMap<>();
        Arrays.stream(flyway.info().all()).forEach((MigrationInfo m) ->
                out.put(m.getVersion() + " " + m.getDescription(), m.getChecksum()));
        return out;
    }
}

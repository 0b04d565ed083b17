package io.fencegate.store.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The store contract on the real PostgreSQL at 127.0.0.1:5432, in a schema of its own. */
class PostgresJdbcGuardedStoreIT extends AbstractJdbcContractIT {
    @Override
    TestDatabase.Kind kind() {
        return TestDatabase.Kind.POSTGRES;
    }

    /**
     * PostgreSQL's key columns stay text: they use the database's default collation, which is always
     * deterministic (CREATE DATABASE cannot declare it otherwise), so keys that differ in any byte
     * (case, accents, normalisation) are unequal ("Stock" and "stock" are two items under two
     * locks, as the contract's key test shows). Only an explicit COLLATE on the column could change
     * that, and the migrations set none.
     */
    @Test
    void keyColumnsCompareDeterministically() throws Exception {
        try (Connection c = db.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT a.attrelid::regclass::text, co.collname, co.collisdeterministic"
                     + " FROM pg_attribute a JOIN pg_collation co ON co.oid = a.attcollation"
                     + " WHERE a.attrelid IN ('fencegate_item'::regclass, 'fencegate_fence'::regclass)"
                     + " AND a.attname = 'resource'")) {
            List<String> columns = new ArrayList<>();
            while (rs.next()) {
                assertThat(rs.getBoolean(3)).as("collation %s of %s.resource is deterministic", rs.getString(2), rs.getString(1))
                        .isTrue();
                columns.add(rs.getString(1) + ":" + rs.getString(2));
            }
            assertThat(columns).hasSize(2).allSatisfy(column -> assertThat(column).endsWith(":default"));
        }
    }
}

package io.fencegate.spring.boot;

import io.fencegate.schema.FencegateSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.ClassUtils;

/** fencegate's Flyway migrations on the application's DataSource, when fencegate-schema is present. */
final class SchemaMigration {
    static final String SCHEMA_PROPERTY = "fencegate.jdbc.schema";

    private SchemaMigration() { }

    /**
     * Idempotent: an up-to-date schema is left as it is (fencegate keeps its own history table).
     * {@code schema} null: the DataSource's default schema.
     */
    static void migrate(DataSource dataSource, String schema) {
        checkName(schema);
        if (ClassUtils.isPresent("io.fencegate.schema.FencegateSchema", SchemaMigration.class.getClassLoader())) {
            try {
                Apply.migrate(dataSource, schema);
            } catch (IllegalArgumentException e) {
                throw PropertyChecks.invalid(SCHEMA_PROPERTY, schema, e);
            }
        }
        checkOnSearchPath(dataSource, schema);
    }

    /** Schema names reach SQL through Flyway: plain lower-case identifiers only. */
    static void checkName(String schema) {
        if (schema != null && !schema.matches("[a-z_][a-z0-9_]{0,62}")) {
            throw new InvalidConfigurationPropertyValueException(SCHEMA_PROPERTY, schema,
                    "must be a plain lower-case schema name (a-z, 0-9, '_', at most 63)");
        }
    }

    /**
     * fencegate's statements name their tables unqualified, so a schema of their own works only
     * when the connections search it: refuse to start rather than fail at the first lease.
     */
    static void checkOnSearchPath(DataSource dataSource, String schema) {
        if (schema == null) {
            return;
        }
        try (Connection connection = dataSource.getConnection();
                PreparedStatement statement = connection.prepareStatement(
                        "SELECT ? = ANY (current_schemas(false)), current_setting('search_path')")) {
            statement.setString(1, schema);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                if (!row.getBoolean(1)) {
                    throw new InvalidConfigurationPropertyValueException(SCHEMA_PROPERTY, schema,
                            "the DataSource's connections do not search it (search_path " + row.getString(2)
                                    + "): add it to the URL, e.g. jdbc:postgresql://host/db?currentSchema=public," + schema);
                }
            }
        } catch (SQLException e) {
            throw new InvalidConfigurationPropertyValueException(SCHEMA_PROPERTY, schema,
                    "a schema of fencegate's own needs PostgreSQL; reading the search path failed: " + e.getMessage());
        }
    }

    /** Loaded only once the schema module is known to be there. */
    private static final class Apply {
        static void migrate(DataSource dataSource, String schema) {
            FencegateSchema.migrate(dataSource, schema);
        }
    }
}

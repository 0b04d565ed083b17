package io.fencegate.spring.boot;

import io.fencegate.schema.FencegateSchema;
import javax.sql.DataSource;
import org.springframework.util.ClassUtils;

/** fencegate's Flyway migrations on the application's DataSource, when fencegate-schema is present. */
final class SchemaMigration {
    private SchemaMigration() { }

    /** Idempotent: an up-to-date schema is left as it is (fencegate keeps its own history table). */
    static void migrate(DataSource dataSource) {
        if (ClassUtils.isPresent("io.fencegate.schema.FencegateSchema", SchemaMigration.class.getClassLoader())) {
            Apply.migrate(dataSource);
        }
    }

    /** Loaded only once the schema module is known to be there. */
    private static final class Apply {
        static void migrate(DataSource dataSource) {
            FencegateSchema.migrate(dataSource);
        }
    }
}

package io.fencegate.store.sql;

import io.fencegate.store.NamedSql;
import io.fencegate.store.spi.InvalidSettingException;
import io.fencegate.store.spi.Settings;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The settings keys both SQL store types ({@code jdbc}, {@code postgres}) share: pool size, query
 * timeout and named statements.
 */
public final class SqlSettings {
    private SqlSettings() {}

    public static void validate(Integer poolSize, String queryTimeout, Map<String, String> statements) {
        Settings.duration("queryTimeout", queryTimeout, null);
        if (poolSize != null && (poolSize < 1 || poolSize > 1000)) {
            throw new InvalidSettingException("poolSize", "must be 1..1000, was " + poolSize);
        }
        statements.forEach((name, sql) -> {
            try {
                NamedSql.parse(sql);
            } catch (IllegalArgumentException e) {
                throw new InvalidSettingException("statements." + name, e.getMessage());
            }
        });
    }

    /** A config's statements, never null, in config order. */
    public static Map<String, String> copy(Map<String, String> statements) {
        return statements == null ? Map.of() : new LinkedHashMap<>(statements);
    }
}

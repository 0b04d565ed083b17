package io.fencegate.store.postgres.provider;

import io.fencegate.store.spi.InvalidSettingException;
import io.fencegate.store.spi.StoreSettings;
import io.fencegate.store.sql.SqlSettings;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code type: postgres}: the reactive Postgres store on the gateway's event loops. Defaults:
 * {@code host} 127.0.0.1, {@code port} 5432, {@code database} postgres; {@code schema} must exist.
 */
public record PostgresStoreSettings(
        String host, Integer port, String database, String schema, String user, String password,
        Integer poolSize, String queryTimeout, String rule, String lock, Map<String, String> statements)
        implements StoreSettings {
    private static final Pattern SQL_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    public PostgresStoreSettings {
        statements = SqlSettings.copy(statements);
    }

    @Override
    public void validate() {
        StoreSettings.super.validate();
        if (port != null && (port < 1 || port > 65535)) {
            throw new InvalidSettingException("port", "must be 1..65535, was " + port);
        }
        if (schema != null && !SQL_NAME.matcher(schema).matches()) {
            throw new InvalidSettingException("schema", "a schema name is 1-63 of a-z 0-9 _, starting with a letter or _");
        }
        SqlSettings.validate(poolSize, queryTimeout, statements);
    }
}

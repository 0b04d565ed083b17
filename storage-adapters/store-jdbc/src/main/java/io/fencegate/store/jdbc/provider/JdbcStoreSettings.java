package io.fencegate.store.jdbc.provider;

import io.fencegate.spi.ExclusivePath;
import io.fencegate.store.spi.InvalidSettingException;
import io.fencegate.store.spi.Settings;
import io.fencegate.store.spi.StoreSettings;
import io.fencegate.store.sql.SqlSettings;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code type: jdbc}: a HikariCP pool on MariaDB/MySQL, Postgres or H2, chosen by {@code url}
 * (the port goes in the url). fencegate's tables are migrated at open; {@code schema} (PostgreSQL
 * only, must exist) puts them in that schema.
 */
public record JdbcStoreSettings(
        String url, String user, String password, Integer poolSize, String queryTimeout,
        String rule, String lock, Map<String, String> statements, String schema) implements StoreSettings {
    private static final Pattern SQL_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    public JdbcStoreSettings {
        statements = SqlSettings.copy(statements);
    }

    /** Without a schema: the connections' default. */
    public JdbcStoreSettings(String url, String user, String password, Integer poolSize, String queryTimeout,
            String rule, String lock, Map<String, String> statements) {
        this(url, user, password, poolSize, queryTimeout, rule, lock, statements, null);
    }

    /**
     * The URL the pool connects with: {@code url}, pinned to {@code schema} (PostgreSQL's
     * {@code currentSchema}) when one is set, so fencegate's tables and the store's claim are there.
     */
    public String connectUrl() {
        if (schema == null) {
            return url;
        }
        return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    /**
     * An H2 file database opened in this process: H2's own file lock would refuse a second
     * gateway only once it opens the store, after its issuer has already started.
     */
    @Override
    public List<ExclusivePath> exclusivePaths() {
        // H2 locks its .mv.db while it has it open: checked too, as it cannot be deleted without the data.
        return H2Files.localDatabase(url)
                .map(p -> ExclusivePath.file("url", "H2 database", p, p.getFileName() + ".mv.db"))
                .stream().toList();
    }

    @Override
    public void validate() {
        StoreSettings.super.validate();
        Settings.required("url", url);
        if (!url.startsWith("jdbc:")) {
            throw new InvalidSettingException("url",
                    "expected a JDBC URL (jdbc:mariadb:, jdbc:mysql:, jdbc:postgresql:, jdbc:h2:), got '" + url + "'");
        }
        if (schema != null) {
            if (!SQL_NAME.matcher(schema).matches()) {
                throw new InvalidSettingException("schema", "a schema name is 1-63 of a-z 0-9 _, starting with a letter or _");
            }
            if (!url.startsWith("jdbc:postgresql:")) {
                throw new InvalidSettingException("schema", "a schema of the store's own is supported on PostgreSQL only;"
                        + " MariaDB/MySQL: name another database in url");
            }
            if (url.toLowerCase(Locale.ROOT).contains("currentschema=")) {
                throw new InvalidSettingException("schema", "the url names currentSchema too: set one of them");
            }
        }
        SqlSettings.validate(poolSize, queryTimeout, statements);
    }
}

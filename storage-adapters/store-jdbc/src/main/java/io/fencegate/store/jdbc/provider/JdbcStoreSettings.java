package io.fencegate.store.jdbc.provider;

import io.fencegate.spi.ExclusivePath;
import io.fencegate.store.spi.InvalidSettingException;
import io.fencegate.store.spi.Settings;
import io.fencegate.store.spi.StoreSettings;
import io.fencegate.store.sql.SqlSettings;
import java.util.List;
import java.util.Map;

/**
 * {@code type: jdbc}: a HikariCP pool on MariaDB/MySQL, Postgres or H2, chosen by {@code url}
 * (the port goes in the url). fencegate's tables are migrated at open.
 */
public record JdbcStoreSettings(
        String url, String user, String password, Integer poolSize, String queryTimeout,
        String rule, String lock, Map<String, String> statements) implements StoreSettings {

    public JdbcStoreSettings {
        statements = SqlSettings.copy(statements);
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
        SqlSettings.validate(poolSize, queryTimeout, statements);
    }
}

package io.fencegate.spring.boot;

import static io.fencegate.spring.boot.PropertyChecks.positive;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.backend.InstanceNames;
import io.fencegate.issuer.sql.SqlLeaseIssuer;
import io.fencegate.issuer.sql.SqlLeaseIssuerBuilder;
import java.time.Duration;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * {@code fencegate.issuer.backend=sql}: leases from the application's own database (its single
 * DataSource), or from a pool of the issuer's own when {@code fencegate.issuer.sql.jdbc-url} is set.
 * Every setting is checked here first, so a wrong one names its property rather than the builder's.
 */
final class SqlIssuerBackend implements LeaseIssuerBackend {
    private static final String PREFIX = "fencegate.issuer.sql.";
    private final FencegateProperties.Sql settings;
    private final String schema;
    private final Supplier<DataSource> applicationDataSource;

    /** {@code schema}: fencegate.jdbc.schema, honoured on the application's DataSource only. */
    SqlIssuerBackend(FencegateProperties.Sql settings, String schema, Supplier<DataSource> applicationDataSource) {
        this.settings = settings;
        this.schema = schema;
        this.applicationDataSource = applicationDataSource;
    }

    @Override
    public String name() {
        return "sql";
    }

    @Override
    public LeaseIssuer open() {
        SqlLeaseIssuerBuilder builder = SqlLeaseIssuer.builder()
                .poolSize(poolSize())
                .statementTimeout(wholeSeconds(PREFIX + "statement-timeout", settings.getStatementTimeout()))
                .grantRetention(positive(PREFIX + "grant-retention", settings.getGrantRetention()))
                .notifications(settings.isNotifications())
                .migrate(settings.isMigrate());
        if (settings.getInstanceName() != null) {
            try {
                InstanceNames.check(settings.getInstanceName());
            } catch (IllegalArgumentException e) {
                throw PropertyChecks.invalid(PREFIX + "instance-name", settings.getInstanceName(), e);
            }
            builder.instanceName(settings.getInstanceName());
        }
        String url = settings.getJdbcUrl();
        if (url == null) {
            DataSource dataSource = applicationDataSource.get();
            if (dataSource == null) {
                throw new InvalidConfigurationPropertyValueException(PREFIX + "jdbc-url", null,
                        "required when the application has no single DataSource (unset, the sql issuer uses the application's)");
            }
            SchemaMigration.checkName(schema);
            builder.dataSource(dataSource).schema(schema);
        } else {
            if (!url.startsWith("jdbc:")) {
                throw new InvalidConfigurationPropertyValueException(PREFIX + "jdbc-url", url, "must be a JDBC URL (jdbc:...)");
            }
            builder.jdbcUrl(url).user(settings.getUsername()).password(settings.getPassword())
                    .connectTimeout(positive(PREFIX + "connect-timeout", settings.getConnectTimeout()));
        }
        try {
            LeaseIssuer issuer = builder.build();
            if (url == null) {
                try {
                    SchemaMigration.checkOnSearchPath(applicationDataSource.get(), schema);
                } catch (RuntimeException e) {
                    issuer.close();
                    throw e;
                }
            }
            return issuer;
        } catch (IllegalArgumentException e) {
            if (schema != null && String.valueOf(e.getMessage()).contains("schema")) {
                throw PropertyChecks.invalid(SchemaMigration.SCHEMA_PROPERTY, schema, e);
            }
            // What is left for build() to refuse is the database itself (e.g. connections not in auto-commit).
            throw PropertyChecks.invalid(PREFIX + "jdbc-url", url == null ? "(the application's DataSource)" : url, e);
        }
    }

    private int poolSize() {
        int size = settings.getPoolSize();
        if (size < 2 || size > 200) {
            throw new InvalidConfigurationPropertyValueException(PREFIX + "pool-size", size, "must be from 2 to 200");
        }
        return size;
    }

    /** The issuer bounds statements in whole seconds: a fraction would be cut off without a word. */
    private static Duration wholeSeconds(String property, Duration value) {
        positive(property, value);
        if (value.toMillis() % 1000 != 0) {
            throw new InvalidConfigurationPropertyValueException(property, value, "must be whole seconds (at least 1s)");
        }
        return value;
    }
}

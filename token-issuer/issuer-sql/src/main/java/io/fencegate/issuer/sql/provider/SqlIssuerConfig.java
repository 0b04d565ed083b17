package io.fencegate.issuer.sql.provider;

import io.fencegate.issuer.spi.IssuerSettings;
import io.fencegate.issuer.spi.OpenedIssuer;
import io.fencegate.issuer.sql.SqlLeaseIssuer;
import io.fencegate.spi.ConnectFailure;
import io.fencegate.spi.InvalidSettingException;
import io.fencegate.spi.LoginRefusal;
import io.fencegate.spi.Settings;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * {@code type: sql}: leases from PostgreSQL, MariaDB/MySQL or H2 alone ({@code url}, {@code user},
 * {@code password}). {@code notifications: false} turns PostgreSQL's LISTEN off (behind pgbouncer
 * in transaction mode); {@code statementTimeout} bounds each statement (default 5s).
 * {@code schema} (PostgreSQL only) puts the issuer's tables in a schema of their own, created if
 * needed, and pins every connection to it ({@code currentSchema}), so deployments on one database,
 * one schema each, never share a lock.
 */
public record SqlIssuerConfig(String url, String user, String password, String notifications, String statementTimeout,
        String schema) implements IssuerSettings {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final String PREFIX = "SQL lease issuer: ";
    private static final Pattern SQL_NAME = Pattern.compile("[a-z_][a-z0-9_]{0,62}");

    /** Without a schema: the connections' default. */
    public SqlIssuerConfig(String url, String user, String password, String notifications, String statementTimeout) {
        this(url, user, password, notifications, statementTimeout, null);
    }

    @Override
    public void validate() {
        Settings.required("url", url);
        if (!url.startsWith("jdbc:")) {
            throw new InvalidSettingException("url", "expected a JDBC URL, got '" + url + "'");
        }
        notificationsOn();
        if (schema != null) {
            if (!SQL_NAME.matcher(schema).matches()) {
                throw new InvalidSettingException("schema", "a schema name is 1-63 of a-z 0-9 _, starting with a letter or _,"
                        + " got '" + schema + "'");
            }
            if (!url.startsWith("jdbc:postgresql:")) {
                throw new InvalidSettingException("schema", "a schema of the issuer's own is supported on PostgreSQL only;"
                        + " MariaDB/MySQL: name another database in url");
            }
            if (url.toLowerCase(Locale.ROOT).contains("currentschema=")) {
                throw new InvalidSettingException("schema", "the url names currentSchema too: set one of them");
            }
        }
        Duration timeout = Settings.duration("statementTimeout", statementTimeout, Duration.ofSeconds(5));
        if (timeout.toSeconds() < 1) {
            throw new InvalidSettingException("statementTimeout", "must be at least 1s, got '" + statementTimeout + "'");
        }
    }

    private boolean notificationsOn() {
        if (notifications == null) {
            return true;
        }
        return switch (notifications.toLowerCase(Locale.ROOT)) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new InvalidSettingException("notifications", "expected true or false, got '" + notifications + "'");
        };
    }

    /**
     * The issuer on {@code url}; it owns its connections. One connection is tried first, so a
     * refused login fails the start at once, naming the key to fix ({@link LoginRefusal}), and
     * "cannot reach" is said only when nothing answered.
     */
    OpenedIssuer open() {
        try {
            LoginRefusal.probe(connectUrl(), user, password, CONNECT_TIMEOUT);
        } catch (SQLException e) {
            throw failure(e);
        }
        SqlLeaseIssuer issuer;
        try {
            issuer = SqlLeaseIssuer.builder().jdbcUrl(connectUrl()).user(user).password(password).schema(schema)
                    .notifications(notificationsOn())
                    .statementTimeout(Settings.duration("statementTimeout", statementTimeout, Duration.ofSeconds(5)))
                    .connectTimeout(CONNECT_TIMEOUT)
                    .build();
        } catch (InvalidSettingException e) {
            throw e;
        } catch (RuntimeException e) {
            throw failure(e);
        }
        return new OpenedIssuer(issuer, "SQL " + redacted() + (schema == null ? "" : " schema " + schema));
    }

    /** Why the issuer did not open, under the key to fix. */
    private InvalidSettingException failure(Exception e) {
        Optional<LoginRefusal> refusal = LoginRefusal.of(e, url, user);
        if (refusal.isPresent()) {
            return refusal.get().at("user", "password", "url", e);
        }
        Optional<String> unreachable = ConnectFailure.reason(e);
        if (unreachable.isPresent()) {
            return new InvalidSettingException("url", "cannot reach the database at "
                    + LoginRefusal.address(url).orElse(redacted()) + " (" + unreachable.get() + ")", e);
        }
        String message = String.valueOf(e.getMessage());
        // The builder's own words on where the tables are (SqlIssuerPlace) already say what to do.
        String problem = message.startsWith(PREFIX) ? message.substring(PREFIX.length())
                : "cannot open the issuer on " + redacted() + ": " + message;
        return new InvalidSettingException("url", problem, e);
    }

    /**
     * {@code url}, pinned to {@code schema} when one is set: a pinned connection resolves the
     * issuer's tables there whoever connects, so the place check ({@code SqlIssuerPlace}) lets
     * each deployment of a database keep its own set.
     */
    private String connectUrl() {
        if (schema == null) {
            return url;
        }
        return url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
    }

    private String redacted() {
        return url.replaceAll("(?i)(password=)[^&;]*", "$1***");
    }
}

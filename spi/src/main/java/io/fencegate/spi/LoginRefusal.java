package io.fencegate.spi;

import java.net.URI;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Optional;

/**
 * A database that answered and refused: no such role, a wrong password, no such database, or a
 * permission the user lacks. Each names the setting to fix, so a start-up message leads with it
 * ({@code stores.orders.user: PostgreSQL at 127.0.0.1:5432 has no role app}) instead of saying
 * "cannot reach", which is for a server nothing answered for ({@link ConnectFailure}). Read from
 * the SQLState and vendor code of the first {@link SQLException} in a failure's causes: the
 * drivers of PostgreSQL, MariaDB/MySQL and H2 each report these their own way.
 *
 * @param setting which setting to fix: {@link #USER}, {@link #PASSWORD} or {@link #DATABASE}
 * @param problem the sentence after the key, naming the server and what it refused
 */
public record LoginRefusal(String setting, String problem) {
    /** The login's user (a missing role, a permission it lacks). */
    public static final String USER = "user";
    /** The login's password (refused). */
    public static final String PASSWORD = "password";
    /** The database the URL (or the {@code database} key) names (missing). */
    public static final String DATABASE = "database";

    /**
     * What {@code failure} says the server refused, if it is a refusal; {@code url} is the JDBC
     * URL as configured (for the server's name and address), {@code user} the login's user.
     */
    public static Optional<LoginRefusal> of(Throwable failure, String url, String user) {
        SQLException sql = firstSqlException(failure);
        if (sql == null) {
            return Optional.empty();
        }
        String state = String.valueOf(sql.getSQLState());
        String said = serverSaid(sql);
        String server = server(url);
        String who = user == null || user.isEmpty() ? "(no user)" : user;
        if (url.startsWith("jdbc:postgresql:")) {
            return postgres(state, said, server, who);
        }
        if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            return mysql(sql.getErrorCode(), said, server, who);
        }
        if (url.startsWith("jdbc:h2:")) {
            return h2(sql.getErrorCode(), said, url, who);
        }
        return Optional.empty();
    }

    /**
     * This refusal as a bad setting of a backend whose user, password and database are set by the
     * keys given (e.g. {@code user}, {@code password}, {@code url}).
     */
    public InvalidSettingException at(String userKey, String passwordKey, String databaseKey, Throwable cause) {
        String key = switch (setting) {
            case USER -> userKey;
            case PASSWORD -> passwordKey;
            default -> databaseKey;
        };
        return new InvalidSettingException(key, problem, cause);
    }

    /**
     * Opens and closes one connection to {@code url}, so a refusal shows at once: a pool retries a
     * refused login for its whole start-up timeout. Bounded by {@code timeout} where the driver
     * takes one (PostgreSQL, MariaDB/MySQL; H2 opens a local file).
     */
    public static void probe(String url, String user, String password, java.time.Duration timeout) throws SQLException {
        java.util.Properties props = new java.util.Properties();
        if (user != null) {
            props.setProperty("user", user);
        }
        props.setProperty("password", password == null ? "" : password);
        long seconds = Math.max(1, timeout.toSeconds());
        if (url.startsWith("jdbc:postgresql:")) {
            props.setProperty("connectTimeout", Long.toString(seconds));
            props.setProperty("loginTimeout", Long.toString(seconds));
        } else if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            props.setProperty("connectTimeout", Long.toString(seconds * 1000));
        }
        java.sql.DriverManager.getConnection(url, props).close();
    }

    private static Optional<LoginRefusal> postgres(String state, String said, String server, String who) {
        return switch (state) {
            case "28P01" -> refused(PASSWORD, server + " refused the password of role " + who + " (" + said
                    + "): fix password, or the role's password on the server");
            case "28000" -> said.contains("does not exist")
                    ? refused(USER, server + " has no role " + who + " (" + said + "): create it (CREATE ROLE " + who
                            + " LOGIN) or fix user")
                    : refused(USER, server + " refused role " + who + " (" + said + "): allow it in pg_hba.conf or fix user");
            case "3D000" -> refused(DATABASE, server + " has no database " + quoted(said) + " (" + said
                    + "): create it (CREATE DATABASE " + quoted(said) + ") or fix the name");
            case "42501" -> refused(USER, server + " refused " + who + " a permission (" + said + "): grant it, e.g."
                    + " GRANT CREATE ON SCHEMA <schema> TO " + who + " for fencegate's tables, or connect as a role that has it");
            default -> Optional.empty();
        };
    }

    private static Optional<LoginRefusal> mysql(int code, String said, String server, String who) {
        return switch (code) {
            // MariaDB/MySQL answer a missing user and a wrong password alike, on purpose.
            case 1045 -> refused(PASSWORD, server + " refused user " + who + " (access denied: a wrong password, or no"
                    + " such user from this host; the server does not say which): " + said);
            case 1049 -> refused(DATABASE, server + " has no database " + quoted(said) + " (" + said
                    + "): create it (CREATE DATABASE " + quoted(said) + ") or fix the name");
            case 1044, 1142, 1143, 1227 -> refused(USER, server + " refused " + who + " a permission (" + said
                    + "): grant it, e.g. GRANT ALL ON <database>.* TO " + who + ", or connect as a user that has it");
            default -> Optional.empty();
        };
    }

    private static Optional<LoginRefusal> h2(int code, String said, String url, String who) {
        return switch (code) {
            case 28000 -> refused(PASSWORD, "H2 refused user " + who + " (" + said.toLowerCase(Locale.ROOT)
                    + "): fix user and password, as the database was created with");
            // DATABASE_NOT_FOUND_1, DATABASE_NOT_FOUND_WITH_IF_EXISTS_1
            case 90013, 90146 -> refused(DATABASE, "H2 has no database at " + h2Path(url) + " (" + said
                    + "): create it, or drop IFEXISTS=TRUE from the URL");
            default -> Optional.empty();
        };
    }

    private static Optional<LoginRefusal> refused(String setting, String problem) {
        return Optional.of(new LoginRefusal(setting, problem));
    }

    private static SQLException firstSqlException(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof SQLException e) {
                // A driver may wrap the server's error in one of its own with the same message: the innermost has the state.
                SQLException inner = e;
                while (inner.getCause() instanceof SQLException next) {
                    inner = next;
                }
                return inner.getSQLState() != null ? inner : e;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    /** The server's own words: the first line, without "FATAL: ", "(conn=18) " or H2's "[28000-232]". */
    private static String serverSaid(SQLException e) {
        String m = String.valueOf(e.getMessage()).lines().findFirst().orElse("").strip();
        m = m.replaceFirst("^(FATAL|ERROR):\\s*", "").replaceFirst("^\\(conn=\\d+\\)\\s*", "")
                .replaceFirst("\\s*\\[\\d+-\\d+\\]$", "");
        return m;
    }

    /** The first quoted name in the server's words: the database it has not. */
    private static String quoted(String said) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("[\"']([^\"']+)[\"']").matcher(said);
        return m.find() ? m.group(1) : "<name>";
    }

    /** {@code PostgreSQL at host:port}, {@code MariaDB/MySQL at host:port}, from the URL as configured. */
    static String server(String url) {
        String kind = url.startsWith("jdbc:postgresql:") ? "PostgreSQL"
                : url.startsWith("jdbc:h2:") ? "H2" : "MariaDB/MySQL";
        Optional<String> address = address(url);
        return address.map(a -> kind + " at " + a).orElse(kind);
    }

    /** {@code host:port} of a network JDBC URL (default ports filled in), if it has one. */
    public static Optional<String> address(String url) {
        if (!url.startsWith("jdbc:") || url.startsWith("jdbc:h2:")) {
            return Optional.empty();
        }
        try {
            URI uri = new URI(url.substring("jdbc:".length()));
            if (uri.getHost() == null) {
                return Optional.empty();
            }
            int port = uri.getPort() > 0 ? uri.getPort() : url.startsWith("jdbc:postgresql:") ? 5432 : 3306;
            return Optional.of(uri.getHost() + ":" + port);
        } catch (java.net.URISyntaxException e) {
            return Optional.empty();
        }
    }

    private static String h2Path(String url) {
        String rest = url.substring("jdbc:h2:".length());
        rest = rest.startsWith("file:") ? rest.substring("file:".length()) : rest;
        int semicolon = rest.indexOf(';');
        return semicolon >= 0 ? rest.substring(0, semicolon) : rest;
    }
}

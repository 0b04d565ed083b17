package io.fencegate.store.jdbc.provider;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The local database an H2 JDBC URL opens in this process, if any: {@code jdbc:h2:file:/d/main},
 * {@code jdbc:h2:/d/main}, {@code jdbc:h2:./main}, {@code jdbc:h2:~/main} name the base name
 * {@code /d/main} (H2 adds {@code .mv.db}). In memory, over TCP/SSL, another file system prefix
 * ({@code zip:}, {@code nio:}, …) or {@code AUTO_SERVER=TRUE} (H2 then serves other processes
 * itself, so they share it by design) is not a database this gateway has to itself.
 */
final class H2Files {
    private static final String PREFIX = "jdbc:h2:";
    /** {@code mem:}, {@code tcp:}, {@code nio:}… but not a Windows drive letter ({@code C:}). */
    private static final Pattern OTHER_SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9]+:.*");
    private static final Pattern AUTO_SERVER = Pattern.compile(";\\s*AUTO_SERVER\\s*=\\s*TRUE\\b");

    private H2Files() {}

    static Optional<Path> localDatabase(String url) {
        if (url == null || !url.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return Optional.empty();
        }
        String rest = url.substring(PREFIX.length());
        int options = rest.indexOf(';');
        if (options >= 0 && AUTO_SERVER.matcher(rest.substring(options).toUpperCase(Locale.ROOT)).find()) {
            return Optional.empty();
        }
        String name = options >= 0 ? rest.substring(0, options) : rest;
        if (name.regionMatches(true, 0, "file:", 0, 5)) {
            name = name.substring(5);
        } else if (OTHER_SCHEME.matcher(name).matches()) {
            return Optional.empty();
        }
        if (name.isBlank()) {
            return Optional.empty();
        }
        if (name.equals("~") || name.startsWith("~/") || name.startsWith("~\\")) {
            name = System.getProperty("user.home") + name.substring(1);
        }
        return Optional.of(Path.of(name).toAbsolutePath().normalize());
    }
}

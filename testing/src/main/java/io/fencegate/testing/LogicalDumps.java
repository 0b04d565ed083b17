package io.fencegate.testing;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Logical backups of a {@link PostgresServer}'s schema or a {@link MariaDbServer}'s database, taken
 * and restored with the server's own tools, as an operator does: {@code pg_dump --clean} and
 * {@code psql}, or {@code mysqldump} and {@code mysql}. A restore puts the dumped tables back as
 * they were, whatever happened to them since, in one transaction: gateways may run through it, and a
 * restore that is not atomic lets them write into a half-restored table (pg_dump adds a table's
 * primary key after its rows, so a gateway's insert in between broke the key and failed the restore).
 * On PostgreSQL {@code psql --single-transaction} replays the whole {@code --clean} dump in one
 * transaction. MariaDB commits every DDL statement, so its dump holds the rows alone, replayed after a
 * {@code DELETE} of each table in one InnoDB transaction.
 */
public final class LogicalDumps {
    private static final long TOOL_SECONDS = 60;

    private LogicalDumps() { }

    /** Dumps {@code tables} (all of the schema or database when empty) into {@code file}. */
    public static void dump(DatabaseServer server, Path file, List<String> tables) throws Exception {
        String port = Integer.toString(server.port());
        List<String> cmd = new ArrayList<>();
        if (server instanceof PostgresServer) {
            cmd.addAll(List.of("pg_dump", "-h", "127.0.0.1", "-p", port, "-U", "postgres", "-d", "postgres",
                    "--clean", "--if-exists", "-f", file.toString()));
            if (tables.isEmpty()) {
                cmd.addAll(List.of("-n", PostgresServer.SCHEMA));
            }
            tables.forEach(t -> cmd.addAll(List.of("-t", PostgresServer.SCHEMA + "." + t)));
        } else {
            List<String> names = tables.isEmpty() ? tablesOf(port) : tables;
            Path rows = Files.createTempFile("fg-dump", ".sql");
            try {
                cmd.addAll(List.of("mysqldump", "-h", "127.0.0.1", "-P", port, "-u", "root", "--result-file=" + rows,
                        "--no-create-info", "--skip-add-locks", "--skip-disable-keys", "--single-transaction", "--hex-blob",
                        MariaDbServer.DATABASE));
                cmd.addAll(names);
                run(cmd, null);
                // Bytes, not text: a dump is in the server's encoding, whatever this JVM's is.
                StringBuilder deletes = new StringBuilder("START TRANSACTION;\n");
                names.forEach(t -> deletes.append("DELETE FROM `").append(t).append("`;\n"));
                try (var out = Files.newOutputStream(file)) {
                    out.write(deletes.toString().getBytes(StandardCharsets.UTF_8));
                    out.write(Files.readAllBytes(rows));
                    out.write("\nCOMMIT;\n".getBytes(StandardCharsets.UTF_8));
                }
            } finally {
                Files.deleteIfExists(rows);
            }
            return;
        }
        run(cmd, null);
    }

    /** Every table of the MariaDB server's database. */
    private static List<String> tablesOf(String port) throws Exception {
        Path out = Files.createTempFile("fg-tables", ".txt");
        try {
            ProcessBuilder b = new ProcessBuilder("mysql", "-h", "127.0.0.1", "-P", port, "-u", "root", "-N", "-B",
                    "-e", "SHOW FULL TABLES WHERE Table_type = 'BASE TABLE'", MariaDbServer.DATABASE)
                    .redirectErrorStream(true).redirectOutput(out.toFile());
            Process p = b.start();
            if (!p.waitFor(TOOL_SECONDS, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("SHOW TABLES failed:\n" + Files.readString(out));
            }
            return Files.readAllLines(out).stream().filter(l -> !l.isBlank()).map(l -> l.split("\t")[0]).toList();
        } finally {
            Files.deleteIfExists(out);
        }
    }

    /** Restores a file {@link #dump} wrote. */
    public static void restore(DatabaseServer server, Path file) throws Exception {
        String port = Integer.toString(server.port());
        if (server instanceof PostgresServer) {
            run(List.of("psql", "-q", "-h", "127.0.0.1", "-p", port, "-U", "postgres", "-d", "postgres",
                    "-v", "ON_ERROR_STOP=1", "--single-transaction", "-f", file.toString()), null);
        } else {
            run(List.of("mysql", "-h", "127.0.0.1", "-P", port, "-u", "root", MariaDbServer.DATABASE), file);
        }
    }

    private static void run(List<String> cmd, Path input) throws Exception {
        ProcessBuilder b = new ProcessBuilder(cmd).redirectErrorStream(true);
        if (input != null) {
            b.redirectInput(input.toFile());
        }
        Path out = Files.createTempFile("fg-dump", ".out");
        b.redirectOutput(out.toFile());
        Process p = b.start();
        try {
            if (!p.waitFor(TOOL_SECONDS, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd) + " failed:\n" + Files.readString(out));
            }
        } finally {
            p.destroyForcibly();
            Files.deleteIfExists(out);
        }
    }
}

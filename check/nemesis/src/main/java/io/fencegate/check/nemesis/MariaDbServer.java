package io.fencegate.check.nemesis;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;

/**
 * A MariaDB server of the harness's own: {@code mariadb-install-db} into the run's folder,
 * {@code mariadbd} as the {@code mysql} user on loopback, the system's my.cnf ignored (it names the
 * shared server's port, socket and log). Its socket sits in a short folder under /tmp (a socket path
 * has a length limit the run folder may pass). A crash is kill -9 of mariadbd: InnoDB recovers from
 * its redo log, and with {@code innodb_flush_log_at_trx_commit=1} every committed write comes back.
 */
final class MariaDbServer implements DatabaseServer {
    static final String DATABASE = "fencegate";
    private static final int BIND_TRIES = 5;

    private final Path dir;
    private final Path data;
    private final Path socketDir;
    private int port;
    private ChildProcess process;

    private MariaDbServer(Path dir, Path socketDir) {
        this.dir = dir;
        this.data = dir.resolve("data");
        this.socketDir = socketDir;
    }

    static MariaDbServer start(Path dir) throws Exception {
        Files.createDirectories(dir);
        MariaDbServer m = new MariaDbServer(dir, Files.createTempDirectory(Path.of("/tmp"), "fg-mariadb"));
        try {
            DatabaseServer.chown("mysql", dir);
            DatabaseServer.chown("mysql", m.socketDir);
            ChildProcess.run(180, List.of("mariadb-install-db", "--no-defaults", "--user=mysql", "--datadir=" + m.data,
                    "--auth-root-authentication-method=normal", "--skip-test-db"));
            for (int attempt = 1; ; attempt++) {
                m.port = ChildProcess.freePort();
                m.process = null; // a new command line: the new port
                try {
                    m.launch();
                    break;
                } catch (IllegalStateException e) {
                    if (attempt == BIND_TRIES || m.process == null || !m.process.bindFailed()) {
                        throw e;
                    }
                    System.err.println("nemesis: mariadb port " + m.port + " was taken; another");
                }
            }
            try (Connection c = DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + m.port + "/", "root", "");
                    Statement s = c.createStatement()) {
                s.execute("CREATE DATABASE " + DATABASE);
            }
            return m;
        } catch (Exception e) {
            m.close();
            throw e;
        }
    }

    private void launch() throws Exception {
        List<String> cmd = List.of("mariadbd", "--no-defaults", "--user=mysql", "--datadir=" + data, "--port=" + port,
                "--bind-address=127.0.0.1", "--socket=" + socketDir.resolve("s"), "--pid-file=" + dir.resolve("mariadbd.pid"),
                "--skip-name-resolve", "--innodb-buffer-pool-size=64M", "--innodb-flush-log-at-trx-commit=1",
                "--max-connections=80");
        if (process == null) {
            process = ChildProcess.start("mariadb", dir, cmd);
        } else {
            process.startAgain();
        }
        awaitConnectable("jdbc:mariadb://127.0.0.1:" + port + "/", () -> {
            if (!process.alive()) {
                throw new IllegalStateException("mariadbd on port " + port + " exited\n" + tail());
            }
        });
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public String user() {
        return "root";
    }

    @Override
    public String jdbcUrlVia(int port) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/" + DATABASE;
    }

    @Override
    public String crashAndRestart() throws Exception {
        process.kill9();
        long start = System.nanoTime();
        launch();
        return "mariadbd kill -9, restarted: accepting connections after " + (System.nanoTime() - start) / 1_000_000 + " ms";
    }

    @Override
    public String tail() {
        return process != null ? process.tail() : ChildProcess.tail("mariadb", dir.resolve("mariadb.log"));
    }

    @Override
    public synchronized void close() throws Exception {
        if (process != null) {
            process.kill9(); // its data is thrown away next: no need for a clean shutdown
        }
        DatabaseServer.deleteTree(data);
        DatabaseServer.deleteTree(socketDir);
    }
}

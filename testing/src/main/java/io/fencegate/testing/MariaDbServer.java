package io.fencegate.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * A MariaDB server of a test's own: {@code mariadb-install-db} into its folder, {@code mariadbd} as
 * the {@code mysql} user on loopback, the system's my.cnf ignored (it names the shared server's
 * port, socket and log), with one database, {@value #DATABASE}. Its socket sits in a short folder
 * under /tmp (a socket path has a length limit the folder may pass). A crash is kill -9 of mariadbd:
 * InnoDB recovers from its redo log, and with {@code innodb_flush_log_at_trx_commit=1} every
 * committed write comes back.
 */
public final class MariaDbServer extends DatabaseServer {
    public static final String DATABASE = "fencegate";

    private final Path data;
    private final Path socketDir;
    private final Map<String, String> serverEnv;
    private ChildProcess process;

    private MariaDbServer(Path dir, Path socketDir, Map<String, String> serverEnv) {
        super("mariadb", dir, "root", "/", "/" + DATABASE);
        this.data = dir.resolve("data");
        this.socketDir = socketDir;
        this.serverEnv = serverEnv;
    }

    public static MariaDbServer start(Path dir) throws Exception {
        return start(dir, Map.of());
    }

    /** A server whose process gets {@code serverEnv} too (e.g. libfaketime's variables: a server whose wall clock a test steps). */
    public static MariaDbServer start(Path dir, Map<String, String> serverEnv) throws Exception {
        // Absolute: mariadb-install-db runs from another directory, so a relative data dir (a
        // nemesis --out given as runs/x) would be taken from there and the install would fail.
        dir = dir.toAbsolutePath();
        Files.createDirectories(dir);
        return started(new MariaDbServer(dir, Files.createTempDirectory(Path.of("/tmp"), "fg-mariadb"), serverEnv),
                MariaDbServer::open);
    }

    private void open() throws Exception {
        // A temporary folder of its own: with the shared /tmp, two servers installed at the same
        // moment (two nemesis deployments at once) collided on a temporary table's file name.
        Files.createDirectories(tmp());
        Folders.chown("mysql", dir);
        Folders.chown("mysql", socketDir);
        ChildProcess.run(180, List.of("mariadb-install-db", "--no-defaults", "--user=mysql", "--datadir=" + data,
                "--tmpdir=" + tmp(), "--auth-root-authentication-method=normal", "--skip-test-db"));
        launchOnFreePort("CREATE DATABASE " + DATABASE);
    }

    private Path tmp() {
        return dir.resolve("tmp");
    }

    @Override
    protected void launch() throws Exception {
        if (process != null && process.alive()) {
            process.kill9(); // a start that failed half-way, on a port now abandoned
        }
        process = ChildProcess.command("mariadb", List.of("mariadbd", "--no-defaults", "--user=mysql", "--datadir=" + data,
                "--port=" + port(), "--bind-address=127.0.0.1", "--socket=" + socketDir.resolve("s"),
                "--pid-file=" + dir.resolve("mariadbd.pid"), "--tmpdir=" + tmp(), "--skip-name-resolve", "--innodb-buffer-pool-size=64M",
                "--innodb-flush-log-at-trx-commit=1", "--max-connections=80"))
                .env(serverEnv).logTo(dir.resolve("mariadb.log")).start();
        awaitConnectable(serverUrl(), () -> {
            if (!process.alive()) {
                throw new IllegalStateException("mariadbd on port " + port() + " exited\n" + tail());
            }
        });
    }

    @Override
    protected boolean bindFailed() {
        return process != null && process.bindFailed();
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
        if (process != null && process.alive()) {
            process.kill9(); // its data is thrown away next: no need for a clean shutdown
        }
        Folders.deleteTree(data);
        Folders.deleteTree(socketDir);
    }
}

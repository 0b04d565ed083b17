package io.fencegate.issuer.zookeeper.provider;

import io.fencegate.spi.ExclusivePath;
import io.fencegate.spi.LocalClaim;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ZooKeeper's own embedded server, standalone, on 127.0.0.1 and a free port, keeping its data
 * under a directory so tokens (zxids) keep growing across gateway restarts. For the embedded
 * default, and the one server the demo starts for a gateway on a config: one gateway, no ensemble.
 *
 * <p>The server claims its data directory itself ({@link LocalClaim}), whoever starts it: two
 * servers on one directory would each write snapshots and logs over the other's, and a restart
 * would then read a history that skips acknowledged transactions (tokens go back). A second start
 * on a claimed directory, in this process or another, throws
 * {@link io.fencegate.spi.ClaimRefusedException} naming the directory and its holder, before it
 * has touched the directory. A server whose claim is lost (another process's lock file found in
 * its place) stops at once, so its issuer fails closed.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(EmbeddedZooKeeper.class);

    private final ZooKeeperServerEmbedded server;
    private final String connectString;
    private final LocalClaim claim;

    private EmbeddedZooKeeper(ZooKeeperServerEmbedded server, String connectString, LocalClaim claim) {
        this.server = server;
        this.connectString = connectString;
        this.claim = claim;
    }

    /** Claims {@code dataDir} (creating it if missing), then starts a server on it. */
    public static EmbeddedZooKeeper start(Path dataDir) throws Exception {
        AtomicReference<ZooKeeperServerEmbedded> running = new AtomicReference<>();
        LocalClaim claim = LocalClaim.take(ExclusivePath.directory("dataDir", "ZooKeeper data directory", dataDir), why -> {
            ZooKeeperServerEmbedded s = running.get();
            if (s != null) {
                log.error("Stopping the embedded ZooKeeper on {}: {}", dataDir, why);
                s.close();
            }
        });
        try {
            Path dir = claim.claimed();
            int port;
            try (ServerSocket probe = new ServerSocket(0)) {
                port = probe.getLocalPort();
            }
            Properties config = new Properties();
            config.setProperty("clientPort", Integer.toString(port));
            config.setProperty("clientPortAddress", "127.0.0.1");
            config.setProperty("tickTime", "2000");
            // ZooKeeper's admin server would take port 8080, the gateway's own default.
            config.setProperty("admin.enableServer", "false");
            deleteConfigFiles(dir); // left by a process that died between build() and the delete below
            ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder()
                    .baseDir(dir)
                    .configuration(config)
                    .exitHandler(ExitHandler.LOG_ONLY)
                    .build();
            // build() wrote the configuration to a new temporary file in baseDir and parsed it; a
            // standalone server never reads it again, and without this every start left one more.
            deleteConfigFiles(dir);
            running.set(server);
            if (!claim.isHeld()) {
                throw new IllegalStateException("the claim on " + dir + " was lost while the server was being built");
            }
            server.start(30_000);
            return new EmbeddedZooKeeper(server, "127.0.0.1:" + port, claim);
        } catch (Exception | Error e) {
            ZooKeeperServerEmbedded s = running.get();
            if (s != null) {
                s.close();
            }
            claim.close();
            throw e;
        }
    }

    /**
     * ZooKeeperServerEmbedded's {@code zookeeper.configuration<random>.properties} files in
     * {@code dir}. Only this server uses the directory (it is claimed before this runs).
     */
    private static void deleteConfigFiles(Path dir) throws IOException {
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "zookeeper.configuration*.properties")) {
            for (Path f : files) {
                Files.deleteIfExists(f);
            }
        }
    }

    /** {@code 127.0.0.1:port}. */
    public String connectString() {
        return connectString;
    }

    /** Stops the server, then releases the claim on its directory. */
    @Override
    public void close() {
        try {
            server.close();
        } finally {
            claim.close();
        }
    }
}

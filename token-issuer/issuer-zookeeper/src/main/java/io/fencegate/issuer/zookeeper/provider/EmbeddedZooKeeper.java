package io.fencegate.issuer.zookeeper.provider;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/**
 * ZooKeeper's own embedded server, standalone, on 127.0.0.1 and a free port, keeping its data
 * under a directory so tokens (zxids) keep growing across gateway restarts. For the embedded
 * default, and the one server the demo starts for a gateway on a config: one gateway, no ensemble.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
    private final ZooKeeperServerEmbedded server;
    private final String connectString;

    private EmbeddedZooKeeper(ZooKeeperServerEmbedded server, String connectString) {
        this.server = server;
        this.connectString = connectString;
    }

    public static EmbeddedZooKeeper start(Path dataDir) throws Exception {
        Files.createDirectories(dataDir);
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
        deleteConfigFiles(dataDir); // left by a process that died between build() and the delete below
        ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder()
                .baseDir(dataDir.toAbsolutePath())
                .configuration(config)
                .exitHandler(ExitHandler.LOG_ONLY)
                .build();
        // build() wrote the configuration to a new temporary file in baseDir and parsed it; a
        // standalone server never reads it again, and without this every start left one more.
        deleteConfigFiles(dataDir);
        server.start(30_000);
        return new EmbeddedZooKeeper(server, "127.0.0.1:" + port);
    }

    /**
     * ZooKeeperServerEmbedded's {@code zookeeper.configuration<random>.properties} files in
     * {@code dir}. Only this gateway uses the directory (it is claimed before this runs).
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

    @Override
    public void close() {
        server.close();
    }
}

package io.fencegate.gateway.issuer;

import java.net.ServerSocket;
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
        ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder()
                .baseDir(dataDir.toAbsolutePath())
                .configuration(config)
                .exitHandler(ExitHandler.LOG_ONLY)
                .build();
        server.start(30_000);
        return new EmbeddedZooKeeper(server, "127.0.0.1:" + port);
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

package io.fencegate.bench;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * A ZooKeeper server's own counts, from its {@code mntr} four-letter word: znodes, watches,
 * approximate data size, packets received. The server must whitelist {@code mntr}
 * ({@link #WHITELIST}, read when the first server of the JVM starts).
 */
final class ZooKeeperFacts {
    static final String WHITELIST = "zookeeper.4lw.commands.whitelist";

    private final int port;

    ZooKeeperFacts(int port) {
        this.port = port;
    }

    Map<String, Long> mntr() throws Exception {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write("mntr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            Map<String, Long> facts = new HashMap<>();
            for (String line : answer.split("\n")) {
                String[] kv = line.split("\t");
                if (kv.length == 2) {
                    try {
                        facts.put(kv[0].trim(), Long.parseLong(kv[1].trim()));
                    } catch (NumberFormatException notANumber) {
                        // version, state: not counts
                    }
                }
            }
            if (!facts.containsKey("zk_znode_count")) {
                throw new IllegalStateException("mntr refused or unreadable: " + answer);
            }
            return facts;
        }
    }

    long znodes() throws Exception {
        return mntr().get("zk_znode_count");
    }

    long watches() throws Exception {
        return mntr().get("zk_watch_count");
    }

    long dataBytes() throws Exception {
        return mntr().get("zk_approximate_data_size");
    }

    long packetsReceived() throws Exception {
        return mntr().get("zk_packets_received");
    }
}

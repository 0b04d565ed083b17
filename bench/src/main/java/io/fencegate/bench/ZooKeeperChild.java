package io.fencegate.bench;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.TestingServer;

/**
 * The scale profile's ZooKeeper: a {@code TestingServer} (fsyncing, as in the other groups) in a
 * JVM of its own, so its heap and RSS are the server's alone, measured like the gateway's, and a
 * million idle locks' znodes do not share the issuer's heap. The child prints its port and runs
 * until its stdin closes (the bench ended, however it ended).
 */
final class ZooKeeperChild implements AutoCloseable {
    private static final String READY = "zookeeper listening on port ";

    private final Process process;
    private final int port;

    private ZooKeeperChild(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** Starts the child with {@code -Xmx}{@code heap}, e.g. "3g"; returns once it listens. */
    static ZooKeeperChild start(String heap) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx" + heap,
                "-D" + ZooKeeperFacts.WHITELIST + "=mntr,srvr,ruok,wchs",
                "-cp", System.getProperty("java.class.path"), ZooKeeperChild.class.getName()));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII));
        String line;
        while ((line = out.readLine()) != null) {
            if (line.startsWith(READY)) {
                Thread drain = new Thread(() -> {
                    try {
                        out.transferTo(java.io.Writer.nullWriter()); // its log must never fill the pipe
                    } catch (java.io.IOException ended) {
                        // the child is gone
                    }
                }, "zookeeper-child-out");
                drain.setDaemon(true);
                drain.start();
                return new ZooKeeperChild(process, Integer.parseInt(line.substring(READY.length()).trim()));
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("the ZooKeeper child exited before it listened: " + process.waitFor());
    }

    int port() {
        return port;
    }

    String connectString() {
        return "127.0.0.1:" + port;
    }

    long pid() {
        return process.pid();
    }

    @Override
    public void close() throws Exception {
        process.getOutputStream().close();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    public static void main(String[] args) throws Exception {
        try (TestingServer server = new TestingServer(true)) {
            System.out.println(READY + server.getPort());
            System.out.flush();
            while (System.in.read() >= 0) {
                // runs until the parent closes stdin or dies
            }
        }
    }
}

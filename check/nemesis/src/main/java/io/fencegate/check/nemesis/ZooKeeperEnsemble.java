package io.fencegate.check.nemesis;

import io.fencegate.testing.ChildProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/** Three ZooKeeper servers, each its own {@code QuorumPeerMain} process, on loopback ports. */
final class ZooKeeperEnsemble implements AutoCloseable {
    private final List<ChildProcess> servers = new ArrayList<>();
    private final List<Integer> clientPorts = new ArrayList<>();

    private static final int START_TRIES = 3;
    private static final long LEADER_SECONDS = 60;

    /**
     * Starts the three servers and waits for a leader. Nine ports are picked free but bound only
     * later, by the servers: another process may take one first. A server that could not bind
     * exits or logs "Address already in use", and then the whole ensemble starts again, on fresh
     * ports in a fresh folder; so does one that found no leader in time.
     */
    static ZooKeeperEnsemble start(Path dir) throws Exception {
        StringBuilder failures = new StringBuilder();
        for (int attempt = 1; attempt <= START_TRIES; attempt++) {
            ZooKeeperEnsemble e = new ZooKeeperEnsemble();
            try {
                e.launch(dir.resolve("attempt" + attempt));
                return e;
            } catch (IllegalStateException failed) {
                e.close();
                failures.append("attempt ").append(attempt).append(": ").append(failed.getMessage()).append('\n');
                System.err.println("nemesis: ZooKeeper ensemble, attempt " + attempt + " of " + START_TRIES + ": "
                        + failed.getMessage().lines().findFirst().orElse(""));
            }
        }
        throw new IllegalStateException("ZooKeeper ensemble did not start in " + START_TRIES + " attempts\n" + failures);
    }

    private void launch(Path dir) throws Exception {
        List<int[]> peerPorts = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            clientPorts.add(ChildProcess.freePort());
            peerPorts.add(new int[] {ChildProcess.freePort(), ChildProcess.freePort()});
        }
        StringBuilder members = new StringBuilder();
        for (int i = 1; i <= 3; i++) {
            members.append("server.").append(i).append("=127.0.0.1:").append(peerPorts.get(i - 1)[0]).append(':')
                    .append(peerPorts.get(i - 1)[1]).append('\n');
        }
        for (int i = 1; i <= 3; i++) {
            Path data = dir.resolve("zk" + i);
            Files.createDirectories(data);
            Files.writeString(data.resolve("myid"), Integer.toString(i));
            Path cfg = dir.resolve("zk" + i + ".cfg");
            Files.writeString(cfg, "tickTime=500\ninitLimit=10\nsyncLimit=5\ndataDir=" + data + "\nclientPort="
                    + clientPorts.get(i - 1) + "\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\n"
                    + "4lw.commands.whitelist=srvr\nmaxSessionTimeout=60000\n" + members);
            servers.add(HarnessJvm.start("zk" + i, dir, "org.apache.zookeeper.server.quorum.QuorumPeerMain",
                    List.of("-Xmx128m", "-Dzookeeper.jmx.log4j.disable=true"), List.of(cfg.toString())));
        }
        long deadline = System.nanoTime() + LEADER_SECONDS * 1_000_000_000L;
        while (leader().isEmpty()) {
            for (ChildProcess p : servers) {
                if (!p.alive() || p.bindFailed()) {
                    throw new IllegalStateException(p.name() + (p.bindFailed() ? " could not bind a port" : " exited") + "\n" + tails());
                }
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no ZooKeeper leader after " + LEADER_SECONDS + " s\n" + tails());
            }
            Thread.sleep(200);
        }
    }

    /** The last log lines of every server. */
    String tails() {
        return servers.stream().map(ChildProcess::tail).collect(Collectors.joining());
    }

    String connectString() {
        return clientPorts.stream().map(p -> "127.0.0.1:" + p).collect(Collectors.joining(","));
    }

    /** The server whose {@code srvr} says {@code Mode: leader}. */
    Optional<Integer> leader() {
        for (int i = 0; i < 3; i++) {
            if (srvr(clientPorts.get(i)).contains("Mode: leader")) {
                return Optional.of(i);
            }
        }
        return Optional.empty();
    }

    int awaitLeader(long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            Optional<Integer> l = leader();
            if (l.isPresent()) {
                return l.get();
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("no ZooKeeper leader after " + seconds + " s\n" + tails());
    }

    /** kill -9 the leader; answers it, to restart. */
    ChildProcess killLeader() throws InterruptedException {
        ChildProcess leader = servers.get(awaitLeader(60));
        leader.kill9();
        return leader;
    }

    private static String srvr(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 500);
            s.setSoTimeout(1000);
            OutputStream out = s.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            return "";
        }
    }

    @Override
    public void close() throws Exception {
        for (ChildProcess p : servers) {
            p.close();
        }
    }
}

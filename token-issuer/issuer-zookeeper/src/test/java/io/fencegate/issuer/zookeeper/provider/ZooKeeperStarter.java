package io.fencegate.issuer.zookeeper.provider;

import java.nio.file.Path;

/**
 * Child-process half of {@link EmbeddedZooKeeperClaimIT}: a plain Java program that calls
 * {@link EmbeddedZooKeeper#start} on a directory and prints "started" or "refused: …", then holds
 * its server until stdin closes.
 */
public final class ZooKeeperStarter {
    private ZooKeeperStarter() {}

    public static void main(String[] args) throws Exception {
        EmbeddedZooKeeper zk;
        try {
            zk = EmbeddedZooKeeper.start(Path.of(args[0]));
        } catch (IllegalStateException e) {
            System.out.println("refused: " + e.getMessage());
            System.out.flush();
            return;
        }
        try (zk) {
            System.out.println("started");
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold the server until the parent closes our stdin (or dies)
            }
        }
    }
}

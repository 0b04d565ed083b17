package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.testkit.AcquireReleaseRate;
import org.apache.curator.test.TestingServer;

/**
 * {@link AcquireReleaseRate} against an in-process TestingServer, 1 and 8 threads. Run by hand;
 * not a test. Args: [seconds per run, default 5] [token mode, default ZXID]
 */
public final class ZooKeeperAcquireReleaseRate {

    private ZooKeeperAcquireReleaseRate() { }

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 5;
        TokenMode mode = args.length > 1 ? TokenMode.valueOf(args[1]) : TokenMode.ZXID;
        try (TestingServer server = new TestingServer(true);
             LeaseIssuer issuer = ZooKeeperLeaseIssuer.builder().connectString(server.getConnectString())
                     .tokenMode(mode).build()) {
            AcquireReleaseRate.print(mode + " mode", issuer, seconds, 1, 8);
        }
    }
}

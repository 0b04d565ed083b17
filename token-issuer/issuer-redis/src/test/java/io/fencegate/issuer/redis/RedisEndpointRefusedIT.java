package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fencegate.testing.RedisServer;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Replicas and Sentinels are refused at construction: failover would lose locks and tokens. */
@Timeout(60)
class RedisEndpointRefusedIT {

    @TempDir
    Path dir;

    private RedisIssuerOptions options(String uri) {
        return new RedisIssuerOptions().uri(uri).keyPrefix(RedisTestPrefix.random())
                .highWaterMark(new FileTokenHighWaterMark(dir.resolve("tokens.mark")));
    }

    @Test
    void replicaEndpointIsRefusedWithAClearError() throws Exception {
        RedisServer master = RedisServer.start(dir.resolve("master"));
        RedisServer replica = null;
        try {
            replica = RedisServer.start(dir.resolve("replica"), "--replicaof", "127.0.0.1", Integer.toString(master.port()));
            String replicaUri = replica.uri();
            assertThatThrownBy(() -> new RedisLeaseIssuer(options(replicaUri)))
                    .isInstanceOf(UnsupportedRedisDeploymentException.class)
                    .hasMessageContaining("is a replica")
                    .hasMessageContaining("127.0.0.1:" + replica.port());
            new RedisLeaseIssuer(options(master.uri())).close(); // the master itself is fine
        } finally {
            stopAndCheckGone(replica);
            stopAndCheckGone(master);
        }
    }

    @Test
    void sentinelEndpointIsRefusedWithAClearError() throws Exception {
        RedisServer master = RedisServer.start(dir.resolve("master"));
        RedisServer sentinel = null;
        try {
            sentinel = RedisServer.startSentinel(dir.resolve("sentinel"), master.port());
            String sentinelUri = sentinel.uri();
            assertThatThrownBy(() -> new RedisLeaseIssuer(options(sentinelUri)))
                    .isInstanceOf(UnsupportedRedisDeploymentException.class)
                    .hasMessageContaining("sentinel");
        } finally {
            stopAndCheckGone(sentinel);
            stopAndCheckGone(master);
        }
    }

    private static void stopAndCheckGone(RedisServer server) throws InterruptedException {
        if (server == null) {
            return;
        }
        long pid = server.pid();
        server.kill();
        assertThat(server.isAlive()).isFalse();
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("pid " + pid).isFalse();
        assertThat(server.command("PING")).as("port " + server.port() + " still answers").isNull();
    }
}

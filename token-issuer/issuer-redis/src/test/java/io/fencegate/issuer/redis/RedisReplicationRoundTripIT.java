package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A master whose data is replaced while it keeps its {@code run_id}: it follows another server
 * ({@code REPLICAOF host port}) and is promoted back ({@code REPLICAOF NO ONE}). If that server is
 * its former replica, detached before the last grants, the master comes back with an older counter
 * and a token-run key naming its own run: a run check on {@code run_id} alone passes, and an issuer
 * that did not hand out the lost tokens would hand them out again. Two own redis-servers; a third
 * where a test needs an unrelated one.
 */
@Timeout(120)
class RedisReplicationRoundTripIT extends OwnRedisServers {

    private static final String LOCK = "orders/42";

    private final List<RedisClient> clients = new ArrayList<>();

    @AfterEach
    void closeClients() {
        clients.forEach(RedisClient::shutdown);
    }

    /** The reproduction: 1–5 reach the replica, it detaches, 6–10, the master follows it and is promoted. */
    @Test
    void aNewIssuerNeverRepeatsTokensAfterTheMasterFollowedItsFormerReplica() throws Exception {
        RedisServer master = server("master");
        RedisServer replica = server("replica", "--replicaof", "127.0.0.1", Integer.toString(master.port()));
        RedisLeaseIssuer first = newIssuer(master);
        List<Long> before = grants(first, 5);
        replicated(master, replica);

        detach(replica);
        before.addAll(grants(first, 5));
        followAndComeBack(master, replica);
        assertThat(cli(master).get(PREFIX + "token-counter")).as("the master holds the replica's older counter")
                .isEqualTo(Long.toString(before.get(4)));

        long highest = before.stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(grants(newIssuer(master), 5)).as("a new issuer on the same mark; before: %s", before)
                .allSatisfy(token -> assertThat(token).isGreaterThan(highest));
        assertThat(grants(first, 1)).allSatisfy(token -> assertThat(token).isGreaterThan(highest));
    }

    /**
     * An issuer whose acquires skip the run_id check (an armed script copy, see RunCheckShortcut)
     * must still see the role change: the script cache survives REPLICAOF. Another issuer handed out
     * the lost tokens, so the armed one's highest-token check cannot catch it.
     */
    @Test
    void anIssuerSkippingTheRunCheckNeverRepeatsTokensAfterAReplicationRoundTrip() throws Exception {
        RedisServer master = server("master");
        RedisServer replica = server("replica", "--replicaof", "127.0.0.1", Integer.toString(master.port()));
        RedisLeaseIssuer armed = newIssuer(master);
        List<Long> before = new ArrayList<>();
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
            before.add(TokenCounterLossContract.grant(armed, LOCK));
            return armed.skipsRunCheck();
        });
        replicated(master, replica);

        detach(replica);
        before.addAll(grants(newIssuer(master), 5));
        followAndComeBack(master, replica);

        long highest = before.stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(grants(armed, 3)).as("the armed issuer; before: %s", before)
                .allSatisfy(token -> assertThat(token).isGreaterThan(highest));
    }

    /**
     * Failover to a different server: the master follows an unrelated one (empty for fencegate's
     * keys) and is promoted back. The counter is gone, which the issuer already refuses.
     */
    @Test
    void tokensNeverRepeatAfterTheMasterFollowedAnUnrelatedServer() throws Exception {
        RedisServer master = server("master");
        RedisServer other = server("other");
        RedisLeaseIssuer first = newIssuer(master);
        List<Long> before = grants(first, 5);
        followAndComeBack(master, other);

        long highest = before.stream().mapToLong(Long::longValue).max().orElseThrow();
        assertThat(grants(newIssuer(master), 3)).allSatisfy(token -> assertThat(token).isGreaterThan(highest));
    }

    /**
     * The first replica to attach gives the master a new replication id (Redis starts a backlog
     * under a fresh id), so the counter is moved up to the mark once, a gap; after that tokens are
     * dense again, not re-checked on every acquire.
     */
    @Test
    void anAttachingReplicaMovesTheCounterUpOnceNotOnEveryAcquire() throws Exception {
        RedisServer master = server("master");
        RedisLeaseIssuer first = newIssuer(master);
        List<Long> before = grants(first, 3);
        RedisServer replica = server("replica", "--replicaof", "127.0.0.1", Integer.toString(master.port()));
        replicated(master, replica);
        List<Long> after = grants(newIssuer(master), 3);
        assertThat(after.get(0)).as("before: %s", before).isGreaterThan(before.get(2));
        assertThat(after).containsExactly(after.get(0), after.get(0) + 1, after.get(0) + 2);
        assertThat(grants(first, 1)).containsExactly(after.get(0) + 3);
    }

    private static List<Long> grants(RedisLeaseIssuer issuer, int count) throws Exception {
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            tokens.add(TokenCounterLossContract.grant(issuer, LOCK));
        }
        return tokens;
    }

    /** Waits until the replica has applied everything the master wrote. */
    private void replicated(RedisServer master, RedisServer replica) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> linkUp(replica)
                && cli(master).get(PREFIX + "token-counter").equals(cli(replica).get(PREFIX + "token-counter")));
    }

    private void detach(RedisServer replica) {
        assertThat(cli(replica).replicaofNoOne()).isEqualTo("OK");
    }

    /** REPLICAOF {@code source}, wait for the full sync, then REPLICAOF NO ONE: same process, other data. */
    private void followAndComeBack(RedisServer master, RedisServer source) {
        String runBefore = RedisEndpointCheck.infoField(cli(master).info("server"), "run_id");
        assertThat(cli(master).replicaof("127.0.0.1", source.port())).isEqualTo("OK");
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> linkUp(master));
        assertThat(cli(master).replicaofNoOne()).isEqualTo("OK");
        assertThat(RedisEndpointCheck.infoField(cli(master).info("server"), "run_id")).as("the same process")
                .isEqualTo(runBefore);
    }

    private boolean linkUp(RedisServer server) {
        return "up".equals(RedisEndpointCheck.infoField(cli(server).info("replication"), "master_link_status"));
    }

    private RedisCommands<String, String> cli(RedisServer server) {
        RedisClient client = RedisClient.create(server.uri());
        clients.add(client);
        StatefulRedisConnection<String, String> connection = client.connect();
        return connection.sync();
    }
}

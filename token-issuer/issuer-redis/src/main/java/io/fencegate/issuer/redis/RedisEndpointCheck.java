package io.fencegate.issuer.redis;

import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;

/**
 * Refuses every Redis that is not one plain master. Why: replication is asynchronous, so a
 * failover (Sentinel, Cluster, a promoted replica) can lose a granted lock or the last tokens of
 * the counter, and two holders would then get the same lock or the same token.
 *
 * <p>A master with replicas attached is accepted: they only receive its writes. What a replica
 * can do to the master's data, a role round trip ({@code REPLICAOF} it, then {@code REPLICAOF NO
 * ONE}, coming back with the replica's older data under the same run_id), is caught at run time
 * rather than refused here: every role change gives a new {@code master_replid}, which the scripts
 * compare ({@link LeaseScripts}). Refusing masters that have or had replicas would have to be
 * checked on every call too (a replica can attach later) and would forbid backups by replication.
 */
final class RedisEndpointCheck {

    private RedisEndpointCheck() { }

    static void requireSingleMaster(RedisCommands<String, String> redis, String where) {
        String mode = infoField(redis.info("server"), "redis_mode");
        if (mode != null && !mode.equals("standalone")) {
            throw new UnsupportedRedisDeploymentException("Redis at " + where + " runs in " + mode
                    + " mode; fencegate needs one standalone master (no Sentinel, no Cluster): asynchronous "
                    + "replication loses locks and token counters on failover");
        }
        List<Object> role = redis.role();
        String name = role.isEmpty() ? "unknown" : String.valueOf(role.get(0));
        if (!name.equals("master")) {
            String kind = name.equals("slave") || name.equals("replica") ? "replica" : name;
            throw new UnsupportedRedisDeploymentException("Redis at " + where + " is a " + kind
                    + " (ROLE " + name + "), not a master; fencegate needs the single master: asynchronous replication "
                    + "loses locks and token counters on failover");
        }
    }

    /** The server's major version ({@code redis_version} of {@code INFO server}); 0 if unreadable. */
    static int majorVersion(RedisCommands<String, String> redis) {
        String version = infoField(redis.info("server"), "redis_version");
        try {
            return Integer.parseInt(version.substring(0, version.indexOf('.')));
        } catch (RuntimeException e) {
            return 0;
        }
    }

    static String infoField(String info, String field) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return null;
    }
}

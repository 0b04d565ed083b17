package io.fencegate.issuer.redis;

/** The Redis endpoint is a replica, a Sentinel or a Cluster node: refused, leases would be unsafe. */
public class UnsupportedRedisDeploymentException extends IllegalStateException {

    public UnsupportedRedisDeploymentException(String message) {
        super(message);
    }
}

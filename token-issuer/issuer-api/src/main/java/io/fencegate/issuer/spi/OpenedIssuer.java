package io.fencegate.issuer.spi;

import io.fencegate.issuer.LeaseIssuer;
import java.util.Objects;

/**
 * An open issuer, owned by the server from now on (it closes {@code issuer}).
 *
 * @param issuer      the lease issuer
 * @param description the words the server's start-up line uses for it, without secrets:
 *                    {@code ZooKeeper zk1:2181,zk2:2181}
 */
public record OpenedIssuer(LeaseIssuer issuer, String description) {

    public OpenedIssuer {
        Objects.requireNonNull(issuer, "issuer");
        Objects.requireNonNull(description, "description");
    }
}

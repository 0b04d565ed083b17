package io.fencegate.issuer.backend;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseEnd;
import io.fencegate.issuer.LeaseListener;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** An issuer's {@link LeaseListener}s: each is told, and one that throws cannot keep the others from hearing. */
public final class LeaseListeners {

    private static final Logger LOG = LoggerFactory.getLogger(LeaseListeners.class);

    private final List<LeaseListener> listeners = new CopyOnWriteArrayList<>();

    public void add(LeaseListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    public void tell(Lease lease, LeaseEnd reason) {
        for (LeaseListener listener : listeners) {
            try {
                listener.leaseEnded(lease, reason);
            } catch (RuntimeException e) {
                LOG.warn("lease listener failed for lock={} token={}", lease.lock(), lease.token(), e);
            }
        }
    }
}

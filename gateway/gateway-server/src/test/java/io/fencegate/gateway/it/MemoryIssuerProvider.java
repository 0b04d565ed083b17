package io.fencegate.gateway.it;

import io.fencegate.issuer.IssuerUnavailableException;
import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseInfo;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.LeaseListener;
import io.fencegate.issuer.LeasePage;
import io.fencegate.issuer.spi.IssuerContext;
import io.fencegate.issuer.spi.IssuerProvider;
import io.fencegate.issuer.spi.IssuerSettings;
import io.fencegate.issuer.spi.IssuerType;
import io.fencegate.issuer.spi.OpenedIssuer;
import io.fencegate.spi.InvalidSettingException;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * An issuer that exists only on the test classpath, registered in
 * {@code src/test/resources/discovered-issuer/META-INF/services}, a folder only
 * {@link DiscoveredIssuerIT} puts on its class loader (every other test sees the shipped types
 * alone): proof that the gateway serves an issuer type it has no code for.
 * {@code type: test-memory}, one key {@code firstToken}: the tokens granted start above it.
 */
public final class MemoryIssuerProvider implements IssuerProvider<MemoryIssuerProvider.MemoryIssuerSettings> {

    public record MemoryIssuerSettings(Long firstToken) implements IssuerSettings {
        @Override
        public void validate() {
            if (firstToken != null && firstToken < 0) {
                throw new InvalidSettingException("firstToken", "must be 0 or more, got " + firstToken);
            }
        }
    }

    private static final IssuerType<MemoryIssuerSettings> TYPE = new IssuerType<>("test-memory", MemoryIssuerSettings.class);

    @Override
    public IssuerType<MemoryIssuerSettings> issuerType() {
        return TYPE;
    }

    @Override
    public OpenedIssuer open(MemoryIssuerSettings settings, IssuerContext context) {
        return new OpenedIssuer(new MemoryIssuer(settings.firstToken() == null ? 0 : settings.firstToken()), "in-memory (test)");
    }

    /**
     * Leases in maps, every call under one lock. It answers at once: a held lock is refused
     * without waiting, and a lease's end is noticed when someone asks (no listener is told).
     */
    static final class MemoryIssuer implements LeaseIssuer {
        private record Held(Lease lease, Duration ttl) {}

        private final Map<String, Held> byLock = new HashMap<>();
        private final Map<String, Held> byId = new HashMap<>();
        private final Set<String> granted = new HashSet<>();
        private final Set<String> released = new HashSet<>();
        private long lastToken;
        private boolean closed;

        MemoryIssuer(long firstToken) {
            this.lastToken = firstToken;
        }

        @Override
        public synchronized CompletionStage<Optional<Lease>> acquire(String lock, Duration ttl, Duration wait) {
            long startedAt = System.nanoTime();
            if (closed) {
                return CompletableFuture.failedFuture(new IssuerUnavailableException("closed"));
            }
            if (live(byLock.get(lock)) != null) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            Lease lease = new Lease(lock, UUID.randomUUID().toString(), ++lastToken,
                    System.currentTimeMillis() + ttl.toMillis(), startedAt);
            Held held = new Held(lease, ttl);
            byLock.put(lock, held);
            byId.put(lease.leaseId(), held);
            granted.add(lock + "\n" + lease.token());
            return CompletableFuture.completedFuture(Optional.of(lease));
        }

        /** {@code held} if its ttl has not passed, else null (and forgotten). */
        private Held live(Held held) {
            if (held == null || held.lease().expiresAt() > System.currentTimeMillis()) {
                return held;
            }
            byLock.remove(held.lease().lock(), held);
            byId.remove(held.lease().leaseId());
            return null;
        }

        @Override
        public synchronized CompletionStage<Optional<Lease>> renew(String leaseId) {
            Held held = live(byId.get(leaseId));
            if (held == null) {
                return CompletableFuture.completedFuture(Optional.empty());
            }
            Held renewed = new Held(held.lease().withExpiresAt(System.currentTimeMillis() + held.ttl().toMillis()), held.ttl());
            byLock.put(renewed.lease().lock(), renewed);
            byId.put(leaseId, renewed);
            return CompletableFuture.completedFuture(Optional.of(renewed.lease()));
        }

        @Override
        public synchronized CompletionStage<Boolean> release(String leaseId) {
            Held held = live(byId.remove(leaseId));
            if (held == null) {
                return CompletableFuture.completedFuture(false);
            }
            byLock.remove(held.lease().lock(), held);
            released.add(leaseId);
            return CompletableFuture.completedFuture(true);
        }

        @Override
        public synchronized CompletionStage<Boolean> wasGranted(String lock, long token) {
            return CompletableFuture.completedFuture(granted.contains(lock + "\n" + token));
        }

        @Override
        public synchronized CompletionStage<Optional<Lease>> find(String leaseId) {
            Held held = live(byId.get(leaseId));
            return CompletableFuture.completedFuture(Optional.ofNullable(held).map(Held::lease));
        }

        @Override
        public synchronized CompletionStage<Boolean> wasReleased(Lease lease) {
            return CompletableFuture.completedFuture(released.contains(lease.leaseId()));
        }

        /** The live leases after the cursor (a lock name), in lock-name order. */
        @Override
        public synchronized CompletionStage<LeasePage> list(String lockPrefix, String cursor, int limit) {
            var leases = java.util.List.copyOf(byLock.values()).stream().map(this::live).filter(h -> h != null)
                    .map(Held::lease)
                    .filter(l -> l.lock().startsWith(lockPrefix) && (cursor == null || l.lock().compareTo(cursor) > 0))
                    .sorted(java.util.Comparator.comparing(Lease::lock))
                    .map(l -> new LeaseInfo(l.lock(), l.token(), l.expiresAt(), "test-memory"))
                    .toList();
            var page = leases.subList(0, Math.min(limit, leases.size()));
            Optional<String> next = leases.size() > limit ? Optional.of(page.get(page.size() - 1).lock()) : Optional.empty();
            return CompletableFuture.completedFuture(new LeasePage(page, next));
        }

        @Override
        public void addListener(LeaseListener listener) {}

        synchronized boolean closed() {
            return closed;
        }

        @Override
        public synchronized void close() {
            closed = true;
        }
    }
}

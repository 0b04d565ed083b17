package io.fencegate.issuer.zookeeper;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Pins a root to one token mode ({@code <root>/token-mode}). Why: czxids are about 2^32 and
 * larger, cversion tokens start at 1, so issuers in different modes sharing one root would hand
 * out tokens that go backwards on the same lock. The first issuer writes its mode; an issuer in
 * the other mode is refused with an error naming both.
 */
final class TokenModeMarker {

    private final IssuerParts parts;
    private final AtomicReference<CompletableFuture<Void>> checked = new AtomicReference<>();

    TokenModeMarker(IssuerParts parts) {
        this.parts = parts;
    }

    /** Completes when the root is known to be in this issuer's mode; checks once, again after a failure. */
    CompletableFuture<Void> ensure() {
        CompletableFuture<Void> current = checked.get();
        if (current != null && !current.isCompletedExceptionally()) {
            return current;
        }
        CompletableFuture<Void> fresh = new CompletableFuture<>();
        if (!checked.compareAndSet(current, fresh)) {
            return ensure();
        }
        check().whenComplete((v, error) -> {
            if (error != null) {
                fresh.completeExceptionally(error);
            } else {
                fresh.complete(null);
            }
        });
        return fresh;
    }

    private CompletableFuture<Void> check() {
        String path = parts.nodes().root() + "/token-mode";
        byte[] mine = parts.mode().name().getBytes(StandardCharsets.UTF_8);
        return parts.zk().call("create " + path, cb -> parts.client().create().creatingParentsIfNeeded()
                .withMode(CreateMode.PERSISTENT).inBackground(cb).forPath(path, mine)).thenCompose(created -> {
                    Code code = AsyncZk.code(created);
                    if (code == Code.OK) {
                        return CompletableFuture.completedFuture(null);
                    }
                    if (code != Code.NODEEXISTS) {
                        return CompletableFuture.failedFuture(AsyncZk.unexpected("create token-mode marker", created));
                    }
                    return parts.zk().call("read " + path, cb -> parts.client().getData().inBackground(cb).forPath(path))
                            .thenApply(read -> {
                                if (AsyncZk.code(read) != Code.OK) {
                                    throw AsyncZk.unexpected("read token-mode marker", read);
                                }
                                String theirs = new String(read.getData(), StandardCharsets.UTF_8);
                                if (!theirs.equals(parts.mode().name())) {
                                    throw new IllegalStateException("ZooKeeper root " + parts.nodes().root()
                                            + " issues " + theirs + " tokens; this issuer is configured for "
                                            + parts.mode() + " (tokens would go backwards): use another root");
                                }
                                return null;
                            });
                });
    }
}

package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.backend.LruMap;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;

/**
 * A fenced semaphore's permit count, fixed by its first acquire: the data of its PERSISTENT node
 * {@code root/semaphores/<encoded name>}, created with the count in one create, so two first
 * acquires with different counts cannot both win; the loser reads the winner's count and is refused.
 * The node is never removed (it also parents the semaphore's line, {@link PermitAcquisition}), so a
 * count once known here is cached for good.
 */
final class SemaphoreCounts {

    private static final String PREFIX = "permits:";

    private final IssuerParts parts;
    private final Map<String, Integer> known = LruMap.synchronizedOf(4096);

    SemaphoreCounts(IssuerParts parts) {
        this.parts = parts;
    }

    /** Completes once {@code semaphore} is known to have {@code permits}; fails IllegalArgumentException for another count. */
    CompletableFuture<Void> check(String semaphore, int permits) {
        Integer count = known.get(semaphore);
        if (count != null) {
            return judged(semaphore, count, permits);
        }
        String path = parts.nodes().semaphorePath(semaphore);
        byte[] data = (PREFIX + permits).getBytes(StandardCharsets.US_ASCII);
        return parts.zk().call("create semaphore " + path, cb -> parts.client().create().creatingParentsIfNeeded()
                .withMode(CreateMode.PERSISTENT).inBackground(cb).forPath(path, data)).thenCompose(created -> switch (AsyncZk.code(created)) {
                    case OK -> remembered(semaphore, permits, permits);
                    case NODEEXISTS -> parts.zk().call("read semaphore " + path, cb -> parts.client().getData()
                            .inBackground(cb).forPath(path)).thenCompose(read -> {
                                if (AsyncZk.code(read) != Code.OK) {
                                    throw AsyncZk.unexpected("read semaphore", read);
                                }
                                return remembered(semaphore, parse(path, read.getData()), permits);
                            });
                    default -> CompletableFuture.failedFuture(AsyncZk.unexpected("create semaphore", created));
                });
    }

    private CompletableFuture<Void> remembered(String semaphore, int count, int asked) {
        known.put(semaphore, count);
        return judged(semaphore, count, asked);
    }

    private static CompletableFuture<Void> judged(String semaphore, int count, int asked) {
        return count == asked ? CompletableFuture.completedFuture(null)
                : CompletableFuture.failedFuture(new IllegalArgumentException("semaphore " + semaphore + " has " + count
                        + " permits, fixed by its first acquire; asked with " + asked));
    }

    private static int parse(String path, byte[] data) {
        String text = data == null ? "" : new String(data, StandardCharsets.US_ASCII);
        try {
            if (text.startsWith(PREFIX)) {
                return Integer.parseInt(text.substring(PREFIX.length()));
            }
        } catch (NumberFormatException e) {
            // falls through
        }
        throw new io.fencegate.issuer.IssuerUnavailableException("semaphore node " + path + " holds no permit count: '" + text + "'");
    }
}

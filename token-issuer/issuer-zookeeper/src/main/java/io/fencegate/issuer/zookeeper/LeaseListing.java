package io.fencegate.issuer.zookeeper;

import io.fencegate.issuer.LeaseInfo;
import io.fencegate.issuer.LeaseMode;
import io.fencegate.issuer.LeasePage;
import io.fencegate.issuer.backend.ListCursors;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Lists live leases from ZooKeeper, and names this issuer instance there.
 *
 * <p>Who granted a lease: each issuer keeps an EPHEMERAL node {@code root/instances/<name>~<uuid>}
 * in its session; a lease node's {@code ephemeralOwner} is the session that created it, so the
 * instance whose node has the same owner granted it. No lease data changes, so leases stay
 * readable by older issuers.
 *
 * <p>Every read goes through the listing's own connection ({@link ListingConnection}), whose client
 * takes replies up to {@code listingMaxBytes}: a reply larger still fails the listing, never the
 * leases.
 *
 * <p>A listing reads the lock names once (one getChildren of {@code root/locks}), then, per lock
 * of the page, its queue head (getChildren, getData). The head is a live lease if its expiry is
 * ahead and its token is in the grant log (a head may still be waiting out a lock-delay); a lock
 * held by read leases lists each of them: the read nodes before the first write node. A page never
 * splits a lock's leases across pages; a lock with more read leases than the limit shows the
 * first {@code limit} of them. At most
 * {@link #EXAMINED_PER_LIMIT} times the limit locks are read per page, so a page is bounded even
 * when most lock nodes are idle.
 */
final class LeaseListing {

    static final int EXAMINED_PER_LIMIT = 4;
    private static final String SEPARATOR = "~";

    private final IssuerParts parts;
    /** Where the listing's reads go: never the leases' connection when the issuer owns it ({@link ListingConnection}). */
    private final java.util.function.Supplier<org.apache.curator.framework.CuratorFramework> reads;
    private final String instancePath;
    /** The lock-name read under way, shared by the listings that ask meanwhile ({@link #lockNames}). */
    private CompletableFuture<List<String>> namesInFlight;

    LeaseListing(IssuerParts parts, java.util.function.Supplier<org.apache.curator.framework.CuratorFramework> reads,
            String instanceName) {
        this.parts = parts;
        this.reads = reads;
        this.instancePath = instancesPath() + "/" + URLEncoder.encode(instanceName, StandardCharsets.UTF_8)
                + SEPARATOR + UUID.randomUUID().toString().substring(0, 8);
    }

    private String instancesPath() {
        return parts.nodes().root() + "/instances";
    }

    /** (Re)creates this instance's node; called when a session starts. Best effort: a listing then shows "". */
    void register() {
        parts.zk().call("register instance", cb -> parts.client().create().creatingParentsIfNeeded()
                .withMode(CreateMode.EPHEMERAL).inBackground(cb).forPath(instancePath, new byte[0]));
    }

    /** @param after the lock the page starts after (checked and decoded by the issuer), null for the first page */
    CompletableFuture<LeasePage> list(String prefix, String after, int limit) {
        return lockNames().thenCompose(names -> {
            int examinable = limit * EXAMINED_PER_LIMIT;
            // The first locks of the page in order, without a decoded copy of every name: a listing
            // holds at most examinable names of its own, whatever other prefixes hold.
            PriorityQueue<String> first = new PriorityQueue<>(Comparator.reverseOrder());
            int matching = 0;
            for (String name : names) {
                String lock = decode(name);
                if (lock != null && lock.startsWith(prefix) && (after == null || lock.compareTo(after) > 0)) {
                    matching++;
                    if (first.size() < examinable) {
                        first.add(lock);
                    } else if (lock.compareTo(first.peek()) < 0) {
                        first.poll();
                        first.add(lock);
                    }
                }
            }
            List<String> page = new ArrayList<>(first);
            page.sort(null);
            int candidates = matching;
            return instances().thenCompose(owners -> {
                List<CompletableFuture<List<LeaseInfo>>> reads = new ArrayList<>();
                for (String lock : page) {
                    reads.add(head(lock, owners));
                }
                return CompletableFuture.allOf(reads.toArray(CompletableFuture[]::new)).thenApply(v -> {
                    List<LeaseInfo> live = new ArrayList<>();
                    int covered = 0;
                    while (covered < reads.size() && live.size() < limit) {
                        List<LeaseInfo> held = reads.get(covered).join();
                        if (!live.isEmpty() && live.size() + held.size() > limit) {
                            break; // the next page starts with this lock, whole
                        }
                        live.addAll(held.subList(0, Math.min(held.size(), limit - live.size())));
                        covered++;
                    }
                    boolean more = covered > 0 && covered < candidates;
                    return new LeasePage(live, more ? Optional.of(ListCursors.encode(page.get(covered - 1))) : Optional.empty());
                });
            });
        });
    }

    /**
     * Every lock node's name, in one getChildren of {@code root/locks}. Listings that ask while a
     * read is under way share it: however many listings run at once, one reply is held, not one a
     * listing (ZooKeeper has no paged listing, so the reply is as large as the lock names).
     */
    private CompletableFuture<List<String>> lockNames() {
        synchronized (this) {
            if (namesInFlight != null) {
                return namesInFlight;
            }
            CompletableFuture<List<String>> read = new CompletableFuture<>();
            namesInFlight = read;
            children(parts.nodes().locksPath()).whenComplete((names, error) -> {
                synchronized (this) {
                    namesInFlight = null;
                }
                if (error != null) {
                    read.completeExceptionally(error);
                } else {
                    read.complete(names);
                }
            });
            return read;
        }
    }

    /** The lock's live leases: its queue's head, or the read nodes before its first write node. */
    private CompletableFuture<List<LeaseInfo>> head(String lock, Map<Long, String> owners) {
        String lockPath = parts.nodes().lockPath(lock);
        return children(lockPath).thenCompose(children -> {
            List<String> queue = LockNodes.queue(children);
            List<CompletableFuture<Optional<LeaseInfo>>> holders = new ArrayList<>();
            for (int i = 0; i < queue.size() && (i == 0 || LockNodes.modeOf(queue.get(i)) == LeaseMode.READ); i++) {
                holders.add(holder(lock, lockPath, queue.get(i), owners));
                if (LockNodes.modeOf(queue.get(i)) == LeaseMode.WRITE) {
                    break;
                }
            }
            return CompletableFuture.allOf(holders.toArray(CompletableFuture[]::new))
                    .thenApply(v -> holders.stream().flatMap(h -> h.join().stream()).toList());
        });
    }

    /** One lease node as a listing shows it: live if its expiry is ahead and its grant is recorded. */
    private CompletableFuture<Optional<LeaseInfo>> holder(String lock, String lockPath, String name, Map<Long, String> owners) {
        String path = lockPath + "/" + name;
        return parts.zk().call("read lease " + path, cb -> reads.get().getData().inBackground(cb).forPath(path))
                .thenCompose(event -> {
                    Optional<LeaseNodeData> data = AsyncZk.code(event) == Code.OK
                            ? LeaseNodeData.parse(event.getData()) : Optional.empty();
                    if (data.isEmpty() || data.get().expiresAt() <= parts.clock().millis()) {
                        return CompletableFuture.completedFuture(Optional.<LeaseInfo>empty());
                    }
                    long token = data.get().mode().tokenOf(event.getStat(), name);
                    String by = owners.getOrDefault(event.getStat().getEphemeralOwner(), "");
                    return parts.grants().wasGranted(lock, token).thenApply(granted -> granted
                            ? Optional.of(new LeaseInfo(lock, token, data.get().expiresAt(), by, LockNodes.modeOf(name)))
                            : Optional.<LeaseInfo>empty());
                });
    }

    /** Session id to instance name, for every issuer instance registered now. */
    private CompletableFuture<Map<Long, String>> instances() {
        String path = instancesPath();
        return children(path).thenCompose(names -> {
            Map<Long, String> owners = new HashMap<>();
            List<CompletableFuture<Void>> stats = new ArrayList<>();
            for (String name : names) {
                stats.add(parts.zk().call("stat instance", cb -> reads.get().checkExists().inBackground(cb)
                        .forPath(path + "/" + name)).thenAccept(event -> {
                            if (event.getStat() != null) {
                                synchronized (owners) {
                                    owners.put(event.getStat().getEphemeralOwner(), instanceName(name));
                                }
                            }
                        }));
            }
            return CompletableFuture.allOf(stats.toArray(CompletableFuture[]::new)).thenApply(v -> owners);
        });
    }

    private CompletableFuture<List<String>> children(String path) {
        return parts.zk().call("list " + path, cb -> reads.get().getChildren().inBackground(cb).forPath(path))
                .thenApply(LeaseListing::childrenOf);
    }

    private static List<String> childrenOf(CuratorEvent event) {
        Code code = AsyncZk.code(event);
        if (code == Code.NONODE) {
            return List.of();
        }
        if (code != Code.OK) {
            throw AsyncZk.unexpected("list", event);
        }
        return event.getChildren();
    }

    private static String instanceName(String node) {
        int at = node.lastIndexOf(SEPARATOR);
        return URLDecoder.decode(at < 0 ? node : node.substring(0, at), StandardCharsets.UTF_8);
    }

    /** The lock a lock node's name encodes (see {@link LockNodes#encode}); null for a foreign node. */
    private static String decode(String name) {
        try {
            return new String(Base64.getUrlDecoder().decode(name), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}

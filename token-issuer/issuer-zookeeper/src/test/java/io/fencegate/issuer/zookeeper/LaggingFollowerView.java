package io.fencegate.issuer.zookeeper;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.zookeeper.AsyncCallback.Children2Callback;
import org.apache.zookeeper.AsyncCallback.ChildrenCallback;
import org.apache.zookeeper.AsyncCallback.Create2Callback;
import org.apache.zookeeper.AsyncCallback.VoidCallback;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.data.ACL;

/**
 * A ZooKeeper client seen through a follower that is behind: after {@link #lagBehind}, the next
 * listing of that parent misses the given child, as a server that has not applied the write yet
 * would answer, unless a {@code sync} came first (a sync makes the server catch up with the
 * leader). One listing only: a real follower catches up within milliseconds, and what matters is
 * what a reader concludes from the listing it got.
 */
final class LaggingFollowerView extends ZooKeeper {

    /** Parent path to the child name its next unsynced listing misses. */
    private final Map<String, String> behind = new ConcurrentHashMap<>();
    /** Parents under which the next create applies but its answer is lost (and then lags). */
    private final Set<String> loseCreateAnswer = ConcurrentHashMap.newKeySet();

    LaggingFollowerView(String connectString, int sessionTimeout, Watcher watcher, boolean canBeReadOnly,
                        ZKClientConfig config) throws IOException {
        super(connectString, sessionTimeout, watcher, canBeReadOnly, config);
    }

    void lagBehind(String parent, String child) {
        behind.put(parent, child);
    }

    /** The next create under {@code parent} applies, its answer is lost, and the next listing misses it. */
    void loseNextCreateAnswer(String parent) {
        loseCreateAnswer.add(parent);
    }

    @Override
    public void create(String path, byte[] data, List<ACL> acl, CreateMode mode, Create2Callback cb, Object ctx, long ttl) {
        String parent = path.substring(0, path.lastIndexOf('/'));
        if (!loseCreateAnswer.contains(parent)) {
            super.create(path, data, acl, mode, cb, ctx, ttl);
            return;
        }
        super.create(path, data, acl, mode, (rc, p, c, name, stat) -> {
            if (rc != 0) { // not applied (a missing parent): nothing to lose yet
                cb.processResult(rc, p, c, name, stat);
                return;
            }
            loseCreateAnswer.remove(parent);
            lagBehind(parent, name.substring(name.lastIndexOf('/') + 1));
            cb.processResult(KeeperException.Code.CONNECTIONLOSS.intValue(), p, c, null, null);
        }, ctx, ttl);
    }

    @Override
    public void sync(String path, VoidCallback cb, Object ctx) {
        super.sync(path, (rc, p, c) -> {
            if (rc == 0) {
                behind.clear();
            }
            cb.processResult(rc, p, c);
        }, ctx);
    }

    @Override
    public void getChildren(String path, boolean watch, Children2Callback cb, Object ctx) {
        super.getChildren(path, watch, (rc, p, c, children, stat) -> cb.processResult(rc, p, c, seen(p, children), stat), ctx);
    }

    @Override
    public void getChildren(String path, Watcher watcher, Children2Callback cb, Object ctx) {
        super.getChildren(path, watcher, (rc, p, c, children, stat) -> cb.processResult(rc, p, c, seen(p, children), stat), ctx);
    }

    @Override
    public void getChildren(String path, boolean watch, ChildrenCallback cb, Object ctx) {
        super.getChildren(path, watch, (rc, p, c, children) -> cb.processResult(rc, p, c, seen(p, children)), ctx);
    }

    @Override
    public void getChildren(String path, Watcher watcher, ChildrenCallback cb, Object ctx) {
        super.getChildren(path, watcher, (rc, p, c, children) -> cb.processResult(rc, p, c, seen(p, children)), ctx);
    }

    @Override
    public List<String> getChildren(String path, boolean watch) throws KeeperException, InterruptedException {
        return seen(path, super.getChildren(path, watch));
    }

    @Override
    public List<String> getChildren(String path, Watcher watcher) throws KeeperException, InterruptedException {
        return seen(path, super.getChildren(path, watcher));
    }

    private List<String> seen(String parent, List<String> children) {
        String missing = behind.remove(parent);
        return missing == null || children == null ? children
                : children.stream().filter(child -> !child.equals(missing)).toList();
    }
}

package io.fencegate.issuer.zookeeper;

import java.util.ArrayList;
import java.util.List;
import org.apache.curator.drivers.OperationTrace;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.BackgroundCallback;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.framework.api.CuratorEventType;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
import org.apache.curator.framework.api.transaction.OperationType;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.CreateOptions;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.Op;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.apache.zookeeper.proto.CreateRequest;

/**
 * A transaction whose creates answer the created node's stat. Why not Curator's transaction:
 * Curator sends {@code create} ops and keeps a stat only for {@code setData} results, so learning
 * a new node's czxid cost one more op (a {@code setData} stamp on a node of the same transaction).
 * ZooKeeper 3.9 answers {@code create2} inside {@code multi} with the stat (ZOOKEEPER-4026); an
 * older server answers without one, which callers treat as "read it". Every one-trip transaction
 * ({@link UncontendedGrant}'s grants and releases) is sent this way: Curator's transaction path
 * (its builder, its retry loop, its background callback) cost client CPU per pair for nothing a
 * caller uses; a release's creates answer a stat it ignores.
 *
 * <p>The ops are still built by Curator ({@link CuratorFramework#transactionOp()}), so its ACL
 * provider, namespace and path checks apply; only the send goes through the session's own
 * handle. The answer is a {@link CuratorEvent} of type TRANSACTION, like Curator's, and the call
 * is traced like Curator's (request counts in tests see it). Not retried: a lost answer is a
 * CONNECTIONLOSS, which callers already treat as "may have applied".
 */
final class StatTransaction {

    private StatTransaction() { }

    /** Sends {@code ops} as one multi; the callback gets the answer on ZooKeeper's event thread. */
    static void send(CuratorFramework client, List<CuratorOp> ops, BackgroundCallback callback) throws Exception {
        List<Op> sent = new ArrayList<>(ops.size());
        List<OperationType> types = new ArrayList<>(ops.size());
        for (CuratorOp op : ops) {
            sent.add(withStat(op.get()));
            types.add(op.getTypeAndPath().getType());
        }
        OperationTrace trace = client.getZookeeperClient().startAdvancedTracer("StatTransaction-Background");
        client.getZookeeperClient().getZooKeeper().multi(sent, (rc, path, ctx, results) -> {
            trace.setReturnCode(rc).setPath(path).commit();
            try {
                callback.processResult(client, new Answer(rc, path, curatorResults(client, sent, types, results)));
            } catch (Exception e) {
                // AsyncZk's callbacks only complete a future; nothing to hand this to but the event thread's log.
                throw new IllegalStateException("transaction callback failed", e);
            }
        }, null);
    }

    /** A plain create becomes create2; every other op is sent as Curator built it. */
    private static Op withStat(Op op) throws Exception {
        if (op.getType() != ZooDefs.OpCode.create) {
            return op;
        }
        CreateRequest request = (CreateRequest) op.toRequestRecord();
        List<ACL> acl = request.getAcl();
        return Op.create(request.getPath(), request.getData(),
                CreateOptions.newBuilder(acl, CreateMode.fromFlag(request.getFlags())).build());
    }

    private static List<CuratorTransactionResult> curatorResults(CuratorFramework client, List<Op> sent,
                                                                 List<OperationType> types, List<OpResult> results) {
        if (results == null) {
            return null;
        }
        List<CuratorTransactionResult> answer = new ArrayList<>(results.size());
        for (int i = 0; i < results.size(); i++) {
            OpResult result = results.get(i);
            String forPath = unfix(client, sent.get(i).getPath());
            String resultPath = null;
            Stat stat = null;
            int error = 0;
            if (result instanceof OpResult.CreateResult created) {
                resultPath = unfix(client, created.getPath());
                stat = created.getStat();
            } else if (result instanceof OpResult.SetDataResult set) {
                stat = set.getStat();
            } else if (result instanceof OpResult.ErrorResult failed) {
                error = failed.getErr();
            }
            answer.add(new CuratorTransactionResult(types.get(i), forPath, resultPath, stat, error));
        }
        return answer;
    }

    /** The path as the caller named it, without the client's namespace. */
    private static String unfix(CuratorFramework client, String path) {
        String namespace = client.getNamespace();
        if (path == null || namespace == null || namespace.isEmpty()) {
            return path;
        }
        String prefix = "/" + namespace;
        return path.startsWith(prefix + "/") ? path.substring(prefix.length()) : path.equals(prefix) ? "/" : path;
    }

    /** ZooKeeper's answer to one multi, as Curator would hand it over. */
    private record Answer(int resultCode, String path, List<CuratorTransactionResult> opResults) implements CuratorEvent {
        @Override public CuratorEventType getType() { return CuratorEventType.TRANSACTION; }
        @Override public int getResultCode() { return resultCode; }
        @Override public String getPath() { return path; }
        @Override public Object getContext() { return null; }
        @Override public Stat getStat() { return null; }
        @Override public byte[] getData() { return null; }
        @Override public String getName() { return null; }
        @Override public List<String> getChildren() { return null; }
        @Override public List<ACL> getACLList() { return null; }
        @Override public List<CuratorTransactionResult> getOpResults() { return opResults; }
        @Override public WatchedEvent getWatchedEvent() { return null; }
        @Override public String toString() { return "multi " + Code.get(resultCode) + " " + opResults; }
    }
}

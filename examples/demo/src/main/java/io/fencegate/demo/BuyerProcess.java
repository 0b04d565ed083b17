package io.fencegate.demo;

import io.fencegate.testing.ActorProcess;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.BlockingQueue;

/** A {@link Buyer} JVM: its events go to one queue shared by all buyers. */
final class BuyerProcess extends ActorProcess {

    private BuyerProcess(int id, List<String> args, BlockingQueue<Event> events) throws IOException {
        super("demo-buyer", id, Buyer.class, args, events);
    }

    static BuyerProcess start(int id, String gatewayUri, Databases db, String redisLock, BlockingQueue<Event> events)
            throws IOException {
        return new BuyerProcess(id, List.of(gatewayUri, db.url, db.user, db.password, redisLock), events);
    }

    void run(Mode mode, String sku, long ttlMs, long paymentMs) {
        send("RUN " + mode.name() + " " + sku + " " + ttlMs + " " + paymentMs);
    }
}

package io.fencegate.examples.slots;

import io.fencegate.testing.ActorProcess;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.BlockingQueue;

/** A {@link Worker} JVM: its events go to one queue shared by all workers. */
final class WorkerProcess extends ActorProcess {

    private WorkerProcess(int id, List<String> args, BlockingQueue<Event> events) throws IOException {
        super("worker", id, Worker.class, args, events);
    }

    /** {@code args}: everything after the worker's number, as {@link Worker#main} takes it. */
    static WorkerProcess start(int id, List<String> args, BlockingQueue<Event> events) throws IOException {
        return new WorkerProcess(id, args, events);
    }

    /** Where the gateway listens, once it does. */
    void gateway(String uri) {
        send("GATEWAY " + uri);
    }

    /** Take a permit and work its slot. */
    void start() {
        send("START");
    }

    /** Stop at the next job between its read and its write, and wait for {@link #go()}. */
    void hold() {
        send("HOLD");
    }

    /** The held worker may write now. */
    void go() {
        send("GO");
    }

    /** Finish the job in hand, release the permit and say STOPPED. */
    void stop() {
        send("STOP");
    }
}

package io.fencegate.examples.transfer;

import io.fencegate.testing.ActorProcess;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.BlockingQueue;

/** A {@link Teller} JVM: its events go to one queue shared by all tellers. */
final class TellerProcess extends ActorProcess {

    private TellerProcess(int id, List<String> args, BlockingQueue<Event> events) throws IOException {
        super("teller", id, Teller.class, args, events);
    }

    /** {@code args}: everything after the teller's number, as {@link Teller#main} takes it. */
    static TellerProcess start(int id, List<String> args, BlockingQueue<Event> events) throws IOException {
        return new TellerProcess(id, args, events);
    }

    /** Where the gateway listens, once it does. */
    void gateway(String uri) {
        send("GATEWAY " + uri);
    }

    void run(Mode mode, boolean hold) {
        send("RUN " + mode.name() + " " + hold);
    }

    /** Finish the transfer in hand, then wait. */
    void stop() {
        send("STOP");
    }

    /** The held teller may write now. */
    void go() {
        send("GO");
    }
}

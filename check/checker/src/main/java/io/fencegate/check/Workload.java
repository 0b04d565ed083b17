package io.fencegate.check;

import java.util.List;
import java.util.Map;

/**
 * What the clients do and how their history is judged, side by side (as Elle keeps a workload's
 * generator beside its checker): {@link #step} is one client's next operations, {@link #check} the
 * properties its operations on one key must have.
 */
public sealed interface Workload permits ReadModifyWrite, MutexWorkload, BankWorkload, ReadWriteWorkload, SemaphoreWorkload {
    /** lease, fenced read, think or pause, write n+1, release. */
    Workload COUNTER = new CounterWorkload();
    /** Jepsen's lock-set: lease, fenced read of a set, pause, write the set plus this client's element. */
    Workload LOCK_SET = new LockSetWorkload();
    /** lease, hold, release: the grant history against a mutex with fences. */
    Workload MUTEX = new MutexWorkload();
    /** Jepsen's bank: transfers between accounts in transactions, reads of them all; the total never changes. */
    Workload BANK = new BankWorkload();
    /** Read and write leases on a few locks: readers make fenced reads, writers increment a counter. */
    Workload RW = new ReadWriteWorkload();
    /** A fenced semaphore of {@code --permits}: each holder increments its slot's counter. */
    Workload SEMAPHORE = new SemaphoreWorkload();

    static List<Workload> values() {
        return List.of(COUNTER, LOCK_SET, MUTEX, BANK, RW, SEMAPHORE);
    }

    static Workload parse(String s) {
        return OptionEnums.parse("--workload", s, values(), Workload::label,
                Map.of("lockset", LOCK_SET, "set", LOCK_SET, "fenced-mutex", MUTEX, "read-write", RW, "rwlock", RW, "sem", SEMAPHORE));
    }

    /** Its name on the command line and in files. */
    String label();

    /** The operation a run is counted and judged by: {@link Op#WRITE}, or {@link Op#ACQUIRE} for the mutex. */
    String counted();

    /** What "ops" and "fail" count in its tables, in words. */
    String countedInWords();

    /** Whether its clients read and write items (what the broken-client controls break). */
    boolean writesItems();

    /** One client's next step: its calls, each recorded in the client's history. */
    void step(ClientLoop client, Gateways.Gateway gateway) throws InterruptedException;

    /**
     * Judges the operations on one key (in invoke order) and adds to {@code out} what breaks a
     * property, the overlaps a lease-ending fault excused, and what it could not decide.
     */
    void check(String key, List<Op> ops, List<Fault> faults, Findings out);

    /** Before the clients start (on one client of each process): what the workload needs in the store first. */
    default void setUp(ClientLoop client, Gateways gateways) throws InterruptedException {}

    /**
     * After the clients end: reads of what they wrote, recorded as {@code final} operations. By
     * default a plain read of every item written.
     */
    default void finalReads(History history, Gateways gateways, String store) {
        Runner.finalItemReads(history, gateways, store);
    }

    default boolean counts(Op op) {
        return op.is(counted());
    }
}

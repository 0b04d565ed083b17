package io.fencegate.examples.slots;

import java.util.List;

/**
 * The run, step by step. Every step waits on what the workers say, never on a sleep: the freeze
 * lands between worker 0's read and write every time, and the thaw comes only once another worker
 * (the waiting one, as a rule) has taken the slot over and done jobs on it.
 */
final class Scenario {
    private static final long STEP_SECONDS = 60;

    /** The frozen worker's slot, the last job it read there, its token, and whether its late write was refused. */
    record Result(int slot, int jobRead, long frozenToken, boolean refused) {}

    private final List<WorkerProcess> workers;
    private final Events events;
    private final int slots;

    Scenario(List<WorkerProcess> workers, Events events, int slots) {
        this.workers = workers;
        this.events = events;
        this.slots = slots;
    }

    Result run() throws Exception {
        // Workers 0..slots-1 take every permit; only then does the last one start, and wait.
        for (int i = 0; i < slots; i++) {
            workers.get(i).start();
        }
        for (int i = 0; i < slots; i++) {
            WorkerProcess.Event slot = events.first(i, "SLOT", STEP_SECONDS);
            System.out.printf("  worker %d holds a permit: slot %s, token %s%n", i, slot.args()[0], slot.args()[1]);
        }
        WorkerProcess spare = workers.get(slots);
        spare.start();
        System.out.printf("  worker %d waits for a permit (all %d are held)%n", spare.id, slots);
        for (int slot = 0; slot < slots; slot++) {
            events.awaitDone(slot, SlotWorkersMain.JOBS_BEFORE, STEP_SECONDS);
        }

        WorkerProcess frozen = workers.get(0);
        frozen.hold();
        WorkerProcess.Event hold = events.first(frozen.id, "HOLD", STEP_SECONDS);
        int beforeFreeze = events.mark();
        frozen.freeze();
        int slot = Integer.parseInt(hold.args()[0]);
        int jobRead = Integer.parseInt(hold.args()[1]);
        long token = Long.parseLong(hold.args()[2]);
        System.out.printf("  worker 0 read %s (jobs 1..%d done) with token %d, and is frozen (SIGSTOP) before it writes job %d%n",
                Worker.partition(slot), jobRead, token, jobRead + 1);

        // The waiting worker, as a rule; on a loaded machine another worker may lose its own permit
        // (a missed renewal) and be the one that gets this slot: whoever takes it is the successor.
        WorkerProcess.Event takeover = events.awaitSince(beforeFreeze, "another worker to take slot " + slot, STEP_SECONDS,
                e -> e.kind().equals("SLOT") && e.actor() != frozen.id && Integer.parseInt(e.args()[0]) == slot);
        int successor = takeover.actor();
        WorkerProcess.Event done = events.awaitSince(beforeFreeze, "worker " + successor + " to do "
                        + SlotWorkersMain.JOBS_BEFORE + " jobs on slot " + slot, STEP_SECONDS,
                e -> e.actor() == successor && e.kind().equals("DONE") && Integer.parseInt(e.args()[0]) == slot
                        && Integer.parseInt(e.args()[1]) >= jobRead + SlotWorkersMain.JOBS_BEFORE);
        System.out.printf("  its permit expired; worker %d took slot %d over (token %s) and has done jobs %d..%s since%n",
                successor, slot, takeover.args()[1], jobRead + 1, done.args()[1]);

        int beforeThaw = events.mark();
        frozen.thaw();
        frozen.go();
        WorkerProcess.Event late = events.awaitSince(beforeThaw, "worker 0's late write", STEP_SECONDS,
                e -> e.actor() == frozen.id && (e.kind().equals("REFUSED") || e.kind().equals("DONE")));
        boolean refused = late.kind().equals("REFUSED");
        if (refused) {
            // REFUSED <slot> <job> <token> <fence> <current token>
            System.out.printf("  SIGCONT: worker 0 wrote job %s to %s with its old token: REFUSED (409 stale), nothing written%n"
                            + "    its token %s, the partition's fence %s (current token %s, worker %d's)%n",
                    late.args()[1], Worker.partition(slot), late.args()[2], late.args()[3], late.args()[4], successor);
        } else {
            System.out.printf("  SIGCONT: worker 0's late write of job %s to %s was APPLIED%n", late.args()[1],
                    Worker.partition(slot));
        }

        for (WorkerProcess w : workers) {
            w.stop();
        }
        for (WorkerProcess w : workers) {
            WorkerProcess.Event stopped = events.await("worker " + w.id + " to stop", STEP_SECONDS,
                    e -> e.actor() == w.id && e.kind().equals("STOPPED"));
            System.out.printf("  worker %d stopped: %s jobs done%n", w.id, stopped.args()[0]);
        }
        return new Result(slot, jobRead, token, refused);
    }
}

package io.fencegate.examples.slots;

import java.util.ArrayList;
import java.util.List;

/**
 * A slot's partition: the item {@code slot/<k>} of store {@link Worker#STORE}, one line per job
 * done, {@code job <n> worker <w> token <t>}. Each job is a read-modify-write of the whole item
 * (read the ledger, do job n+1, write the ledger with its line), so a write made from a stale read
 * would drop the lines written since: the ledger shows it as jobs missing or out of order.
 */
record Ledger(List<Entry> entries) {
    /** One job done: its number in the partition, the worker that did it, and that worker's token. */
    record Entry(int job, int worker, long token) {
        String line() {
            return "job " + job + " worker " + worker + " token " + token;
        }
    }

    static Ledger parse(String text) {
        List<Entry> entries = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split(" ");
            entries.add(new Entry(Integer.parseInt(f[1]), Integer.parseInt(f[3]), Long.parseLong(f[5])));
        }
        return new Ledger(List.copyOf(entries));
    }

    int lastJob() {
        return entries.isEmpty() ? 0 : entries.get(entries.size() - 1).job();
    }

    /** This ledger with job {@link #lastJob()} + 1 done by {@code worker} under {@code token}. */
    String withNextJob(int worker, long token) {
        StringBuilder text = new StringBuilder();
        entries.forEach(e -> text.append(e.line()).append('\n'));
        return text.append(new Entry(lastJob() + 1, worker, token).line()).append('\n').toString();
    }

    /**
     * Empty if the partition is intact: jobs 1..n, each once and in order, and the tokens never go
     * down (each holder of the slot wrote after the one before it, never in between); otherwise
     * what is wrong.
     */
    String problems() {
        List<String> problems = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (e.job() != i + 1) {
                problems.add("line " + (i + 1) + " is job " + e.job());
            }
            if (i > 0 && e.token() < entries.get(i - 1).token()) {
                problems.add("job " + e.job() + " has token " + e.token() + " below the job before it");
            }
        }
        return String.join("; ", problems);
    }

    /** Whether a job after {@code job} carries {@code token}: a write by a holder that read only up to {@code job}. */
    boolean hasJobAfter(int job, long token) {
        return entries.stream().anyMatch(e -> e.token() == token && e.job() > job);
    }

    /** {@code worker 0 (token 12) jobs 1-5, worker 2 (token 31) jobs 6-14}: who did what, in order. */
    String holders() {
        List<String> runs = new ArrayList<>();
        int start = 0;
        for (int i = 1; i <= entries.size(); i++) {
            if (i == entries.size() || entries.get(i).token() != entries.get(start).token()) {
                Entry first = entries.get(start);
                runs.add("worker " + first.worker() + " (token " + first.token() + ") jobs " + first.job() + "-"
                        + entries.get(i - 1).job());
                start = i;
            }
        }
        return String.join(", ", runs);
    }
}

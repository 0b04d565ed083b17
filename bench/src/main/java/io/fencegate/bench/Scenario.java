package io.fencegate.bench;

import java.util.ArrayList;
import java.util.List;

/**
 * One comparison: the same work at one concurrency, done by fencegate (the first contender) and
 * its baselines. Results hold one {@link Sample} per contender per repetition; repetitions
 * interleave the contenders, so a noisy neighbour hurts all of them alike.
 *
 * @param section   the report's section, e.g. "Leases: ZooKeeper"
 * @param title     what is measured, e.g. "uncontended (a lock per worker)"
 * @param unit      what one operation is, e.g. "acquire+release"
 */
public record Scenario(String section, String title, String unit, int concurrency, List<Contender> contenders,
                       List<List<Sample>> samples) {

    public Scenario(String section, String title, String unit, int concurrency, List<Contender> contenders) {
        this(section, title, unit, concurrency, List.copyOf(contenders), new ArrayList<>());
        for (int i = 0; i < contenders.size(); i++) {
            samples.add(new ArrayList<>());
        }
    }

    public Contender fencegate() {
        return contenders.get(0);
    }

    /** fencegate's throughput over contender {@code i}'s, one value per repetition (both ran in it). */
    public List<Double> ratios(int i) {
        return ratios(0, i);
    }

    /** Contender {@code i}'s throughput over contender {@code j}'s, one value per repetition. */
    public List<Double> ratios(int i, int j) {
        List<Double> out = new ArrayList<>();
        for (int r = 0; r < Math.min(samples.get(i).size(), samples.get(j).size()); r++) {
            out.add(samples.get(i).get(r).throughput() / samples.get(j).get(r).throughput());
        }
        return out;
    }

    /** The index of the contender whose name starts with {@code prefix}. */
    public int indexOf(String prefix) {
        for (int i = 0; i < contenders.size(); i++) {
            if (contenders.get(i).name().startsWith(prefix)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no contender '" + prefix + "' in " + section + " " + title);
    }
}

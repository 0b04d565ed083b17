package io.fencegate.check;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Every operation and every fault of a run, and what ran (the workload and control): written as
 * JSON, read back to merge processes' histories or to judge a saved one again.
 */
public final class History {
    /**
     * Fields it does not know are skipped, so a file written by a newer version (or a crafted one that
     * states its expected verdict beside the history) still reads.
     */
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final ConcurrentLinkedQueue<Op> ops = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Fault> faults = new ConcurrentLinkedQueue<>();
    private volatile String workload;
    private volatile String control;

    /**
     * The JSON file's shape. {@code workload} and {@code control} are labels, null in files written
     * before they were stored (then {@code --workload} must name it).
     */
    public record Data(String workload, String control, List<Op> ops, List<Fault> faults) {}

    /** Names what ran, so the file can be judged again on its own. */
    public History describe(String workloadLabel, String controlLabel) {
        this.workload = workloadLabel;
        this.control = controlLabel;
        return this;
    }

    public void add(Op op) {
        ops.add(op);
    }

    public void addFault(Fault fault) {
        faults.add(fault);
    }

    /** Adds another history's operations and faults; its description too, if this one has none. */
    public void addAll(Data data) {
        ops.addAll(data.ops());
        if (data.faults() != null) {
            faults.addAll(data.faults());
        }
        if (workload == null) {
            workload = data.workload();
            control = data.control();
        }
    }

    /** The workload's label, or null if the history does not say. */
    public String workload() {
        return workload;
    }

    /** The control's label, or null if the history does not say. */
    public String control() {
        return control;
    }

    /** Operations in invoke order. */
    public List<Op> ops() {
        List<Op> all = new ArrayList<>(ops);
        all.sort(Comparator.comparingLong(Op::invokeUs));
        return all;
    }

    public List<Fault> faults() {
        List<Fault> all = new ArrayList<>(faults);
        all.sort(Comparator.comparingLong(Fault::startUs));
        return all;
    }

    public void write(Path file) throws IOException {
        JSON.writeValue(file.toFile(), new Data(workload, control, ops(), faults()));
    }

    public static Data read(Path file) throws IOException {
        return JSON.readValue(file.toFile(), Data.class);
    }
}

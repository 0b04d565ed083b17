package io.fencegate.check;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/** Every operation and every fault of a run; written as JSON, read back to merge runs. */
public final class History {
    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final ConcurrentLinkedQueue<Op> ops = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Fault> faults = new ConcurrentLinkedQueue<>();

    /** The JSON file's shape. */
    public record Data(List<Op> ops, List<Fault> faults) {}

    public void add(Op op) {
        ops.add(op);
    }

    public void addFault(Fault fault) {
        faults.add(fault);
    }

    public void addAll(Data data) {
        ops.addAll(data.ops());
        faults.addAll(data.faults());
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
        JSON.writeValue(file.toFile(), new Data(ops(), faults()));
    }

    public static Data read(Path file) throws IOException {
        return JSON.readValue(file.toFile(), Data.class);
    }
}

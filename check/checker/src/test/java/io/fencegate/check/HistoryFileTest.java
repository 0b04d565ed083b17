package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Saved histories and summaries read back: what a run wrote judges the same later, old files still load. */
class HistoryFileTest {

    @Test
    void historyWrittenBeforeOperationsNamedTheirGatewayStillLoads(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("history.json");
        Files.writeString(file, """
                {"ops":[{"client":1,"f":"acquire","key":"m","token":5,"value":"1000","prior":0,"invokeUs":0,
                         "completeUs":1000,"outcome":"OK","note":""}],
                 "faults":[{"kind":"redis-flushall","startUs":10,"endUs":20,"detail":""}]}
                """);
        History.Data data = History.read(file);
        assertThat(data.workload()).isNull();
        assertThat(data.ops()).singleElement().satisfies(op -> {
            assertThat(op.gateway()).isNull();
            assertThat(op.token()).isEqualTo(5);
        });
        // a fault without its facts ends no lease: such a file is judged as if no fault ended one
        assertThat(data.faults()).singleElement().satisfies(f -> assertThat(f.endsLeases()).isFalse());
        // nor when it struck: its damage may have been done at any time in its window
        assertThat(data.faults()).singleElement().satisfies(f -> assertThat(f.struckUs()).isEqualTo(f.endUs()));
    }

    @Test
    void historyNamesItsWorkloadAndControl(@TempDir Path dir) throws Exception {
        History h = new History().describe("lock-set", "plain-reads");
        h.add(new Op(1, Op.WRITE, "s", 5, "c1-1", 0, 10, 20, Outcome.OK, "", "http://127.0.0.1:18081/"));
        h.write(dir.resolve("h.json"));
        History merged = new History();
        merged.addAll(History.read(dir.resolve("h.json")));
        assertThat(merged.workload()).isEqualTo("lock-set");
        assertThat(merged.control()).isEqualTo("plain-reads");
        assertThat(merged.ops()).singleElement().extracting(Op::gateway).isEqualTo("http://127.0.0.1:18081/");
    }

    @Test
    void operationOnSeveralItemsKeepsEachItemAndSingleItemOperationsWriteNoItems(@TempDir Path dir) throws Exception {
        History h = new History().describe("bank", "none");
        Map<String, Op.Item> items = new LinkedHashMap<>();
        items.put("b/bank-0", new Op.Item(7, "90 1-1 init", 3));
        items.put("b/bank-1", new Op.Item(8, "110 1-1 init", 4));
        h.add(new Op(1, Op.WRITE, "b/bank", 0, "1-1", 0, 10, 20, Outcome.OK, "", "http://127.0.0.1:18081/", items));
        h.add(new Op(1, Op.WRITE, "k", 5, "1", 0, 30, 40, Outcome.OK, "", "http://127.0.0.1:18081/"));
        h.write(dir.resolve("h.json"));
        History.Data read = History.read(dir.resolve("h.json"));
        assertThat(read.ops().get(0).items()).isEqualTo(items);
        assertThat(read.ops().get(1).items()).isNull();
        // a single-item operation is written as before the bank: no "items" field
        assertThat(Files.readString(dir.resolve("h.json")).split("\"items\"", -1)).hasSize(2);
    }

    @Test
    void leaseShapeIsKeptAndAWriteLeaseWritesNone(@TempDir Path dir) throws Exception {
        History h = new History().describe("rw", "none");
        String gw = "http://127.0.0.1:18081/";
        h.add(new Op(1, Op.ACQUIRE, "k", 5, "1000", 0, 10, 20, Outcome.OK, "", gw).withLease(Op.READ_MODE, null, null));
        h.add(new Op(2, Op.ACQUIRE, "s", 3, "1000", 0, 10, 20, Outcome.OK, "", gw).withLease(null, 1, 3));
        h.add(new Op(3, Op.ACQUIRE, "k", 6, "1000", 0, 30, 40, Outcome.OK, "", gw));
        h.write(dir.resolve("h.json"));
        History.Data read = History.read(dir.resolve("h.json"));
        assertThat(read.ops().get(0).readMode()).isTrue();
        assertThat(read.ops().get(1)).extracting(Op::mode, Op::slot, Op::permits).containsExactly(null, 1, 3);
        assertThat(read.ops().get(2)).extracting(Op::mode, Op::slot, Op::permits).containsExactly(null, null, null);
        // a write lease's operations are written as before read leases: no "mode", "slot" or "permits" field
        String json = Files.readString(dir.resolve("h.json"));
        assertThat(json.split("\"mode\"", -1)).hasSize(2);
        assertThat(json.split("\"slot\"", -1)).hasSize(2);
    }

    @Test
    void summaryJsonReadsBackAsTheSummaryItWas(@TempDir Path dir) throws Exception {
        History h = new History().describe("mutex", "none");
        h.add(new Op(1, Op.ACQUIRE, "m", 5, "1000", 0, 0, 1_000, Outcome.OK, "", "http://127.0.0.1:18081/"));
        h.add(new Op(1, Op.RELEASE, "m", 5, null, 0, 5_000, 6_000, Outcome.FAIL, "410 gone", "http://127.0.0.1:18081/"));
        h.addFault(new Fault("gateway-kill", 0, 2_000, "", "http://127.0.0.1:18081/", true));
        Verdict v = Checker.check(Workload.MUTEX, h.ops(), h.faults());
        Report.Summary s = Report.summarize(v, Control.NONE, h.ops(), h.faults());
        Report.write(dir, h, s);
        Report.Summary read = History.JSON.readValue(dir.resolve("summary.json").toFile(), Report.Summary.class);
        assertThat(read).isEqualTo(s);
        assertThat(read.releasesGone()).isEqualTo(1);
        assertThat(read.windows()).singleElement().satisfies(w -> assertThat(w.ops()).isEqualTo(1));
        assertThat(Files.readString(dir.resolve("timeline.html"))).contains("gateway-kill on http://127.0.0.1:18081/: 1 ops, 0 unknown");
    }

    @Test
    void summaryWrittenBeforeWindowsWereCountedStillLoads() throws Exception {
        String old = """
                {"workload":"counter","control":"none","exitCode":0,"verdict":"VALID: 0 violations","ops":1,"ok":1,"fail":0,
                 "unknown":0,"violationCount":0,"excusedOverlaps":0,"keys":[],"faults":[],"violations":[]}
                """;
        Report.Summary s = History.JSON.readValue(old, Report.Summary.class);
        assertThat(s.ok()).isEqualTo(1);
        assertThat(s.windows()).isEmpty();
        assertThat(Report.tables(s)).contains("VALID: 0 violations");
    }
}

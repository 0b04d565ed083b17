package io.fencegate.examples.shedlock;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import io.fencegate.shedlock.FencedJob;
import io.fencegate.store.jdbc.TokenColumnGuard;
import java.time.Duration;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.tools.jdbc.JDBCUtils;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The job: builds a report (here: waits {@code report.work}) and writes it to the one row of
 * {@code report}, guarded by the token column. Each instance writes one report, then only
 * takes part in the lock. A run whose lease was lost mid-work (this process paused past
 * {@code lockAtMostFor}) reaches its UPDATE with a token lower than the row's: 0 rows, refused.
 */
@Component
public class DailyReport {
    static final Table<Record> REPORT = table(name("report"));
    static final Field<Integer> ID = field(name("id"), Integer.class);
    static final Field<String> WRITER = field(name("writer"), String.class);
    static final Field<Long> TOKEN = field(name("token"), Long.class);

    private final DSLContext dsl;
    private final TokenColumnGuard guard;
    private final String instance;
    private final Duration work;
    private final boolean guarded;
    private volatile boolean written;

    public DailyReport(DataSource dataSource, TokenColumnGuard guard,
            @Value("${report.instance}") String instance, @Value("${report.work:3s}") Duration work,
            @Value("${report.guarded:true}") boolean guarded) throws Exception {
        try (var connection = dataSource.getConnection()) {
            this.dsl = DSL.using(dataSource, JDBCUtils.dialect(connection));
        }
        this.guard = guard;
        this.instance = instance;
        this.work = work;
        this.guarded = guarded; // false only for the test's control run: the write without its guard
    }

    /** The report row, created once by whichever instance starts first. */
    @EventListener(ApplicationReadyEvent.class)
    public void createTable() {
        dsl.createTableIfNotExists(REPORT).column(ID).column(WRITER, org.jooq.impl.SQLDataType.VARCHAR(64))
                .column(TOKEN, org.jooq.impl.SQLDataType.BIGINT.notNull()).primaryKey(ID).execute();
        dsl.insertInto(REPORT).set(ID, 1).set(WRITER, "nobody").set(TOKEN, 0L).onConflictDoNothing().execute();
        say("ready");
    }

    @Scheduled(initialDelay = 500, fixedDelayString = "${report.every:200ms}")
    @SchedulerLock(name = "daily-report", lockAtMostFor = "${report.lock-at-most-for:2s}")
    public void run() throws InterruptedException {
        if (written) {
            return;
        }
        long token = FencedJob.token();
        say("started token=" + token);
        Thread.sleep(work.toMillis()); // building the report
        int rows = dsl.update(REPORT)
                .set(WRITER, instance)
                .set(guard.advanceTo(token))
                .where(ID.eq(1))
                .and(guarded ? guard.admits(token) : DSL.trueCondition())
                .execute();
        written = true;
        say("write token=" + token + " applied=" + (rows == 1) + " lost=" + FencedJob.lease().orElseThrow().isLost());
    }

    private void say(String what) {
        System.out.println("REPORT instance=" + instance + " " + what);
        System.out.flush();
    }
}

package io.fencegate.bench;

import static io.fencegate.bench.WriteBenchData.VALUE;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.fencegate.store.Applied;
import io.fencegate.store.GuardRule;
import io.fencegate.store.files.AtomicFiles;
import io.fencegate.store.files.FilesGuardedStore;
import io.fencegate.store.files.FilesStoreOptions;
import io.fencegate.store.jdbc.TokenColumnGuard;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.SQLDialect;
import org.jooq.Table;
import org.jooq.impl.DSL;
import org.jooq.impl.SQLDataType;

/**
 * fencegate as a library, without the gateway: a token-guarded jOOQ update ({@code TokenColumnGuard})
 * against the plain jOOQ update of the same row on Postgres; the files store's guarded write against
 * a plain crash-atomic write ({@link AtomicFiles#replace}: temp file, fsync, rename, fsync of the
 * directory; the store's own write, minus the guard and the item lock).
 */
final class LibraryWrites implements AutoCloseable {
    static final String JDBC = "Library: JDBC (jOOQ, Postgres)";
    static final String FILES = "Library: files";
    private static final int ROWS = 1000;
    private final String schema = WriteBenchData.freshNamespace();
    private final HikariDataSource pool;
    private final DSLContext dsl;
    private final Table<Record> rows = table(name(schema, "bench_row"));
    private final Field<Integer> id = field(name("id"), SQLDataType.INTEGER);
    private final Field<byte[]> val = field(name("val"), SQLDataType.BLOB);
    private final Field<Long> token = field(name("token"), SQLDataType.BIGINT);
    private final Field<Long> fence = field(name("fence"), SQLDataType.BIGINT);
    private final Path filesRoot;
    private final Path plainRoot;
    private final FilesGuardedStore files;

    LibraryWrites(Path workDir) throws IOException {
        HikariConfig hikari = new HikariConfig();
        hikari.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/test");
        hikari.setUsername("postgres");
        hikari.setMaximumPoolSize(16);
        pool = new HikariDataSource(hikari);
        dsl = DSL.using(pool, SQLDialect.POSTGRES);
        dsl.execute("CREATE SCHEMA " + schema);
        dsl.execute("CREATE TABLE " + schema + ".bench_row (id INT PRIMARY KEY, val BYTEA, token BIGINT NOT NULL, fence BIGINT NOT NULL)");
        dsl.execute("INSERT INTO " + schema + ".bench_row SELECT g, NULL, 0, 0 FROM generate_series(1, " + ROWS + ") g");
        filesRoot = Files.createDirectories(workDir.resolve("files-guarded"));
        plainRoot = Files.createDirectories(workDir.resolve("files-plain"));
        files = FilesGuardedStore.open(new FilesStoreOptions().root(filesRoot).name("bench").rule(GuardRule.SAME_LEASE));
    }

    List<Scenario> scenarios() {
        long t = 1; // same-lease: one token writes every row many times, the guard still checks each
        TokenColumnGuard guard = TokenColumnGuard.of(token, fence, GuardRule.SAME_LEASE);
        List<Contender> jdbc = List.of(
                new BlockingContender("fencegate TokenColumnGuard: guarded jOOQ update") {
                    @Override
                    protected void op(int worker, int concurrency) {
                        int n = dsl.update(rows).set(val, VALUE).set(guard.advanceTo(t))
                                .where(id.eq(row())).and(guard.admits(t)).execute();
                        if (n != 1) {
                            throw new IllegalStateException("guarded update changed " + n + " rows");
                        }
                    }
                },
                new BlockingContender("plain jOOQ update") {
                    @Override
                    protected void op(int worker, int concurrency) {
                        dsl.update(rows).set(val, VALUE).set(token, t).where(id.eq(row())).execute();
                    }
                });
        List<Contender> file = List.of(
                new BlockingContender("fencegate FilesGuardedStore.write") {
                    @Override
                    protected void op(int worker, int concurrency) throws Exception {
                        Object r = files.write("k" + row(), t, VALUE).toCompletableFuture().get(60, TimeUnit.SECONDS);
                        if (!(r instanceof Applied)) {
                            throw new IllegalStateException("not applied: " + r);
                        }
                    }
                },
                new BlockingContender("plain atomic write (temp, fsync, rename, fsync dir)") {
                    @Override
                    protected void op(int worker, int concurrency) throws IOException {
                        AtomicFiles.replace(plainRoot, plainRoot.resolve("k" + row()), VALUE);
                    }
                });
        return List.of(
                new Scenario(JDBC, "threads", "update", 1, jdbc),
                new Scenario(JDBC, "threads", "update", 16, jdbc),
                new Scenario(FILES, "threads", "write", 1, file),
                new Scenario(FILES, "threads", "write", 16, file));
    }

    private static int row() {
        return ThreadLocalRandom.current().nextInt(1, ROWS + 1);
    }

    @Override
    public void close() {
        files.close();
        dsl.execute("DROP SCHEMA " + schema + " CASCADE");
        pool.close();
    }
}

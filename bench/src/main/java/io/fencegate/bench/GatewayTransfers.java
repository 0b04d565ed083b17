package io.fencegate.bench;

import static io.fencegate.bench.WriteBenchData.VALUE;

import io.fencegate.client.FencegateClient;
import io.fencegate.client.Lease;
import io.fencegate.store.sql.PostgresGuardSql;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.WebClient;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A transfer between two accounts through the gateway: one {@code POST /v1/stores/bank/transactions}
 * that writes two items, each with the token of its own lock ({@code bank/acct-N}, one lease per
 * account held for the run), against pgbench running the same two guarded writes in one database
 * transaction, and pgbench running the statements the gateway's transaction itself sends (lock both
 * rows, then advance both). The store {@code bank} is the reactive Postgres store, {@code same-lease},
 * so a lease's token writes its account again and again. pgbench writes accounts of its own
 * ({@code pacct-N}) in the same table, always the lower number first, as the gateway locks in key
 * order: neither deadlocks.
 */
final class GatewayTransfers {
    static final String SECTION = "Two-item transfer: gateway transaction on Postgres";
    static final String GATEWAY = "fencegate gateway, one transaction request (Vert.x WebClient)";
    static final String SAME_STATEMENTS = "pgbench, the same two guarded statements in one transaction";
    static final String GATEWAY_STATEMENTS = "pgbench, the gateway's own statements (lock both rows, advance both)";
    static final String STORE = "bank";
    static final int ACCOUNTS = 256;

    private final WebClient web;
    private final int port;
    private final Path workDir;
    private final String schema;
    private final long[] tokens = new long[ACCOUNTS + 1];

    /** Takes a lease on every account through {@code client}, then writes every account once. */
    GatewayTransfers(FencegateClient client, WebClient web, int port, Path workDir, String schema) throws Exception {
        this.web = web;
        this.port = port;
        this.workDir = workDir;
        this.schema = schema;
        List<CompletableFuture<java.util.Optional<Lease>>> leases = new ArrayList<>();
        for (int i = 1; i <= ACCOUNTS; i++) {
            leases.add(client.acquireAsync(STORE + "/" + account(i), Duration.ofHours(1), Duration.ofSeconds(30)));
        }
        for (int i = 1; i <= ACCOUNTS; i++) {
            tokens[i] = leases.get(i - 1).join().orElseThrow(() -> new IllegalStateException("no lease on an account")).token();
        }
        // Every account's row exists before anything is measured (a transaction's first write creates it).
        for (int i = 1; i < ACCOUNTS; i += 2) {
            transfer(i, i + 1).toCompletableFuture().join();
        }
        try (Connection pg = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "");
             Statement s = pg.createStatement()) {
            s.execute("INSERT INTO " + schema + ".fencegate_item (resource, val, token, fence, previous_token)"
                    + " SELECT 'pacct-' || g, NULL, 0, 0, 0 FROM generate_series(1, " + ACCOUNTS + ") g");
        }
    }

    private static String account(int n) {
        return "acct-" + n;
    }

    List<Scenario> scenarios() throws Exception {
        // Any token passes on pgbench's own rows (same-lease: fence <= token): the gateway's lease tokens are not shared.
        String token = Long.toString(tokens[1]);
        String valueHex = "'\\x" + HexFormat.of().formatHex(VALUE) + "'";
        String pick = "\\set a random(1, " + ACCOUNTS + ")\n"
                + "\\set d random(1, " + (ACCOUNTS - 1) + ")\n"
                + "\\set b 1 + (:a - 1 + :d) % " + ACCOUNTS + "\n"
                + "\\set lo least(:a, :b)\n"
                + "\\set hi greatest(:a, :b)\n";
        String write = PostgresGuardSql.write(false).replace("$2", valueHex).replace("$3", token);
        String same = pick + "BEGIN;\n"
                + write.replace("$1", "('pacct-' || :lo)") + ";\n"
                + write.replace("$1", "('pacct-' || :hi)") + ";\n"
                + "END;\n";
        String lock = PostgresGuardSql.LOCK_ITEM;
        String advance = PostgresGuardSql.ADVANCE_ITEM.replace("$2", valueHex).replace("$3", token);
        String own = pick + "BEGIN;\n"
                + lock.replace("$1", "('pacct-' || :lo)") + ";\n"
                + lock.replace("$1", "('pacct-' || :hi)") + ";\n"
                + advance.replace("$1", "('pacct-' || :lo)") + ";\n"
                + advance.replace("$1", "('pacct-' || :hi)") + ";\n"
                + "END;\n";
        List<Contender> contenders = List.of(
                new AsyncContender(GATEWAY) {
                    @Override
                    protected CompletionStage<?> op(int slot) {
                        ThreadLocalRandom random = ThreadLocalRandom.current();
                        int a = random.nextInt(1, ACCOUNTS + 1);
                        int b = 1 + (a - 1 + random.nextInt(1, ACCOUNTS)) % ACCOUNTS;
                        return transfer(a, b);
                    }
                },
                new Pgbench(SAME_STATEMENTS, workDir, "transfer-same", same, schema),
                new Pgbench(GATEWAY_STATEMENTS, workDir, "transfer-own", own, schema));
        return List.of(new Scenario(SECTION, "in flight", "transfer (2 guarded writes, one transaction)", 16, contenders));
    }

    /** One transaction request: accounts {@code a} and {@code b}, each with its own lease's token. */
    private CompletionStage<?> transfer(int a, int b) {
        String value = Base64.getEncoder().encodeToString(VALUE);
        JsonArray ops = new JsonArray()
                .add(new JsonObject().put("op", "put").put("key", account(a)).put("token", tokens[a]).put("valueBase64", value))
                .add(new JsonObject().put("op", "put").put("key", account(b)).put("token", tokens[b]).put("valueBase64", value));
        return web.post(port, "127.0.0.1", "/v1/stores/" + STORE + "/transactions")
                .putHeader("Content-Type", "application/json")
                .sendBuffer(Buffer.buffer(new JsonObject().put("ops", ops).encode()))
                .toCompletionStage()
                .thenCompose(response -> response.statusCode() == 200
                        ? CompletableFuture.completedFuture(response)
                        : CompletableFuture.failedFuture(new IllegalStateException(
                                "transaction answered " + response.statusCode() + ": " + response.bodyAsString())));
    }
}

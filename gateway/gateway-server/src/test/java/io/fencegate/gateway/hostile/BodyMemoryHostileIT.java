package io.fencegate.gateway.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

/**
 * Key a sends bodies slowly, a byte every 2 s, to hold the gateway's memory or its body budget
 * while key b works. Each vector runs through {@link HostileTenantTestBase#assertKeyBUnharmedBy}.
 */
@Timeout(120)
class BodyMemoryHostileIT extends HostileTenantTestBase {
    private static final long TRICKLE_MS = 2000;

    /** A PUT's head with key a's lease, so that its grant check passes. */
    private static String putHead(Tenant a, Tenant.Lease lease, String framing) {
        return "PUT " + Tenant.itemPath("main", "a/x") + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                + a.apiKey + "\r\nFencing-Token: " + lease.token() + "\r\n" + framing;
    }

    /** 160 connections declare bodies just under 1 MiB, outside the body budget, and send a byte every 2 s. */
    @Test
    void declaredBodiesJustUnderOneMibDoNotExhaustTheHeap(TestInfo test) throws Exception {
        assertKeyBUnharmedBy(test, (a, gateway) -> {
            Tenant.Lease lease = a.acquire("main/a/x", 60_000);
            Trickle trickle = Trickle.open(gateway.uri, 160, putHead(a, lease, "Content-Length: 1048575"), false, TRICKLE_MS);
            Thread.sleep(1500); // the grant checks pass and the bodies are admitted
            return trickle;
        });
    }

    /**
     * Two chunked PUTs and two that declare 8 MiB trickle a byte every 2 s: an admitted body's budget
     * must not be held for ever, nor one key's bodies take the whole budget.
     */
    @Test
    void trickledBodiesDoNotHoldTheBodyBudget(TestInfo test) throws Exception {
        assertKeyBUnharmedBy(test, (a, gateway) -> {
            Tenant.Lease lease = a.acquire("main/a/x", 60_000);
            Trickle chunked = Trickle.open(gateway.uri, 2, putHead(a, lease, "Transfer-Encoding: chunked"), true, TRICKLE_MS);
            Trickle declared = Trickle.open(gateway.uri, 2, putHead(a, lease, "Content-Length: " + (8 << 20)), false, TRICKLE_MS);
            Thread.sleep(1500);
            return () -> {
                chunked.close();
                declared.close();
            };
        });
    }

    /**
     * A key that may use no lock of the store, with a token it was never granted, opens 32 chunked
     * statement POSTs: it must be refused before its body is read, budgeted or invited
     * ({@code 100 Continue}).
     */
    @Test
    void statementBodiesAreNotReadBeforeTheForbiddenCheck(TestInfo test) throws Exception {
        AtomicReference<Trickle> opened = new AtomicReference<>();
        assertKeyBUnharmedBy(test, (a, gateway) -> {
            String head = "POST /v1/stores/main/statements/touch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer "
                    + HostileGateway.KEY_NO_ITEMS + "\r\nFencing-Token: 999999\r\nExpect: 100-continue\r\nTransfer-Encoding: chunked";
            Trickle trickle = Trickle.open(gateway.uri, 32, head, true, TRICKLE_MS);
            opened.set(trickle);
            Thread.sleep(1500);
            return trickle;
        });
        assertThat(opened.get().answers()).as("answers to key a's statement POSTs")
                .noneMatch(answer -> answer.contains(" 100 Continue"));
    }
}

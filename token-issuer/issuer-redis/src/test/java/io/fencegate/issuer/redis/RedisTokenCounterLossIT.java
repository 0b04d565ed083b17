package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The counter-loss contract with one mark file shared by both issuers (one host). */
class RedisTokenCounterLossIT extends TokenCounterLossContract {

    private Path markFile() {
        return dir.resolve("marks/tokens.mark");
    }

    @Override
    TokenHighWaterMark newMark() {
        return new FileTokenHighWaterMark(markFile());
    }

    @Override
    void loseMark() throws Exception {
        Files.delete(markFile());
    }

    /**
     * Two issuers on one key prefix, each with a mark file of its own (two hosts, a
     * misconfiguration): with a mark each, the one that restores a flushed counter would know only
     * its own reservations and hand out tokens the other already gave. Redis records which mark
     * covers its counter, so the second mark is refused at start, naming the key to delete to
     * change marks on purpose.
     */
    @Test
    void aSecondMarkFileOnOnePrefixIsRefusedSoAFlushedCounterNeverRestartsBelowTheFirstMarksTokens() throws Exception {
        assertThat(server.command("FLUSHALL")).isEqualTo("+OK"); // forget the contract's own issuers' mark
        List<Long> before = new ArrayList<>();
        try (RedisLeaseIssuer busy = newIssuer(new FileTokenHighWaterMark(dir.resolve("host-a/tokens.mark")))) {
            for (int i = 0; i < 30; i++) {
                before.add(grant(busy, "orders/1"));
            }
            assertThatThrownBy(() -> newIssuer(new FileTokenHighWaterMark(dir.resolve("host-b/tokens.mark"))).close())
                    .isInstanceOf(ForeignMarkException.class)
                    .hasMessageContaining("key prefix '" + PREFIX + "': its token counter is covered by another high-water mark")
                    .hasMessageContaining("FileTokenHighWaterMark[" + dir.resolve("host-b/tokens.mark").toRealPath() + "]")
                    .hasMessageContaining("delete the key " + PREFIX + "token-mark");
            assertThat(server.command("FLUSHALL")).isEqualTo("+OK");
            // After the flush Redis remembers no mark: the first issuer to restore the counter records
            // its own again, so the other is still refused.
            before.add(grant(busy, "orders/1"));
            assertThatThrownBy(() -> newIssuer(new FileTokenHighWaterMark(dir.resolve("host-b/tokens.mark"))).close())
                    .isInstanceOf(ForeignMarkException.class);
        }
        long max = Collections.max(before);
        // A copy of the mark is the same mark: how a mark moves to another host.
        Files.createDirectories(dir.resolve("host-c"));
        Files.copy(dir.resolve("host-a/tokens.mark"), dir.resolve("host-c/tokens.mark"));
        try (RedisLeaseIssuer moved = newIssuer(new FileTokenHighWaterMark(dir.resolve("host-c/tokens.mark")))) {
            assertThat(grant(moved, "orders/1")).isGreaterThan(max);
        }
    }

    /**
     * An operator who really means to give the prefix a new mark deletes the recorded identity:
     * the new mark is raised above Redis's counter before it is recorded, so it covers every
     * token, also after Redis loses its counter right away.
     */
    @Test
    void aNewMarkAfterTheRecordIsDeletedStartsAboveRedissCounter() throws Exception {
        assertThat(server.command("FLUSHALL")).isEqualTo("+OK"); // forget the contract's own issuers' mark
        long max = 0;
        try (RedisLeaseIssuer old = newIssuer(new FileTokenHighWaterMark(dir.resolve("old/tokens.mark")))) {
            for (int i = 0; i < 10; i++) {
                max = Math.max(max, grant(old, "orders/1"));
            }
        }
        assertThat(server.command("DEL " + PREFIX + "token-mark")).isEqualTo(":1");
        try (RedisLeaseIssuer renewed = newIssuer(new FileTokenHighWaterMark(dir.resolve("new/tokens.mark")))) {
            assertThat(server.command("FLUSHALL")).isEqualTo("+OK");
            assertThat(grant(renewed, "orders/1")).isGreaterThan(max);
        }
    }
}

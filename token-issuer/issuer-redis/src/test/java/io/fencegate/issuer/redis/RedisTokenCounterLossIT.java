package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
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
     * Why issuers on several hosts need one shared mark ({@link JdbcTokenHighWaterMark}): with a
     * mark file each, the issuer that restores a flushed counter knows only its own reservations,
     * and hands out a token that another issuer already gave.
     */
    @Test
    void separateMarkFilesDoNotCoverEachOthersTokens() throws Exception {
        try (RedisLeaseIssuer busy = newIssuer(new FileTokenHighWaterMark(dir.resolve("host-a/tokens.mark")));
                RedisLeaseIssuer idle = newIssuer(new FileTokenHighWaterMark(dir.resolve("host-b/tokens.mark")))) {
            List<Long> before = new ArrayList<>();
            before.add(grant(idle, "orders/1"));
            for (int i = 0; i < 30; i++) {
                before.add(grant(busy, "orders/1"));
            }
            assertThat(server.command("FLUSHALL")).isEqualTo("+OK");
            long afterLoss = grant(idle, "orders/1");
            assertThat(afterLoss).as("a token at or below one already granted: fencing is broken")
                    .isLessThanOrEqualTo(before.stream().mapToLong(Long::longValue).max().orElseThrow());
        }
    }
}

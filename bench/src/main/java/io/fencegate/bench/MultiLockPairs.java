package io.fencegate.bench;

import io.fencegate.issuer.Lease;
import io.fencegate.issuer.LeaseGroup;
import io.fencegate.issuer.LeaseIssuer;
import io.fencegate.issuer.MultiLock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Two locks held together, on one issuer: {@link MultiLock} (a group of 2: both acquired in one
 * canonical order, both released at once) against what a caller writes without it, two single
 * acquires in sequence and the two releases in sequence. Same issuer, same two locks a slot, in
 * flight (every issuer's API is asynchronous), uncontended: the cost of the group itself.
 */
final class MultiLockPairs {
    static final String SECTION = "MultiLock: a group of 2 vs two acquires in sequence";
    static final String GROUP = "MultiLock of 2 (acquire the group, release the group)";
    static final String SINGLES = "two single acquires in sequence, then two releases";
    private static final Duration TTL = Duration.ofSeconds(60);

    private MultiLockPairs() {}

    /** At 1 and 16 in flight; {@code issuerName} titles the scenarios ("ZooKeeper (zxid)"). */
    static List<Scenario> scenarios(String issuerName, LeaseIssuer issuer) {
        List<Contender> contenders = List.of(group(issuer), singles(issuer));
        String unit = "2 locks acquired+released";
        return List.of(
                new Scenario(SECTION, title(issuerName), unit, 1, contenders),
                new Scenario(SECTION, title(issuerName), unit, 16, contenders));
    }

    static String title(String issuerName) {
        return issuerName + ", in flight";
    }

    private static AsyncContender group(LeaseIssuer issuer) {
        MultiLock multi = new MultiLock(issuer);
        return new AsyncContender(GROUP) {
            @Override
            protected CompletionStage<?> op(int slot) {
                return multi.acquire(List.of("m" + slot + "-a", "m" + slot + "-b"), TTL, Duration.ZERO)
                        .thenCompose(group -> multi.release(held(group, slot)));
            }
        };
    }

    private static AsyncContender singles(LeaseIssuer issuer) {
        return new AsyncContender(SINGLES) {
            @Override
            protected CompletionStage<?> op(int slot) {
                String a = "s" + slot + "-a";
                String b = "s" + slot + "-b";
                return issuer.acquire(a, TTL, Duration.ZERO).thenCompose(first -> issuer.acquire(b, TTL, Duration.ZERO)
                        .thenCompose(second -> issuer.release(held(second, b).leaseId()))
                        .thenCompose(released -> issuer.release(held(first, a).leaseId())));
            }
        };
    }

    private static LeaseGroup held(Optional<LeaseGroup> group, int slot) {
        return group.orElseThrow(() -> new IllegalStateException(GROUP + ": slot " + slot + "'s locks were held"));
    }

    private static Lease held(Optional<Lease> lease, String lock) {
        return lease.orElseThrow(() -> new IllegalStateException(SINGLES + ": " + lock + " was held"));
    }
}

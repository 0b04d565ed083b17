package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.fencegate.issuer.backend.LeaseIdFormat;
import org.junit.jupiter.api.Test;

class LeaseIdsTest {

    @Test
    void leaseIdCarriesLockAndSecretAndParsesBack() {
        String secret = LeaseIdFormat.newSecret();
        String id = LeaseIds.FORMAT.format("orders/2026:é x", secret);
        assertThat(LeaseIds.parse(id)).contains(new LeaseIds.Parsed("orders/2026:é x", secret));
    }

    @Test
    void readLeaseAndPermitIdsSayTheirKindAndAPermitsSlot() {
        String secret = LeaseIdFormat.newSecret();
        assertThat(LeaseIds.parse(LeaseIds.format(LeaseIds.Kind.READ, "orders/1", secret)))
                .contains(new LeaseIds.Parsed("orders/1", secret, LeaseIds.Kind.READ));
        LeaseIds.Parsed permit = LeaseIds.parse(LeaseIds.format(LeaseIds.Kind.PERMIT, "pools/a/12", secret)).orElseThrow();
        assertThat(permit.kind()).isEqualTo(LeaseIds.Kind.PERMIT);
        assertThat(permit.slot()).isEqualTo(12);
        assertThat(permit.semaphore()).isEqualTo("pools/a");
        for (String notASlotLock : new String[] {"pool", "pool/", "/1", "pool/01", "pool/1000", "pool/x"}) {
            assertThat(LeaseIds.parse(LeaseIds.PERMIT_FORMAT.format(notASlotLock, secret))).as(notASlotLock).isEmpty();
        }
    }

    @Test
    void secretsAreRandomAnd128Bits() {
        String a = LeaseIdFormat.newSecret();
        assertThat(a).hasSize(32).matches("[0-9a-f]+").isNotEqualTo(LeaseIdFormat.newSecret());
    }

    @Test
    void garbageLeaseIdsAreRefused() {
        String secret = LeaseIdFormat.newSecret();
        String good = LeaseIds.FORMAT.format("lock", secret);
        for (String bad : new String[] {null, "", "x", "rl1..", "rl1.bG9jaw." + secret.substring(1),
                "rl2" + good.substring(3), good + ".x", good.toUpperCase(), "rl1.bG9jaw=." + secret,
                "rl1.!!!!." + secret, good.replace(secret, "g" + secret.substring(1))}) {
            assertThat(LeaseIds.parse(bad)).as(String.valueOf(bad)).isEmpty();
        }
    }
}

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

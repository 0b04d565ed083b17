package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LeaseIdsTest {

    @Test
    void leaseIdCarriesLockAndSecretAndParsesBack() {
        String secret = LeaseIds.newSecret();
        String id = LeaseIds.format("orders/2026:é x", secret);
        assertThat(LeaseIds.parse(id)).contains(new LeaseIds.Parsed("orders/2026:é x", secret));
    }

    @Test
    void secretsAreRandomAnd128Bits() {
        String a = LeaseIds.newSecret();
        assertThat(a).hasSize(32).matches("[0-9a-f]+").isNotEqualTo(LeaseIds.newSecret());
    }

    @Test
    void garbageLeaseIdsAreRefused() {
        String secret = LeaseIds.newSecret();
        String good = LeaseIds.format("lock", secret);
        for (String bad : new String[] {null, "", "x", "rl1..", "rl1.bG9jaw." + secret.substring(1),
                "rl2" + good.substring(3), good + ".x", good.toUpperCase(), "rl1.bG9jaw=." + secret,
                "rl1.!!!!." + secret, good.replace(secret, "g" + secret.substring(1))}) {
            assertThat(LeaseIds.parse(bad)).as(String.valueOf(bad)).isEmpty();
        }
    }
}

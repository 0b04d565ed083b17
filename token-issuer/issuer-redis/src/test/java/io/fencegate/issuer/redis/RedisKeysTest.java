package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The key names are a data format in Redis: issuers of different versions on one prefix must agree on them. */
class RedisKeysTest {

    @Test
    void keyNamesStayByteIdenticalToTheStoredFormat() {
        RedisKeys keys = new RedisKeys("fg:");
        assertThat(keys.lock("orders/a:b")).isEqualTo("fg:lock:orders/a:b");
        assertThat(keys.delay("orders/a:b")).isEqualTo("fg:delay:orders/a:b");
        assertThat(keys.waiters("orders/a:b")).isEqualTo("fg:waiters:orders/a:b");
        assertThat(keys.grants("orders/a:b")).isEqualTo("fg:grants:orders/a:b");
        assertThat(keys.readers("orders/a:b")).isEqualTo("fg:readers:orders/a:b");
        assertThat(keys.permits("pools/a")).isEqualTo("fg:permits:pools/a");
        assertThat(keys.permitWaiters("pools/a")).isEqualTo("fg:permit-waiters:pools/a");
        assertThat(keys.released("0123abcd")).isEqualTo("fg:released:0123abcd");
        assertThat(keys.live()).isEqualTo("fg:leases");
        assertThat(keys.holders()).isEqualTo("fg:holders");
        assertThat(keys.counter()).isEqualTo("fg:token-counter");
        assertThat(keys.ceiling()).isEqualTo("fg:token-ceiling");
        assertThat(keys.run()).isEqualTo("fg:token-run");
        assertThat(keys.mark()).isEqualTo("fg:token-mark");
        assertThat(keys.releaseChannel()).isEqualTo("fg:released");
    }
}

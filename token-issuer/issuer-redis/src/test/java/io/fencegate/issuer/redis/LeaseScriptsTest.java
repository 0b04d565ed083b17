package io.fencegate.issuer.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The scripts come from their .lua resources: code only, their comment headers are not sent. */
class LeaseScriptsTest {

    @Test
    void aScriptIsLoadedWithoutItsHeaderFromItsFirstLineOfCode() {
        for (String name : new String[] {"run", "acquire", "renew", "release", "check", "find", "list", "raise-ceiling", "reinit", "claim-mark",
                "token", "read-acquire", "read-renew", "read-release", "read-find", "permit", "expiry-margin", "lease-clock", "clock",
                "clock-repair"}) {
            String text = LeaseScripts.lua(name);
            assertThat(text).as(name).isNotBlank().doesNotStartWith("--").doesNotStartWith("\n").endsWith("\n")
                    .doesNotContain("\n-- KEYS");
        }
        assertThat(LeaseScripts.renew.text()).as("a script that judges the run has run.lua and expiry-margin.lua in front")
                .startsWith(LeaseScripts.lua("run") + LeaseScripts.lua("expiry-margin")).endsWith(LeaseScripts.lua("renew"));
        assertThat(LeaseScripts.permit.text()).as("a granting script has lease-clock.lua in front too")
                .startsWith(LeaseScripts.lua("run") + LeaseScripts.lua("expiry-margin") + LeaseScripts.lua("token")
                        + LeaseScripts.lua("lease-clock"))
                .endsWith(LeaseScripts.lua("permit"));
        assertThat(LeaseScripts.list.text()).as("the listing subtracts the margin").startsWith(LeaseScripts.lua("expiry-margin"));
        assertThat(LeaseScripts.armedAcquire("n1")).contains("local armed = true -- copy n1\n");
        assertThat(LeaseScripts.armedPermit("n2")).contains("local armed = true -- copy n2\n")
                .isNotEqualTo(LeaseScripts.permit.text());
    }

    @Test
    void aMissingScriptIsAClearError() {
        assertThatThrownBy(() -> LeaseScripts.lua("no-such-script")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("lua/no-such-script.lua");
    }
}

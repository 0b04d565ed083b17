package io.fencegate.check;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Locale;
import org.junit.jupiter.api.Test;

class OptionEnumsTest {

    @Test
    void everyLabelAndAliasParsesInAnyCase() {
        for (Workload w : Workload.values()) {
            assertThat(Workload.parse(w.label().toUpperCase(Locale.ROOT))).isEqualTo(w);
        }
        for (Control c : Control.values()) {
            assertThat(Control.parse(c.label())).isEqualTo(c);
        }
        assertThat(Workload.LOCK_SET.label()).isEqualTo("lock-set");
        assertThat(Workload.parse("lockset")).isEqualTo(Workload.LOCK_SET);
        assertThat(Workload.parse("set")).isEqualTo(Workload.LOCK_SET);
        assertThat(Workload.parse("Fenced-Mutex")).isEqualTo(Workload.MUTEX);
    }

    @Test
    void anUnknownNameIsRefusedNamingTheOptionAndWhatItTakes() {
        assertThatThrownBy(() -> Workload.parse("queue")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--workload: expected counter, lock-set, mutex, bank, rw or semaphore, got 'queue'");
        assertThatThrownBy(() -> Control.parse("plain_reads")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--control: expected none, plain-reads, bypass-guard or over-grant, got 'plain_reads'");
    }
}

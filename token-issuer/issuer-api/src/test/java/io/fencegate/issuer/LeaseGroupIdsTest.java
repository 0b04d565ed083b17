package io.fencegate.issuer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class LeaseGroupIdsTest {

    @Test
    void aGroupIdCarriesItsMembersInOrderAndReadsBack() {
        List<String> members = List.of("zk1.L2Zvbw.0123456789abcdef0123456789abcdef", "rl1.YQ.00000000000000000000000000000000");
        String id = LeaseGroupIds.format(members);
        assertThat(id).startsWith(LeaseGroupIds.PREFIX);
        assertThat(LeaseGroupIds.isGroupId(id)).isTrue();
        assertThat(LeaseGroupIds.parse(id)).contains(members);
        assertThat(LeaseGroupIds.isGroupId(members.get(0))).as("a lease id is no group id").isFalse();
    }

    @Test
    void malformedGroupIdsNameNoGroup() {
        assertThat(LeaseGroupIds.parse(null)).isEmpty();
        assertThat(LeaseGroupIds.parse("zk1.abc.def")).isEmpty();
        assertThat(LeaseGroupIds.parse("lg1~")).isEmpty();
        assertThat(LeaseGroupIds.parse("lg1~a~~b")).isEmpty();
        assertThat(LeaseGroupIds.parse("lg1~a~b~")).isEmpty();
        assertThat(LeaseGroupIds.parse("lg1~a~b~a")).as("a duplicate").isEmpty();
        assertThat(LeaseGroupIds.parse("lg1~" + "m~".repeat(MultiLock.MAX_LOCKS) + "last")).as("too many").isEmpty();
    }

    @Test
    void membersThatCannotTravelInAGroupIdAreRefused() {
        assertThatThrownBy(() -> LeaseGroupIds.format(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LeaseGroupIds.format(List.of("a~b"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LeaseGroupIds.format(List.of("a", "a"))).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aGroupAnswersEachLocksTokenAndItsEarliestExpiry() {
        LeaseGroup group = new LeaseGroup(List.of(new Lease("a", "id-a", 7, 2000), new Lease("b", "id-b", 3, 1000)));
        assertThat(group.token("a")).isEqualTo(7);
        assertThat(group.token("b")).isEqualTo(3);
        assertThat(group.expiresAt()).isEqualTo(1000);
        assertThat(group.id()).isEqualTo("lg1~id-a~id-b");
        assertThatThrownBy(() -> group.token("c")).isInstanceOf(IllegalArgumentException.class);
    }
}

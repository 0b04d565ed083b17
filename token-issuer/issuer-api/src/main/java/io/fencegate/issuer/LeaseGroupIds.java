package io.fencegate.issuer;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;

/**
 * Group ids: {@code lg1~<member lease id>~<member lease id>...}, the members in the group's
 * canonical lock order ({@link MultiLock}).
 *
 * <p>Why the members travel in the id: any issuer instance, and any gateway on the same backend,
 * renews, releases or watches a group by its id alone, with no group state kept anywhere; each
 * member is still checked by its own lease id, whose secret makes it unguessable, so a group id
 * grants nothing its members' ids do not. Why {@code '~'}: it is an unreserved URL character, so a
 * group id goes into a path as it is, and no shipped issuer's lease id contains it (they are
 * {@code [A-Za-z0-9._-]}). The prefix never begins a lease id of a shipped issuer
 * ({@code zk1.}, {@code rl1.}, {@code sl1.}), so a server tells a group id from a lease id by it.
 */
public final class LeaseGroupIds {

    /** What every group id begins with. */
    public static final String PREFIX = "lg1~";
    private static final char SEPARATOR = '~';
    /** Longer ids are refused before they are split: room for {@link MultiLock#MAX_LOCKS} long lease ids. */
    private static final int MAX_CHARS = MultiLock.MAX_LOCKS * 16_400;

    private LeaseGroupIds() { }

    /** Whether {@code id} is shaped as a group id (its members are not checked). */
    public static boolean isGroupId(String id) {
        return id != null && id.startsWith(PREFIX);
    }

    /**
     * The group id of these member lease ids, in the order given.
     *
     * @throws IllegalArgumentException for no member, more than {@link MultiLock#MAX_LOCKS}, a
     *     duplicate, or a member id that is empty or contains {@code '~'}
     */
    public static String format(List<String> memberIds) {
        checkCount(memberIds.size());
        StringBuilder id = new StringBuilder(PREFIX);
        HashSet<String> seen = new HashSet<>();
        for (String member : memberIds) {
            if (member == null || member.isEmpty() || member.indexOf(SEPARATOR) >= 0) {
                throw new IllegalArgumentException("a group member's lease id must be non-empty and without '~'");
            }
            if (!seen.add(member)) {
                throw new IllegalArgumentException("a lease may be in a group once");
            }
            if (id.length() > PREFIX.length()) {
                id.append(SEPARATOR);
            }
            id.append(member);
        }
        return id.toString();
    }

    /**
     * The member lease ids a group id names, in its order; empty for anything that is not a group
     * id this format could have made (no prefix, an empty member, a duplicate, too many members).
     */
    public static Optional<List<String>> parse(String groupId) {
        if (!isGroupId(groupId) || groupId.length() > MAX_CHARS) {
            return Optional.empty();
        }
        List<String> members = new ArrayList<>();
        HashSet<String> seen = new HashSet<>();
        int start = PREFIX.length();
        while (true) {
            int end = groupId.indexOf(SEPARATOR, start);
            String member = groupId.substring(start, end < 0 ? groupId.length() : end);
            if (member.isEmpty() || !seen.add(member) || members.size() == MultiLock.MAX_LOCKS) {
                return Optional.empty();
            }
            members.add(member);
            if (end < 0) {
                return Optional.of(List.copyOf(members));
            }
            start = end + 1;
        }
    }

    private static void checkCount(int members) {
        if (members < 1 || members > MultiLock.MAX_LOCKS) {
            throw new IllegalArgumentException("a group has 1 to " + MultiLock.MAX_LOCKS + " leases, was " + members);
        }
    }
}

package io.fencegate.issuer;

import java.util.List;
import java.util.Optional;

/**
 * One page of a lease listing, in lock-name order.
 *
 * @param leases the live leases of this page, at most the limit asked for
 * @param next   the cursor of the following page; empty on the last page
 */
public record LeasePage(List<LeaseInfo> leases, Optional<String> next) {
    public LeasePage {
        leases = List.copyOf(leases);
    }
}

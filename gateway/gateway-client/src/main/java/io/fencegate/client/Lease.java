package io.fencegate.client;

import java.time.Instant;

/** A granted lease: exclusive use of {@code lock}, proven to stores by {@code token}. */
public record Lease(String lock, String leaseId, long token, Instant expiresAt) {}

package io.fencegate.gateway.store;

/**
 * How many event loops serve the gateway's HTTP ({@code server.eventLoops}), offered to stores as
 * a service: a reactive store gives each loop its own connections, so no request hands off between loops.
 */
public record ServerEventLoops(int count) {}

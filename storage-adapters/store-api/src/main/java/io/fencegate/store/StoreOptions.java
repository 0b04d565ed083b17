package io.fencegate.store;

import java.util.Objects;

/**
 * The settings every store has, with the same defaults and checks: its name, its guard rule and
 * its limits. Each store's options extend this with what its backend needs; the setters are
 * fluent and return the store's own options type ({@code O}).
 */
public abstract class StoreOptions<O extends StoreOptions<O>> {
    private String name = "default";
    private GuardRule rule = GuardRule.STRICT;
    private StoreLimits limits = StoreLimits.DEFAULT;

    protected StoreOptions() {}

    /**
     * The store's name (default {@code "default"}; see {@link StoreName}): its database, schema or
     * directory is claimed for it at open, and a store with another name there is refused. Several
     * stores, processes or gateways on one place must use the same name. Also in thread names.
     */
    public String name() { return name; }
    public O name(String name) { this.name = StoreName.check(name); return self(); }

    /** The guard rule (default {@link GuardRule#STRICT}). */
    public GuardRule rule() { return rule; }
    public O rule(GuardRule rule) { this.rule = Objects.requireNonNull(rule, "rule"); return self(); }

    /** Key and value limits (default {@link StoreLimits#DEFAULT}); a store may lower them to what its backend takes. */
    public StoreLimits limits() { return limits; }
    public O limits(StoreLimits limits) { this.limits = Objects.requireNonNull(limits, "limits"); return self(); }

    @SuppressWarnings("unchecked") // O is the concrete class by construction: class X extends StoreOptions<X>
    private O self() {
        return (O) this;
    }
}

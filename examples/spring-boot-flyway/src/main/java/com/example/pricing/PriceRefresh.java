package com.example.pricing;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import io.fencegate.shedlock.FencedJob;
import io.fencegate.store.jdbc.TokenColumnGuard;
import java.util.Optional;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.jooq.DSLContext;
import org.springframework.stereotype.Component;

/**
 * A ShedLock job (add {@code @Scheduled} to run it on a timer) writing with jOOQ and the starter's
 * {@link TokenColumnGuard} bean: its run's token comes from {@link FencedJob}.
 */
@Component
public class PriceRefresh {
    private final DSLContext dsl;
    private final TokenColumnGuard guard;

    PriceRefresh(DSLContext dsl, TokenColumnGuard guard) {
        this.dsl = dsl;
        this.guard = guard;
    }

    /**
     * Rows written: 1, or 0 if a run with a newer token wrote meanwhile; empty when another
     * instance holds the lock (ShedLock skips the run, and locks no method returning a primitive).
     */
    @SchedulerLock(name = "price-refresh", lockAtMostFor = "30s")
    public Optional<Integer> refresh(String sku, int cents) {
        long token = FencedJob.token();
        return Optional.of(dsl.update(table(name("price")))
                .set(field(name("cents"), Integer.class), cents)
                .set(guard.advanceTo(token))
                .where(field(name("sku"), String.class).eq(sku))
                .and(guard.admits(token))
                .execute());
    }
}

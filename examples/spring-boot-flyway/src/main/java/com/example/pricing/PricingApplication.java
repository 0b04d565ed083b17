package com.example.pricing;

import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A pricing service as a Boot team builds one: Boot's parent and Flyway for its own table, jOOQ
 * and JdbcTemplate on Boot's DataSource, ShedLock for its job; fencegate's starter adds leases from
 * the same PostgreSQL and the guards, with fencegate's tables in a schema of their own.
 */
@SpringBootApplication
@EnableSchedulerLock(defaultLockAtMostFor = "PT30S")
public class PricingApplication {
    public static void main(String[] args) {
        SpringApplication.run(PricingApplication.class, args);
    }
}

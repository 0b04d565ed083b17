package io.fencegate.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A small shop service: {@code POST /stock/{sku}/sell} sells one unit in a guard-row transaction
 * (debit the stock, insert an order) under a lease from the token issuer, on Spring's own
 * DataSource. See {@link FencingConfiguration} and {@link StockController}.
 */
@SpringBootApplication
public class ShopApplication {
    public static void main(String[] args) {
        SpringApplication.run(ShopApplication.class, args);
    }
}

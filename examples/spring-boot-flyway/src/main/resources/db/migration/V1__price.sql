-- The application's own table, migrated by Boot's Flyway into public; token is fencegate's guard column.
CREATE TABLE price (
    sku   VARCHAR(32) NOT NULL PRIMARY KEY,
    cents INT         NOT NULL,
    token BIGINT      NOT NULL DEFAULT 0
);
INSERT INTO price (sku, cents) VALUES ('A-1', 1000);

package io.fencegate.examples.jdbc;

import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The application's own {@code stock} table, as jOOQ sees it (generated classes work the same way):
 * a row per SKU and its quantity, no fencing columns. Each example adds what its way of fencing
 * needs: token columns on this table, or a guard row beside it.
 */
public final class StockTable {
    public static final Table<Record> STOCK = table(name("stock"));
    public static final Field<String> SKU = field(name("sku"), SQLDataType.VARCHAR(64));
    public static final Field<Integer> QTY = field(name("qty"), SQLDataType.INTEGER);

    private StockTable() {}

    public static void create(DSLContext dsl) {
        dsl.createTableIfNotExists(STOCK)
                .column(SKU, SQLDataType.VARCHAR(64).notNull())
                .column(QTY, SQLDataType.INTEGER.notNull())
                .primaryKey(SKU)
                .execute();
    }
}

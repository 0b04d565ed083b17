package io.fencegate.examples.spring;

import static io.fencegate.examples.jdbc.StockTable.SKU;
import static org.jooq.impl.DSL.field;
import static org.jooq.impl.DSL.name;
import static org.jooq.impl.DSL.table;

import io.fencegate.examples.jdbc.StockTable;
import org.jooq.DSLContext;
import org.jooq.Field;
import org.jooq.Record;
import org.jooq.Table;
import org.jooq.impl.SQLDataType;

/**
 * The shop's own tables, no token columns: the guard row in fencegate_fence does the fencing.
 * The stock table is the examples' shared {@link StockTable}; orders are this shop's own.
 */
final class ShopTables {
    static final Table<Record> ORDERS = table(name("orders"));
    static final Field<Long> ORDER_ID = field(name("id"), SQLDataType.BIGINT);
    static final Field<Long> TOKEN = field(name("token"), SQLDataType.BIGINT);

    static void create(DSLContext dsl) {
        StockTable.create(dsl);
        dsl.createTableIfNotExists(ORDERS)
                .column(ORDER_ID, SQLDataType.BIGINT.identity(true))
                .column(SKU, SQLDataType.VARCHAR(64).notNull())
                .column(TOKEN, SQLDataType.BIGINT.notNull())
                .primaryKey(ORDER_ID)
                .execute();
    }

    private ShopTables() {}
}

-- Which store owns this database / schema. Rows of fencegate_item and fencegate_fence are keyed
-- by the bare key, while locks ({store}/{key}) and API-key scopes are per store: two stores with
-- different names on one schema would write each other's items under each other's locks. So
-- the first store that opens the schema claims it for its name (one row, id = 1; the primary key
-- makes concurrent claims race-free: exactly one name wins), and a store with another name is
-- refused at open. A schema migrated from V3 with data is claimed by the first store that opens it.
CREATE TABLE fencegate_store_claim (
    id         INT          NOT NULL PRIMARY KEY,
    store_name VARCHAR(255) NOT NULL,
    CONSTRAINT fencegate_store_claim_one_row CHECK (id = 1)
);

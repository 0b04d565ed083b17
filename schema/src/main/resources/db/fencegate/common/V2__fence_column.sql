-- Fenced reads: the highest token that has claimed a row, by a write or a fenced read.
-- Always >= token; a row with a fence but no value is a claim on a missing item.
ALTER TABLE fencegate_item ADD COLUMN fence BIGINT NOT NULL DEFAULT 0;
UPDATE fencegate_item SET fence = token;
ALTER TABLE fencegate_item ADD CONSTRAINT fencegate_item_fence_covers_token CHECK (fence >= token);

ALTER TABLE fencegate_fence ADD COLUMN fence BIGINT NOT NULL DEFAULT 0;
UPDATE fencegate_fence SET fence = token;
ALTER TABLE fencegate_fence ADD CONSTRAINT fencegate_fence_fence_covers_token CHECK (fence >= token);

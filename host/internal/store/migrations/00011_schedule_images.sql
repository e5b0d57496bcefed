-- Images stored for schedules, so that those no schedule needs any more
-- (refused creates, removed drafts, cancelled posts, a crash between
-- storing the image and the schedule) are swept after a grace period.
-- Generated images are not listed: their URLs are the product.

-- +goose Up
CREATE TABLE schedule_images (
    key          TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL,
    created_at   BIGINT NOT NULL
);
CREATE INDEX schedule_images_by_age ON schedule_images (created_at);

-- +goose Down
DROP TABLE schedule_images;

-- How far the SQLite beacon inbox (traffic-inbox.db beside herald.db) has
-- been applied: the traffic writer answers a beacon 202 once it is in the
-- inbox, and folds inbox groups into events, sessions and rollups behind
-- it. pos is written in the same transaction as the rows it covers, so a
-- restart replays exactly what was not applied. One row per inbox file
-- (its random id), so a new inbox never inherits an old one's position.

-- +goose Up
CREATE TABLE traffic_inbox_marks (
    inbox_id TEXT PRIMARY KEY,
    pos BIGINT NOT NULL
);

-- +goose Down
DROP TABLE traffic_inbox_marks;

-- traffic_pages keeps blocks of 1, 8, 64 and 512 days instead of 1, 4, 16,
-- 64 and 256 (store/traffic_pages.go): one upsert fewer per AI pageview,
-- and a year reads as few rows. Day and 64-day rows stay as they are; 8-
-- and 512-day rows are summed from the day rows. (period - period % n) / n
-- is integer division on SQLite, PostgreSQL and CockroachDB alike (periods
-- are not negative).

-- +goose Up
DELETE FROM traffic_pages WHERE span IN (4, 16, 256);
INSERT INTO traffic_pages (site_id, span, period, path, ai_visits, ai_pageviews, ai_duration_ms)
SELECT site_id, 8, (period - period % 8) / 8, path, SUM(ai_visits), SUM(ai_pageviews), SUM(ai_duration_ms)
FROM traffic_pages WHERE span = 1
GROUP BY site_id, (period - period % 8) / 8, path;
INSERT INTO traffic_pages (site_id, span, period, path, ai_visits, ai_pageviews, ai_duration_ms)
SELECT site_id, 512, (period - period % 512) / 512, path, SUM(ai_visits), SUM(ai_pageviews), SUM(ai_duration_ms)
FROM traffic_pages WHERE span = 1
GROUP BY site_id, (period - period % 512) / 512, path;

-- +goose Down
DELETE FROM traffic_pages WHERE span IN (8, 512);
INSERT INTO traffic_pages (site_id, span, period, path, ai_visits, ai_pageviews, ai_duration_ms)
SELECT site_id, 4, (period - period % 4) / 4, path, SUM(ai_visits), SUM(ai_pageviews), SUM(ai_duration_ms)
FROM traffic_pages WHERE span = 1
GROUP BY site_id, (period - period % 4) / 4, path;
INSERT INTO traffic_pages (site_id, span, period, path, ai_visits, ai_pageviews, ai_duration_ms)
SELECT site_id, 16, (period - period % 16) / 16, path, SUM(ai_visits), SUM(ai_pageviews), SUM(ai_duration_ms)
FROM traffic_pages WHERE span = 1
GROUP BY site_id, (period - period % 16) / 16, path;
INSERT INTO traffic_pages (site_id, span, period, path, ai_visits, ai_pageviews, ai_duration_ms)
SELECT site_id, 256, (period - period % 256) / 256, path, SUM(ai_visits), SUM(ai_pageviews), SUM(ai_duration_ms)
FROM traffic_pages WHERE span = 1
GROUP BY site_id, (period - period % 256) / 256, path;

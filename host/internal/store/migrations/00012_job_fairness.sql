-- Fair claiming and per-workspace caps of the job queue (package jobs):
-- claims rank each workspace's ready jobs by run time and take rank 1 of
-- every workspace before rank 2 of any; caps count a workspace's ready and
-- active jobs of one queue.

-- +goose Up
CREATE INDEX jobs_fair ON jobs (queue, workspace_id, run_at, id) WHERE state IN ('waiting', 'delayed');
CREATE INDEX jobs_workspace_active ON jobs (queue, workspace_id) WHERE state = 'active';

-- +goose Down
DROP INDEX jobs_workspace_active;
DROP INDEX jobs_fair;

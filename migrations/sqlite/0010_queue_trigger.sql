-- A referral credit lowers the referrer's k by referralBoost, which almost never moves it to another
-- 1024-wide bucket of position_buckets (0006_lifecycle.sql). The update trigger used to take the entry
-- out of its old bucket and put it into the new one every time, two writes that cancel out; it now runs
-- only when the entry's bucket, project or waiting state really changes. The counts it keeps are the
-- same as before.
DROP TRIGGER `entries_queue_au`;
--> statement-breakpoint
CREATE TRIGGER `entries_queue_au` AFTER UPDATE OF status, k, deleted_at, project_id ON `entries`
WHEN ((old.status = 'waiting' AND old.deleted_at IS NULL) OR (new.status = 'waiting' AND new.deleted_at IS NULL))
  AND NOT ((old.status = 'waiting' AND old.deleted_at IS NULL) AND (new.status = 'waiting' AND new.deleted_at IS NULL)
    AND old.project_id = new.project_id AND (old.k >> 10) = (new.k >> 10)) BEGIN
  UPDATE position_buckets SET n = n - 1
    WHERE project_id = old.project_id AND bucket = old.k >> 10 AND old.status = 'waiting' AND old.deleted_at IS NULL;
  INSERT INTO position_buckets(project_id, bucket, n)
    SELECT new.project_id, new.k >> 10, 1 WHERE new.status = 'waiting' AND new.deleted_at IS NULL
    ON CONFLICT(project_id, bucket) DO UPDATE SET n = n + 1;
END;

// S3Partition arrives with its own issue; this file keeps the target buildable.

// placeholder: tests for buckets come in the next commit

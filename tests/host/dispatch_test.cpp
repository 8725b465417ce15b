// placeholder: tests for dispatch come in the next commit

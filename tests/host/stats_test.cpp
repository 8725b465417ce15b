// placeholder: tests for stats come in the next commit

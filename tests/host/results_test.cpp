// placeholder: tests for results come in the next commit

// placeholder: tests for sweep come in the next commit

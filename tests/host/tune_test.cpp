// placeholder: tests for tune come in the next commit
